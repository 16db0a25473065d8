/**
 * Which write failures mean "the object changed under us", and the conflict error `mutate` gives up with.
 */
import type { ResolvedResource } from '../../resources/index.js';
import { ApiError, isConflict } from '../../transport/index.js';

/**
 * How a failed guarded write is read:
 * - `conflict`: a 409 Conflict, the object changed (a resourceVersion precondition failed);
 * - `unapplied`: a 422 without causes, which is how kube-apiserver answers a JSON Patch that does not apply, a
 *   failed `test` included. Only a re-read tells a stale base from a patch that could never apply;
 * - `undefined`: anything else, never retried by `mutate`.
 */
export function conflictKind(error: unknown): 'conflict' | 'unapplied' | undefined {
  if (isConflict(error)) return 'conflict';
  if (error instanceof ApiError && error.code === 422 && error.causes.length === 0) return 'unapplied';
  return undefined;
}

/**
 * The 409 `mutate` fails with when the object kept changing until the attempts ran out, worded as kube-apiserver
 * words an optimistic-concurrency conflict (`Operation cannot be fulfilled on configmaps "x": the object has been
 * modified; ...`), with the server's last answer as its `cause`.
 */
export function staleObjectConflict(resource: ResolvedResource, name: string, cause: unknown): ApiError {
  const qualified = resource.group === '' ? resource.plural : `${resource.plural}.${resource.group}`;
  const message = `Operation cannot be fulfilled on ${qualified} "${name}": the object has been modified; please apply your changes to the latest version and try again`;
  const status = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: 'Conflict',
    details: { name, ...(resource.group === '' ? {} : { group: resource.group }), kind: resource.plural },
    code: 409,
  };
  const error = new ApiError(409, 'Conflict', message, undefined, status);
  Object.defineProperty(error, 'cause', { value: cause, enumerable: false, writable: true, configurable: true });
  return error;
}
