/**
 * The patch operations rxkube builds before they become JSON Patch: paths as arrays of keys and indexes, so they
 * can be routed (status or not) before they are escaped into JSON Pointers.
 */
import { jsonPointer } from './json-pointer.js';
import type { JsonPatchOperation } from './types.js';

/** One `add`, `replace` or `remove`, with its path as keys (objects) and numbers (array indexes). */
export type PathOperation =
  | { readonly op: 'add' | 'replace'; readonly path: readonly (string | number)[]; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: readonly (string | number)[] };

/** The JSON Patch form of path operations: paths escaped as JSON Pointers (`~0`, `~1`). */
export function toJsonPatch(operations: readonly PathOperation[]): JsonPatchOperation[] {
  return operations.map((operation) =>
    operation.op === 'remove'
      ? { op: 'remove', path: jsonPointer(operation.path) }
      : { op: operation.op, path: jsonPointer(operation.path), value: operation.value },
  );
}
