/**
 * Probes: the readiness the informers give, and custom checks.
 * @packageDocumentation
 */
export { Readiness, type ReadinessVerdict } from './readiness.js';
export { runChecks, type CheckResult } from './checks.js';
