/**
 * The harness that runs a controller on a virtual cluster inside `TestScheduler.run()`.
 * @module
 */
export {
  runController,
  type ControllerCrash,
  type ControllerFaults,
  type ControllerRun,
  type RunControllerOptions,
} from './run-controller.js';
