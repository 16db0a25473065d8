/**
 * The conflicts of a refused server-side apply, read from the 409's causes: which field, which manager.
 */
import { ApiError } from './errors.js';

/** One field another manager owns with a different value. */
export interface ApplyConflict {
  /** The field path as the server prints it, e.g. `.data.color` or `.spec.containers[name="app"].image`. */
  readonly field: string;
  /** The manager that owns it. */
  readonly manager: string;
  /** `Update` when the owner wrote with create/update/patch (the server then names its apiVersion), else `Apply`. */
  readonly operation: 'Apply' | 'Update';
  /** The owner's apiVersion, for an `Update` owner. */
  readonly apiVersion?: string;
  /** The subresource the owner wrote through (`status`), when not the main resource. */
  readonly subresource?: string;
  /** When the owner last wrote, for an `Update` owner (RFC 3339). */
  readonly time?: string;
}

// apimachinery managedfields/internal/conflict.go printManager: `"m"`, then ` with subresource "s"`, then for an
// Update owner ` using <apiVersion>` and ` at <RFC 3339 time>`.
const managerPattern =
  /^conflict with ("(?:[^"\\]|\\.)*")(?: with subresource ("(?:[^"\\]|\\.)*"))?(?: using (\S+)(?: at (\S+))?)?$/;

/**
 * The conflicts a server-side apply was refused for: one per cause of a 409 whose causes are
 * `FieldManagerConflict`s, in the server's order. Empty for any other error.
 *
 * # Guarantees
 * - Reads the causes kube-apiserver (and the in-memory server, word for word) sends: `field` is the path,
 *   `message` is `conflict with "<manager>"` plus the subresource, apiVersion and time when the server gives them.
 * - A cause whose message has another shape still yields its field, with the whole message as `manager`, rather
 *   than being dropped.
 */
export function applyConflicts(error: unknown): ApplyConflict[] {
  if (!(error instanceof ApiError) || error.code !== 409) return [];
  return error.causes
    .filter((cause) => cause.reason === 'FieldManagerConflict')
    .map((cause) => {
      const field = cause.field ?? '';
      const match = managerPattern.exec(cause.message ?? '');
      if (match === null) return { field, manager: cause.message ?? '', operation: 'Apply' as const };
      const [, manager, subresource, apiVersion, time] = match;
      return {
        field,
        manager: unquote(manager!),
        operation: apiVersion === undefined ? ('Apply' as const) : ('Update' as const),
        ...(apiVersion !== undefined ? { apiVersion } : {}),
        ...(subresource !== undefined ? { subresource: unquote(subresource) } : {}),
        ...(time !== undefined ? { time } : {}),
      };
    });
}

/** A Go `%q` string: JSON's escapes cover what manager names hold; anything else is kept as written. */
function unquote(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted.slice(1, -1);
  }
}
