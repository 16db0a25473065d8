/** The PATCH algorithms of the in-memory API server: JSON merge, JSON patch and strategic merge patch. */
export { PatchError, GENERIC_422_MESSAGE } from './errors.js';
export { applyMergePatch, applyKubeMergePatch } from './merge-patch.js';
export { applyJsonPatch } from './json-patch.js';
export type { PatchDecodeOptions } from './options.js';
export { applyStrategicMergePatch } from './strategic-merge.js';
export {
  STRATEGIC_MERGE_KEYS,
  DEFAULT_STRATEGIC_MERGE_KEYS,
  PRIMITIVE_MERGE,
  supportsStrategicMerge,
} from './strategic-merge-keys.js';
