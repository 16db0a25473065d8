/**
 * Reading a failed call, as client-go's `apierrors` package does: `apiErrors.isNotFound(error)`,
 * `apiErrors.isConflict(error)` and their siblings test any value (true only for an `ApiError` with that status),
 * the `Status` details an `ApiError` carries, and the conflicts of a refused server-side apply.
 *
 * `ApiError` itself, the one error type of every read, watch and write, and `TransportError`, a network failure
 * with no answer, are at the root of `rxkube`, where `instanceof` finds them.
 *
 * @example
 * ```ts
 * import { apiErrors } from 'rxkube';
 *
 * client.get('web').pipe(catchError((error) => (apiErrors.isNotFound(error) ? of(undefined) : throwError(() => error))));
 * ```
 * @packageDocumentation
 */
export {
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isExpired,
  isForbidden,
  isInvalid,
  isNotFound,
  isServerError,
  isTooManyRequests,
  isUnauthorized,
} from './errors.js';
export type { StatusCause, StatusDetails } from './errors.js';
export { applyConflicts } from './apply-conflicts.js';
export type { ApplyConflict } from './apply-conflicts.js';
