/**
 * The `controller()` builder: controller-runtime's `For`/`Owns`/`Watches` shape over rxkube's operators.
 */
export {
  controller,
  describeWatch,
  type Controller,
  type ControllerOptions,
} from './controller.js';
export type { WatchesSpec, WatchSource } from './sources.js';
export {
  InformerHealthError,
  SyncTimeoutError,
  type InformerHealth,
  type LabelledProblem,
  type UnsyncedInformer,
} from './health.js';
