/**
 * Patch generation: Immer recipes to JSON Patch (RFC 6902), JSON Pointers, and the routing of status changes.
 * @packageDocumentation
 */
export { escapePointerToken, jsonPointer } from './json-pointer.js';
export { diffJson } from './diff.js';
export { isPlainObject, jsonEqual } from './json-value.js';
export { toJsonPatch } from './path-operation.js';
export type { PathOperation } from './path-operation.js';
export { recipeChanges, splitStatus } from './recipe.js';
export type { Recipe, RecipeChanges, SplitOperations } from './recipe.js';
export type { JsonPatchOperation } from './types.js';
