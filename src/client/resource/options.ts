/**
 * The options of the resource client and of each of its calls, as kube-apiserver's query parameters and
 * `DeleteOptions` name them.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { SchedulerLike } from 'rxjs';
import type { JsonPatchOperation, WarningHandler, WriteObserver } from 'rxkube/extend';

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
export interface ClientListOptions {
  /**
   * Aborting it cancels the call at once: the request in flight is aborted and the Observable errors with the
   * signal's `reason`. Pass the reconcile request's `signal`.
   */
  readonly signal?: AbortSignal;
  /** A label selector in its text form, e.g. `app=web,tier!=db` (see `formatLabelSelector`). */
  readonly labelSelector?: string;
  /** A field selector in its text form, e.g. `status.phase=Running` (see `formatFieldSelector`). */
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
export interface ResourceClientOptions {
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
   * Hears every write the client sends, and its answer (a `WriteObserver` of `rxkube/extend`): a controller context's
   * `client()` passes the context's own-write ledger (`context.writes`), so that the controller can read its own
   * writes and ignore their echoes. Default: none.
   */
  readonly writeObserver?: WriteObserver;
}

/**
 * client-go's `retry.DefaultRetry`: 5 attempts, 10 ms apart, factor 1, jitter 0.1, so the delays are 10–11 ms.
 */
export const DEFAULT_RETRY: RetryPolicy = Object.freeze({ steps: 5, durationMs: 10, factor: 1, jitter: 0.1 });

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

/** What every call accepts: the `signal` of each call's options. */
export type CallOptions = Pick<GetOptions, 'signal'>;
/** How strictly the server treats unknown or duplicate fields in a write (`fieldValidation`). */
export type FieldValidation = NonNullable<WriteOptions['fieldValidation']>;
/** Whether and how dependents are garbage-collected with the object (`propagationPolicy`). */
export type PropagationPolicy = NonNullable<DeleteOptions['propagationPolicy']>;
