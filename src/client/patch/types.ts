/**
 * JSON Patch (RFC 6902) operations, as kube-apiserver accepts them with `application/json-patch+json`.
 */

/** One JSON Patch operation; `path` and `from` are JSON Pointers (see `jsonPointer`). */
export type JsonPatchOperation =
  | { readonly op: 'add'; readonly path: string; readonly value: unknown }
  | { readonly op: 'replace'; readonly path: string; readonly value: unknown }
  | { readonly op: 'test'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'move'; readonly path: string; readonly from: string }
  | { readonly op: 'copy'; readonly path: string; readonly from: string };
