/**
 * The shape of the typed resource client: every call of the API server's write path (and its reads) as a cold
 * Observable.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Observable } from 'rxjs';
import type { ResourceRef } from '../../resources/index.js';
import type { Recipe } from '../patch/index.js';
import type {
  ApplyOptions, ClientListOptions, DeleteCollectionOptions, DeleteOptions, GetOptions, MutateOptions, ObjectList, ObjectRef,
  PartialObject, Patch, StatusObject, WriteOptions,
} from './options.js';

/**
 * A typed client for one kind, scoped to one namespace or cluster-wide. Create it with `resourceClient`.
 *
 * # Guarantees (every call)
 * - Cold: nothing is sent until subscription; each subscription sends one request (plus, once per connection, the
 *   discovery request that resolves a kind the built-in table does not know). The exceptions: `list` without a
 *   `limit` sends one request per page, and `mutate` may send up to two writes per attempt and re-reads between
 *   attempts, as documented there.
 * - Unsubscribing aborts the request in flight. A `signal` option does the same and errors with its `reason`.
 * - Emits exactly one value, then completes. Every write emits the object as the server wrote it, so its
 *   `metadata.resourceVersion` says which version this write produced (wait for an informer to reach it before
 *   trusting the cache).
 * - Fails with the transport's errors only: `ApiError` for any error status (test it with `isConflict`,
 *   `isNotFound`, `isInvalid`, ...; `causes` name the fields), `TransportError` when the network fails, and
 *   {@link ClientScopeError} for a call the client refuses to send (no name, no namespace, another namespace).
 * - Nothing is retried behind the caller's back, except conflicts inside `mutate`.
 *
 * # Caveats
 * - Objects travel as the API server's JSON. client-node's model types fit it except where their property names
 *   differ from the wire (`_continue`, `xKubernetes...` and `_default`-style names in CRD schemas) and where they
 *   declare `Date`s (the wire, and what this client returns, has strings). Write those fields by their JSON names.
 */
export interface ResourceClient<T extends KubernetesObject> {
  /** The kind this client serves. */
  readonly resource: ResourceRef;
  /** The namespace the client is scoped to; `undefined` when cluster-wide. */
  readonly namespace: string | undefined;
  /** The client's default field manager, when it has one. */
  readonly fieldManager: string | undefined;

  /** A client for the same kind and options, scoped to `namespace`. */
  inNamespace(namespace: string): ResourceClient<T>;

  /** `GET` one object. A missing one is a 404 `ApiError` (`isNotFound`). */
  get(ref: ObjectRef, options?: GetOptions): Observable<T>;
  /**
   * `GET` the collection: the client's namespace, or every namespace for a cluster-wide client of a namespaced kind.
   * Selector text the server would refuse errors at subscription with a `RangeError` naming it and where it is
   * wrong, and nothing is sent.
   *
   * # Guarantees
   * - Without `limit` and `continue`: **every page**, as client-go's pager reads them. Pages of `pageSize` (500)
   *   are read one after the other, following each `continue` token, and emitted as one list with every item, the
   *   first page's `metadata.resourceVersion` (one consistent snapshot) and no `continue`.
   * - A `continue` token that expires while paging (410: the snapshot was compacted) restarts the list once
   *   without a limit, one request at the caller's `resourceVersion`, as the reflector does; the pages read so far
   *   are dropped.
   * - With `limit` or `continue`: **one page**, one request, as the API defines it; the answer's
   *   `metadata.continue` names the next page. An expired token is the server's 410 `ApiError` (`isExpired`):
   *   start again without it.
   *
   * # Caveats
   * - Items of a built-in kind's list carry no `apiVersion` and `kind` (kube-apiserver leaves them out); an
   *   informer's objects have them.
   */
  list(options?: ClientListOptions): Observable<ObjectList<T>>;
  /** `POST` a new object. A taken name is a 409 `ApiError` (`isAlreadyExists`). */
  create(object: T, options?: WriteOptions): Observable<T>;
  /**
   * `PUT` the whole object. Its `metadata.resourceVersion` is the precondition: a stale one is a 409 `ApiError`
   * (`isConflict`). Status changes are ignored by kinds that have a status subresource.
   */
  replace(object: T, options?: WriteOptions): Observable<T>;
  /** `PATCH` with a merge, JSON or strategic merge patch (see {@link Patch}). */
  patch(ref: ObjectRef, patch: Patch, options?: WriteOptions): Observable<T>;
  /**
   * Server-side apply: `PATCH` with `application/apply-patch+yaml` (JSON is YAML). The body is the caller's
   * partial object, holding only the fields it manages; `apiVersion` and `kind` are filled in when missing.
   *
   * # Guarantees
   * - The field manager is `options.fieldManager`, else the client's; with neither, the server's 422 says it is
   *   required.
   * - A field another manager owns with another value is a 409 `ApiError` (`isConflict`) whose `causes` name each
   *   field and manager (see `applyConflicts`); `force: true` takes the fields over instead.
   * - Creates the object when it does not exist.
   */
  apply(object: PartialObject<T>, options?: ApplyOptions): Observable<T>;
  /**
   * `DELETE` one object. Emits what the server answered: the object (with `deletionTimestamp` while finalizers or
   * foreground deletion hold it) or a `Status`.
   *
   * # Guarantees
   * - `preconditions` make the delete fail with 409 unless uid and resourceVersion still match.
   */
  delete(ref: ObjectRef, options?: DeleteOptions): Observable<T | StatusObject>;
  /**
   * `DELETE` every object of the client's namespace that the selectors match. Needs a namespace for a namespaced
   * kind (the API server has no cross-namespace delete). Emits the list of deleted objects or a `Status`. Selectors
   * are checked as `list` checks them.
   */
  deleteCollection(options?: DeleteCollectionOptions): Observable<ObjectList<T> | StatusObject>;

  /** `GET` the status subresource (the whole object, as the server answers it). */
  getStatus(ref: ObjectRef, options?: GetOptions): Observable<T>;
  /**
   * `PUT` the status subresource: only `status` changes are kept, `metadata.generation` does not move, and
   * `metadata.resourceVersion` is the precondition.
   */
  replaceStatus(object: T, options?: WriteOptions): Observable<T>;
  /** `PATCH` the status subresource; changes outside `status` are ignored by the server. */
  patchStatus(ref: ObjectRef, patch: Patch, options?: WriteOptions): Observable<T>;
  /** Server-side apply to the status subresource; ownership is tracked apart from the main resource's. */
  applyStatus(object: PartialObject<T>, options?: ApplyOptions): Observable<T>;

  /**
   * Runs an Immer `recipe` on the latest object and sends what it changed as one JSON Patch, guarded by a `test`
   * of `metadata.resourceVersion`.
   *
   * # Guarantees
   * - No request at all when the result equals the object (as JSON); the object itself is emitted.
   * - Changes under `status` go to the status subresource (when the kind has one), the rest to the resource: two
   *   requests when both change, **the resource first, then status**, each guarded by the resourceVersion the
   *   previous write produced. The status is written last because it describes the object, and because an
   *   interrupted pair then leaves only status to write, which the next attempt (or run) finds by itself.
   * - The patch changes only what the recipe changed, whichever way the recipe wrote it (in place, or by
   *   re-assigning a map rebuilt with a spread): maps are compared with the object key by key, list items by
   *   identity, `name`/`type`/`uid`, or position (see `diffJson`). So fields the object lacks but the server has (an
   *   informer `transform` dropped them) are kept. A map or list the recipe creates where the object has none is
   *   guarded by a `test` that it is absent; when the server has one, the recipe runs once more, on the object a
   *   GET returns.
   * - A stale base never overwrites anyone's write. A conflict (409, or the 422 kube-apiserver answers when the
   *   `test` fails, confirmed by re-reading) re-reads the object (from `options.store` when it holds a strictly
   *   newer resourceVersion than the one that failed, else with a GET), re-runs the recipe on it and tries again,
   *   up to client-go's `retry.DefaultRetry` (5 attempts, 10 ms apart with 10% jitter) on the client's scheduler.
   *   When attempts run out the error is a 409 `ApiError` (`isConflict`); any other error fails at once. A 422
   *   while the resourceVersion stands is a base that lacks what the server has: the recipe runs once more on the
   *   GET's object (one attempt), and a 422 then is the error.
   * - A recipe that throws fails the call with its error; a recipe may return a new object instead of changing
   *   its draft.
   * - `target` may be an object without a resourceVersion, or a name: it is read first.
   * - Emits the object as last written (the status write's answer when status changed).
   *
   * # Caveats
   * - The recipe runs once per attempt on a fresh object: keep it a function of its input (set a label, add a
   *   finalizer if absent), not an action (increment a counter), as with client-go's `RetryOnConflict`.
   * - When the status write fails after the resource write succeeded, the resource change stays written.
   * - A recipe cannot remove what its object does not show: a key a transform dropped stays on the server.
   * - A transform may drop keys, never list items: list positions must be the server's.
   */
  mutate(target: T | ObjectRef, recipe: Recipe<T>, options?: MutateOptions<T>): Observable<T>;
}
