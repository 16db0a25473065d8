/**
 * The `controller()` builder: controller-runtime's `For`/`Owns`/`Watches` shape over rxkube's operators.
 */
export { controller, type ControllerOptions, type WatchesSpec, type WatchSource } from './controller.js';
