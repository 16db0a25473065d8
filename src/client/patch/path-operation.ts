/**
 * The patch operations rxkube builds before they become JSON Patch: paths as arrays of keys and indexes, so they
 * can be routed (status or not) before they are escaped into JSON Pointers.
 */
import { jsonPointer } from './json-pointer.js';
import type { JsonPatchOperation } from './types.js';

/** A path of keys (objects) and numbers (array indexes). */
export type OperationPath = readonly (string | number)[];

/**
 * One `add`, `replace`, `remove`, `move` (within one array) or `test`. rxkube's own `test`s check that a member the
 * base lacks is absent on the server too (`value: null`, which kube-apiserver's JSON Patch reads as "missing").
 */
export type PathOperation =
  | { readonly op: 'add' | 'replace' | 'test'; readonly path: OperationPath; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: OperationPath }
  | { readonly op: 'move'; readonly from: OperationPath; readonly path: OperationPath };

/** The JSON Patch form of path operations: paths escaped as JSON Pointers (`~0`, `~1`). */
export function toJsonPatch(operations: readonly PathOperation[]): JsonPatchOperation[] {
  return operations.map((operation): JsonPatchOperation => {
    switch (operation.op) {
      case 'remove':
        return { op: 'remove', path: jsonPointer(operation.path) };
      case 'move':
        return { op: 'move', from: jsonPointer(operation.from), path: jsonPointer(operation.path) };
      default:
        return { op: operation.op, path: jsonPointer(operation.path), value: operation.value };
    }
  });
}
