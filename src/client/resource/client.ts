/**
 * The shape of the typed resource client: every call of the API server's write path (and its reads) as a cold
 * Observable.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Observable } from 'rxjs';
import type { ResourceRef } from '../../resources/index.js';
import type { Recipe } from '../patch/index.js';
import type { JsonPatchOperation, WarningHandler, WriteObserver } from 'rxkube/extend';
import type { SchedulerLike } from 'rxjs';

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
 * - Fails with the transport's errors only: `ApiError` for any error status (test it with `apiErrors.isConflict`,
 *   `.isNotFound`, `.isInvalid`, ...; `causes` name the fields), `TransportError` when the network fails, and an
 *   `Error` named `ClientScopeError` for a call the client refuses to send (no name, no namespace, another
 *   namespace): a mistake in the calling code, so it is not exported; its `name` tells it apart.
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

  /** `GET` one object. A missing one is a 404 `ApiError` (`apiErrors.isNotFound`). */
  get(ref: ResourceClient.ObjectRef, options?: ResourceClient.GetOptions): Observable<T>;
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
   *   `metadata.continue` names the next page. An expired token is the server's 410 `ApiError` (`apiErrors.isExpired`):
   *   start again without it.
   *
   * # Caveats
   * - Items of a built-in kind's list carry no `apiVersion` and `kind` (kube-apiserver leaves them out); an
   *   informer's objects have them.
   */
  list(options?: ResourceClient.ListOptions): Observable<ResourceClient.ObjectList<T>>;
  /** `POST` a new object. A taken name is a 409 `ApiError` (`apiErrors.isAlreadyExists`). */
  create(object: T, options?: ResourceClient.WriteOptions): Observable<T>;
  /**
   * `PUT` the whole object. Its `metadata.resourceVersion` is the precondition: a stale one is a 409 `ApiError`
   * (`apiErrors.isConflict`). Status changes are ignored by kinds that have a status subresource.
   */
  replace(object: T, options?: ResourceClient.WriteOptions): Observable<T>;
  /** `PATCH` with a merge, JSON or strategic merge patch (see `ResourceClient.Patch`). */
  patch(
    ref: ResourceClient.ObjectRef,
    patch: ResourceClient.Patch,
    options?: ResourceClient.WriteOptions,
  ): Observable<T>;
  /**
   * Server-side apply: `PATCH` with `application/apply-patch+yaml` (JSON is YAML). The body is the caller's
   * partial object, holding only the fields it manages; `apiVersion` and `kind` are filled in when missing.
   *
   * # Guarantees
   * - The field manager is `options.fieldManager`, else the client's; with neither, the server's 422 says it is
   *   required.
   * - A field another manager owns with another value is a 409 `ApiError` (`apiErrors.isConflict`) whose `causes`
   *   name each field and manager (see `apiErrors.applyConflicts`); `force: true` takes the fields over instead.
   * - Creates the object when it does not exist.
   */
  apply(object: ResourceClient.PartialObject<T>, options?: ResourceClient.ApplyOptions): Observable<T>;
  /**
   * `DELETE` one object. Emits what the server answered: the object (with `deletionTimestamp` while finalizers or
   * foreground deletion hold it) or a `Status`.
   *
   * # Guarantees
   * - `preconditions` make the delete fail with 409 unless uid and resourceVersion still match.
   */
  delete(
    ref: ResourceClient.ObjectRef,
    options?: ResourceClient.DeleteOptions,
  ): Observable<T | ResourceClient.StatusObject>;
  /**
   * `DELETE` every object of the client's namespace that the selectors match. Needs a namespace for a namespaced
   * kind (the API server has no cross-namespace delete). Emits the list of deleted objects or a `Status`. Selectors
   * are checked as `list` checks them.
   */
  deleteCollection(
    options?: ResourceClient.DeleteCollectionOptions,
  ): Observable<ResourceClient.ObjectList<T> | ResourceClient.StatusObject>;

  /** `GET` the status subresource (the whole object, as the server answers it). */
  getStatus(ref: ResourceClient.ObjectRef, options?: ResourceClient.GetOptions): Observable<T>;
  /**
   * `PUT` the status subresource: only `status` changes are kept, `metadata.generation` does not move, and
   * `metadata.resourceVersion` is the precondition.
   */
  replaceStatus(object: T, options?: ResourceClient.WriteOptions): Observable<T>;
  /** `PATCH` the status subresource; changes outside `status` are ignored by the server. */
  patchStatus(
    ref: ResourceClient.ObjectRef,
    patch: ResourceClient.Patch,
    options?: ResourceClient.WriteOptions,
  ): Observable<T>;
  /** Server-side apply to the status subresource; ownership is tracked apart from the main resource's. */
  applyStatus(object: ResourceClient.PartialObject<T>, options?: ResourceClient.ApplyOptions): Observable<T>;

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
   *   When attempts run out the error is a 409 `ApiError` (`apiErrors.isConflict`); any other error fails at once. A 422
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
  mutate(
    target: T | ResourceClient.ObjectRef,
    recipe: Recipe<T>,
    options?: ResourceClient.MutateOptions<T>,
  ): Observable<T>;
}

/**
 * The types of the calls of `ResourceClient` and of `resourceClient` itself: `ResourceClient.GetOptions`,
 * `ResourceClient.ListOptions`, `ResourceClient.Patch`, `ResourceClient.Options` and the rest. They are named here,
 * beside the interface whose calls take them, as the API's `GetOptions`, `ListOptions` and `DeleteOptions` are
 * named; a call takes its options as an object literal, so most code never names them.
 */
export declare namespace ResourceClient {
  /** Options of `create`, `replace`, `patch` and the status writes. */
  export interface WriteOptions {
    /**
     * Aborting it cancels the call at once: the request in flight is aborted and the Observable errors with the
     * signal's `reason`. Pass the reconcile request's `signal`.
     */
    readonly signal?: AbortSignal;
    /** `dryRun=All`: the server validates and answers with the result, but stores nothing. */
    readonly dryRun?: boolean;
    /** The field manager recorded in managedFields; defaults to the client's `fieldManager`. */
    readonly fieldManager?: string;
    /**
     * How strictly the server treats unknown or duplicate fields: `Strict` rejects them with 400 (as `kubectl
     * --validate=strict`), `Warn` answers with warnings, `Ignore` drops them silently.
     */
    readonly fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  }

  /** Options of `apply` and `applyStatus` (server-side apply). */
  export interface ApplyOptions extends WriteOptions {
    /** Take ownership of fields other managers own instead of failing with a 409 conflict. */
    readonly force?: boolean;
  }

  /** Options of `get` and `getStatus`. */
  export interface GetOptions {
    /**
     * Aborting it cancels the call at once: the request in flight is aborted and the Observable errors with the
     * signal's `reason`. Pass the reconcile request's `signal`.
     */
    readonly signal?: AbortSignal;
    /** `''`/omitted: the latest (quorum read); `'0'`: any cached version. */
    readonly resourceVersion?: string;
  }

  /**
   * Options of `list`. Without `limit` and `continue`, `list` reads every page (`pageSize` at a time) and emits them
   * as one list; with either, it reads exactly one page, as the API defines it.
   */
  export interface ListOptions {
    /**
     * Aborting it cancels the call at once: the request in flight is aborted and the Observable errors with the
     * signal's `reason`. Pass the reconcile request's `signal`.
     */
    readonly signal?: AbortSignal;
    /** A label selector in its text form, e.g. `app=web,tier!=db` (see `selectors.formatLabelSelector`). */
    readonly labelSelector?: string;
    /** A field selector in its text form, e.g. `status.phase=Running` (see `selectors.formatFieldSelector`). */
    readonly fieldSelector?: string;
    /**
     * Read one page of at most this many items (the API's `limit`); the answer's `metadata.continue` fetches the
     * next page. Omitted: every page.
     */
    readonly limit?: number;
    /** Read the one page after the previous page's `metadata.continue` token (a 410 when it expired). */
    readonly continue?: string;
    /** The size of each page when `list` reads every page (no `limit`, no `continue`). Default 500, as client-go's pager. */
    readonly pageSize?: number;
    /** List at (or not older than) this version; `'0'` serves from the server's cache. */
    readonly resourceVersion?: string;
    /** How `resourceVersion` is read: exactly, or as a lower bound. */
    readonly resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  }

  /** Options of `delete`, sent as the request's `DeleteOptions` body (`dryRun` as the query parameter). */
  export interface DeleteOptions {
    /**
     * Aborting it cancels the call at once: the request in flight is aborted and the Observable errors with the
     * signal's `reason`. Pass the reconcile request's `signal`.
     */
    readonly signal?: AbortSignal;
    /** `dryRun=All`: the server checks the delete and answers, but deletes nothing. */
    readonly dryRun?: boolean;
    /** Seconds the object may take to go (pods); 0 deletes at once. */
    readonly gracePeriodSeconds?: number;
    /** What happens to dependents: `Background` (the default for most kinds), `Foreground` or `Orphan`. */
    readonly propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
    /** The delete fails with 409 Conflict unless the stored object still has this uid and resourceVersion. */
    readonly preconditions?: {
      /** The uid the object must still have. */
      readonly uid?: string;
      /** The resourceVersion the object must still have. */
      readonly resourceVersion?: string;
    };
  }

  /** Options of `deleteCollection`: which objects (selectors) and how (`DeleteOptions`). */
  export interface DeleteCollectionOptions extends DeleteOptions {
    /** Only objects with matching labels, in text form. */
    readonly labelSelector?: string;
    /** Only objects with matching fields, in text form. */
    readonly fieldSelector?: string;
  }

  /** A patch other than server-side apply, by its content type. */
  export type Patch =
    /** RFC 7386 JSON merge patch (`application/merge-patch+json`): `null` deletes, lists are replaced whole. */
    | {
        /** `merge`: RFC 7386 JSON merge patch. */
        readonly type: 'merge';
        /** The merge patch document. */
        readonly body: unknown;
      }
    /** RFC 6902 JSON Patch (`application/json-patch+json`). */
    | {
        /** `json`: RFC 6902 JSON Patch. */
        readonly type: 'json';
        /** The operations, applied in order. */
        readonly body: readonly JsonPatchOperation[];
      }
    /** Kubernetes strategic merge patch; built-in kinds only (custom resources answer 415). */
    | {
        /** `strategic`: Kubernetes strategic merge patch. */
        readonly type: 'strategic';
        /** The strategic merge patch document. */
        readonly body: unknown;
      };

  /** An object, or its name: what `get`, `patch`, `delete` and the status calls act on. */
  export type ObjectRef =
    | string
    | {
        /** Where the name (and, for a client of all namespaces, the namespace) is read. */
        readonly metadata?: {
          /** The object's name. */
          readonly name?: string;
          /** The object's namespace. */
          readonly namespace?: string;
        };
      };

  /** A partial object, as server-side apply takes it: only the fields the caller has an opinion about. */
  export type PartialObject<T> = T extends readonly (infer U)[]
    ? PartialObject<U>[]
    : T extends object
      ? { [K in keyof T]?: PartialObject<T[K]> }
      : T;

  /** The latest object of a key, as an informer keeps it: where `mutate` re-reads after a conflict. */
  export interface StoreSource<T> {
    /** The latest snapshot (an informer's `current()`); only `get(key)` is used. */
    current(): {
      /** The object stored under `key` (`namespace/name`, or `name`); `undefined` when there is none. */
      get(key: string): T | undefined;
    };
  }

  /** How `mutate` retries a conflict; the default is client-go's `retry.DefaultRetry`. */
  export interface RetryPolicy {
    /** Attempts in all, the first included (client-go's `Steps`). */
    readonly steps: number;
    /** The first delay, ms. */
    readonly durationMs: number;
    /** Each delay is the previous one times this. */
    readonly factor: number;
    /** Each delay is stretched by up to this fraction, at random (client-go's `wait.Jitter`). */
    readonly jitter: number;
  }

  /** Options of `mutate`. */
  export interface MutateOptions<T> extends WriteOptions {
    /**
     * Where to re-read after a conflict (usually the informer the reconcile requests come from). Its copy is used
     * only when it has caught up: when its `metadata.resourceVersion` is strictly newer than the version the refused
     * write tested, compared as kube-apiserver orders them (`compareResourceVersions`: decimal integers, by length then
     * digits). A copy at the same version, an older one, a missing one or one whose version does not compare (an
     * opaque resourceVersion) is passed over for a GET, so a lagging cache never causes a second conflict.
     * It is also read first when `mutate` is given a name or an object without a resourceVersion.
     */
    readonly store?: StoreSource<T>;
    /** Overrides the client's retry policy. */
    readonly retry?: RetryPolicy;
  }

  /** Options of `resourceClient`. */
  export interface Options {
    /** Scope every call to this namespace; omitted: cluster-wide (namespaced objects then carry their namespace). */
    readonly namespace?: string;
    /**
     * The field manager of every write that does not name one: the controller's name. Server-side apply needs one;
     * other writes fall back to the server's default: the User-Agent up to its first `/`, which is the program's name
     * (see `defaultUserAgent`, and `kubeTransport`'s `userAgent` to set it).
     */
    readonly fieldManager?: string;
    /**
     * Whether the resource has a status subresource, so `mutate` sends status changes there. Omitted: discovery
     * says (asked once per cluster connection, and only when a `mutate` changes status).
     */
    readonly statusSubresource?: boolean;
    /** `mutate`'s conflict retry policy; default `defaults.client.retry`. */
    readonly retry?: RetryPolicy;
    /** Schedules `mutate`'s retry delays; default `monotonicScheduler` (from `rxkube/extend`) (virtual inside `TestScheduler.run()`). */
    readonly scheduler?: SchedulerLike;
    /** The jitter source of retry delays, uniform in [0, 1); default `Math.random`. */
    readonly random?: () => number;
    /**
     * Receives every warning the API server attaches to an answer (`Warning: 299`): the unknown fields a write
     * dropped under `fieldValidation: 'Warn'` (the server's default), deprecated API versions, and others. Called
     * for refused requests too, before the error reaches the subscriber. A handler that throws is reported as a
     * process warning. Default: `printWarningOnce`.
     */
    readonly onWarning?: WarningHandler;
    /**
     * Hears every write the client sends, and its answer (a `WriteObserver` of `rxkube/extend`): a controller
     * context's `client()` passes the context's own-write ledger (`context.writes`), so that the controller can read
     * its own writes and ignore their echoes. Default: none.
     */
    readonly writeObserver?: WriteObserver;
  }

  /** A list as the API server returns it. */
  export interface ObjectList<T extends KubernetesObject> {
    /** The list's apiVersion, e.g. `v1`. */
    readonly apiVersion?: string;
    /** The list kind, e.g. `PodList`. */
    readonly kind?: string;
    /** The version the list was read at, and the token of the next page when there is one. */
    readonly metadata: {
      /** The resourceVersion the list was read at. */
      readonly resourceVersion?: string;
      /** The token of the next page; absent on the last page. */
      readonly continue?: string;
      /** How many items the next pages hold, when the server could tell. */
      readonly remainingItemCount?: number;
    };
    /** The objects. Those of a built-in kind's list carry no `apiVersion` and `kind` (kube-apiserver leaves them out). */
    readonly items: T[];
  }

  /** The `Status` the API server answers some deletes with instead of the object. */
  export interface StatusObject {
    /** Always `Status`. */
    readonly kind: 'Status';
    /** Always `v1`. */
    readonly apiVersion: 'v1';
    /** `Success` for a delete. */
    readonly status?: string;
    /** What was deleted: its name, resource (plural) and uid. */
    readonly details?: {
      /** The deleted object's name. */
      readonly name?: string;
      /** Its resource (plural), e.g. `pods`. */
      readonly kind?: string;
      /** Its uid. */
      readonly uid?: string;
    };
  }
}
