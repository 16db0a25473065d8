/**
 * The manager's Prometheus metrics: controller-runtime's, client-go's workqueue and reflector sets, leader
 * election, and Node's process metrics, all derived from the streams controllers and informers emit.
 * @packageDocumentation
 */
export { MANAGER_METRIC_NAMES, createManagerMetrics, type ManagerMetrics } from './definitions.js';
export { ControllerMetrics } from './controller-metrics.js';
export { ReflectorMetrics } from './reflector-metrics.js';
export { QueueModel } from './queue-model.js';
