/**
 * Triggers: from informer events to reconcile keys, by the object itself (`toKeys`), by its owner (`toOwnerKeys`)
 * or by any mapping (`mapKeys`); and from anything outside Kubernetes (`toTriggers`).
 */
export { toKeys } from './to-keys.js';
export { toOwnerKeys, type ToOwnerKeysOptions } from './to-owner-keys.js';
export { mapKeys } from './map-keys.js';
export { KeyMappingError } from './types.js';
export type { KeyMapping, TriggerOperator, TriggerOptions } from './types.js';
export { toTriggers, type ToTriggersOptions } from './to-triggers.js';
