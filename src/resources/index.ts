/**
 * Resource resolution (kind to plural and scope) and collection paths.
 * @packageDocumentation
 */
export { builtinResource, builtinScopes } from './builtin.js';
export type { ResolvedResource } from './builtin.js';
export { collectionPath, groupVersionPath } from './paths.js';
export { resolveResource, resolveResource$, UnknownResourceError } from './resolve.js';
export type { ResolveResourceOptions } from './resolve.js';
export type { ResourceRef } from './ref.js';
