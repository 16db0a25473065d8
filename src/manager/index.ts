/**
 * The manager: many controllers over one cache, leader election, probes, metrics, logs and a graceful stop.
 * @packageDocumentation
 */
export { manager } from './manager.js';
export {
  DEFAULT_CHECK_TIMEOUT_MS,
  DEFAULT_HEALTH_PORT,
  DEFAULT_INFORMER_FAILURE_THRESHOLD_MS,
  DEFAULT_METRICS_PORT,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
} from './options.js';
export { MANAGER_METRIC_NAMES } from './metrics/index.js';
export {
  REDACTED,
  jsonLogger,
  silentLogger,
  type JsonLoggerOptions,
  type LogFields,
  type LogLevel,
  type ManagerLogger,
} from './logging/index.js';
export { processSignals, STOP_SIGNALS } from './signals.js';
export type {
  HealthCheck,
  HealthOptions,
  ListenOptions,
  ManagerEvent,
  ManagerEventBase,
  ManagerLeaderElection,
  ManagerOptions,
  ManagerSharding,
  MetricsOptions,
  ServerAddress,
  SignalOptions,
} from './types.js';
