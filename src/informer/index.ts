/**
 * Informers: cached, shared, ref-counted views of one resource as `{ events$, store$, synced$, status$, current() }`.
 */
export type { Informer, InformerEvent, InformerOptions, InformerProblem, InformerProblemReason } from './types.js';
export { buildInformer, informerFromSource } from './informer-from-source.js';
export { isPrepared, preparedStep, stepsOf, type InformerStep, type PreparedStep } from './steps.js';
export { coalesceBursts } from './coalesce-bursts.js';
export { informer, type InformerWatchOptions } from './informer.js';
export {
  informerFactory,
  type InformerFactory,
  type InformerFactoryOptions,
} from './informer-factory.js';
export type { DeltaSource } from './delta-source.js';
export { claimHealth } from './health.js';
