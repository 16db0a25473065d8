/**
 * Triggers: from informer events to reconcile keys, by the object itself (`toKeys`), by its owner (`toOwnerKeys`)
 * or by any mapping (`mapKeys`); and from anything outside Kubernetes (`toTriggers`).
 */
export { toKeys } from './toKeys.js';
export { toOwnerKeys, type ToOwnerKeysOptions } from './toOwnerKeys.js';
export { mapKeys } from './mapKeys.js';
export { KeyMappingError } from './types.js';
export type { KeyMapping, TriggerOperator, TriggerOptions } from './types.js';
export { toTriggers, type ToTriggersOptions } from './toTriggers.js';
