/**
 * The `controller()` builder: controller-runtime's `For`/`Owns`/`Watches` shape over rxkube's operators.
 */
export {
  controller,
  describeWatch,
  type Controller,
  type ControllerOptions,
  type WatchesSpec,
  type WatchSource,
} from './controller.js';
export {
  InformerHealthError,
  SyncTimeoutError,
  type InformerHealth,
  type LabelledProblem,
  type UnsyncedInformer,
} from './health.js';
