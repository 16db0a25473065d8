/**
 * JSON Patch (RFC 6902) operations, as kube-apiserver accepts them with `application/json-patch+json`.
 */

/** One JSON Patch operation; `path` and `from` are JSON Pointers (see `jsonPointer`). */
export type JsonPatchOperation =
  | {
      /** Adds `value` at `path` (into an array: inserts; `-` appends). */
      readonly op: 'add';
      /** Where. */
      readonly path: string;
      /** What. */
      readonly value: unknown;
    }
  | {
      /** Replaces the value at `path`, which must exist. */
      readonly op: 'replace';
      /** Where. */
      readonly path: string;
      /** The new value. */
      readonly value: unknown;
    }
  | {
      /** Fails the whole patch unless the value at `path` equals `value`. */
      readonly op: 'test';
      /** Where. */
      readonly path: string;
      /** The value expected there. */
      readonly value: unknown;
    }
  | {
      /** Removes the value at `path`, which must exist. */
      readonly op: 'remove';
      /** Where. */
      readonly path: string;
    }
  | {
      /** Moves the value at `from` to `path`. */
      readonly op: 'move';
      /** Where to. */
      readonly path: string;
      /** Where from. */
      readonly from: string;
    }
  | {
      /** Copies the value at `from` to `path`. */
      readonly op: 'copy';
      /** Where to. */
      readonly path: string;
      /** Where from. */
      readonly from: string;
    };
