/**
 * The three Lease calls an elector makes: the seam between the election logic and the client layer, so the
 * virtual-time specs can script a Lease server without HTTP.
 */
import type { Observable } from 'rxjs';
import type { LeaseObject } from './types.js';

/**
 * One named Lease, read and written as cold Observables (one request per subscription, aborted on unsubscribe).
 *
 * # Guarantees (every implementation must keep them)
 * - `get` emits the Lease, or `undefined` when it does not exist (404), then completes.
 * - `create` emits the created Lease; a name already taken errors with an `ApiError` 409 `AlreadyExists`.
 * - `replace` sends the whole object with its `metadata.resourceVersion` as precondition and emits the stored
 *   Lease; a stale resourceVersion errors with an `ApiError` 409 `Conflict`.
 * - Any other failure errors with `ApiError` or `TransportError`; nothing is retried here.
 */
export interface LeaseClient {
  /** `namespace/name`, for messages. */
  readonly describe: string;
  get(): Observable<LeaseObject | undefined>;
  create(lease: LeaseObject): Observable<LeaseObject>;
  replace(lease: LeaseObject): Observable<LeaseObject>;
}
