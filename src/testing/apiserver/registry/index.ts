/**
 * What the server serves and the rules of each type: the resource table (built-ins plus what established CRDs add),
 * Event views, CRD handling, and the registry strategies a create or update goes through (defaults, system fields,
 * validation, per-kind rules). Pure functions over objects: nothing here reads or writes the store.
 * @module
 */
export { crdCleanupFinalizer, crdResources } from './crd.js';
export { eventAtVersion, eventsApiVersion, fromEventsView, toEventsView } from './events.js';
export { ResourceRegistry } from './resource-registry.js';
export { builtinResources, groupVersion, hasStatus, isBuiltinGroup, resourceVerbs, storageKey } from './resource.js';
export type { ResourceInfo } from './resource.js';
export { checkPreconditions, generateName, isNoop, prepareCreate, prepareUpdate } from './strategy.js';
