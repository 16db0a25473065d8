/**
 * Seeded simulation of a controller on a virtual cluster: random workloads and faults in virtual time, convergence
 * and invariants checked, failures shrunk to short traces.
 * @module
 */
export {
  simulate,
  assertSimulation,
  type SimulateOptions,
  type SimulationFailure,
  type SimulationReport,
} from './simulate.js';
export { runScenario, describeEvent, type RunSettings, type ScenarioRun } from './run-scenario.js';
export { scenarioArbitrary, describeStep, type Scenario, type ScenarioStep } from './scenario.js';
export {
  CONTROLLER_FAULT_KINDS,
  FAULT_KINDS,
  type CacheUnderTest,
  type Check,
  type FaultKind,
  type FaultOptions,
  type FaultStep,
  type Invariants,
  type SimulationWorld,
  type Workload,
  type WorkloadStep,
} from './types.js';
export {
  ControllerFaultState,
  type CrashMode,
  type CrashOptions,
  type MergeEventsOptions,
  type StaleViewOptions,
  type WatchLag,
} from './controller-view.js';
export { laggingLink, type LaggingLink } from './lagging-link.js';
export { VirtualTimeStuckError } from './guarded-scheduler.js';
export { hostRestartable, type RestartableController, type RestartableOptions } from './controller-host.js';
