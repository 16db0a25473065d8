/**
 * The manager's Prometheus metrics: controller-runtime's, client-go's workqueue and reflector sets, leader
 * election, and Node's process metrics; the controllers' from their operators' metrics hook, the informers' from
 * the streams they emit.
 * @packageDocumentation
 */
export { MANAGER_METRIC_NAMES, createManagerMetrics, type ManagerMetrics } from './definitions.js';
export { ControllerMetrics, resultOf } from './controller-metrics.js';
export { ReflectorMetrics } from './reflector-metrics.js';
