/**
 * The request handlers: one per verb or endpoint (list, watch, create/update/patch, server-side apply, delete,
 * scale, namespace finalize, discovery, OpenAPI), with the query-parameter and selector parsing they share. A handler
 * answers with a `Reply` or a document (a watch writes to its sink); `serving/` routes requests to them and writes
 * the answers.
 * @module
 */
export { deleteCollection, deleteObject, deleteOptions } from './delete.js';
export { coreVersions, groupInfo, groupList, resourceList, serverVersion } from './discovery.js';
export { listObjects } from './list.js';
export { finalizeNamespace } from './namespace-finalize.js';
export { openApiGroupVersion, openApiRoot } from './openapi.js';
export { boolParam, isDryRun } from './query.js';
export { scalableKinds, serveScale } from './scale.js';
export { WatchHub } from './watch.js';
export { create, patch, update } from './writes.js';
