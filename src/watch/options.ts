/**
 * listWatch options and their defaults.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { SchedulerLike } from 'rxjs';
import { monotonicScheduler } from '../clock/index.js';
import { checkSelectors } from '../selectors/index.js';
import { formatShardSelector, type ShardRange } from '../sharding/index.js';
import type { sharding } from 'rxkube';
import { checkWarningHandler, printWarningOnce } from '../transport/index.js';
import type { Connection, Transport, WarningHandler } from '../transport/index.js';
import type { BackoffPolicy } from '../backoff/index.js';
import { DEFAULT_WATCH_BACKOFF } from './backoff.js';
import { checkHealthHandler, defaultHealthHandler, type WatchHealthHandler } from './health.js';

/** Accept header for metadata-only lists. */
export const METADATA_LIST_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
/** Accept header for metadata-only watches (each event's object is a PartialObjectMetadata). */
export const METADATA_WATCH_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';

/**
 * Options of {@link listWatch}. Everything is optional; the defaults are client-go's.
 */
export interface ListWatchOptions<T extends KubernetesObject = KubernetesObject> {
  /** Watch one namespace; omitted means all namespaces. An error for cluster-scoped kinds. */
  readonly namespace?: string;
  /**
   * Watch only objects whose labels match, in Kubernetes' syntax (`app=web,tier!=db`). Checked when the watch is
   * built: text the server would refuse throws a `RangeError` naming the selector and where it is wrong.
   */
  readonly labelSelector?: string;
  /** Watch only objects whose fields match, in Kubernetes' syntax (`spec.nodeName=node-1`); checked as `labelSelector`. */
  readonly fieldSelector?: string;
  /** Ask for `PartialObjectMetadata` (list and watch Accept headers) instead of full objects. */
  readonly metadataOnly?: boolean;
  /**
   * Watch only the objects whose `metadata.uid` (or `metadata.namespace`) hashes into these KEP-5866 ranges (see
   * the `sharding` namespace: `sharding.splitHashSpace(8).slice(0, 2)`). Sent as `shardSelector` on every list and
   * watch, so a kube-apiserver 1.36+ with `--feature-gates=ShardedListAndWatch=true` sends only those objects.
   *
   * # Guarantees
   * - The same objects whether the server selects or not: every listed and watched object is also checked against
   *   the ranges here, so a server that ignores `shardSelector` (the gate off, or before 1.36) changes the traffic,
   *   never what is emitted. A uid and a namespace never change, so an object never moves in or out of the ranges.
   * - A list answered without `metadata.shardInfo` (the server ignored the selector) is said once per subscription
   *   through `onWarning`, with a text that starts `rxkube: shardSelector not served`.
   * - Ranges the server would refuse (bounds not of 16 hex digits, `start >= end`, mixed fields, none) throw a
   *   `RangeError` when the watch is built, with the server's reason.
   *
   * # Caveats
   * - A streaming list (`streamingList`) carries no `shardInfo`: the filter still applies, the detection does not.
   * - Custom resources: kube-apiserver 1.36 filters their lists but echoes no `shardInfo` (an UnstructuredList has
   *   none), so the warning shows on them even where the server selects.
   */
  readonly shard?: readonly sharding.ShardRange[];
  /**
   * Applied to every listed and watched object before it is emitted. Runs after `managedFields` are stripped
   * (unless `keepManagedFields`). A throw, a result that is not an object, or one that cannot be deep-frozen is
   * reported as a `TransformFailed` problem and the object is emitted untransformed (managedFields still
   * stripped), so the cache never keeps a version the server has left. It gets the object unfrozen and may change
   * it in place; what it returns is deep-frozen before it is emitted.
   */
  readonly transform?: (object: T) => T;
  /** Keep `metadata.managedFields` (stripped by default: it is large and controllers rarely read it). */
  readonly keepManagedFields?: boolean;
  /** Use the streaming list (`sendInitialEvents=true`) instead of list pages; falls back when unsupported. */
  readonly streamingList?: boolean;
  /**
   * Error the Observable on 401/403/404, and on an unknown kind, instead of reporting and retrying. (A 400, 405,
   * 406, 414 or 422 stops the watch whatever this says: no retry can fix it.)
   */
  readonly failFast?: boolean;
  /**
   * How long one list page (or discovery request) may take before it is abandoned, counted as a failure
   * (`ListTimeout`) and retried after backoff, ms. Default 70 000: kube-apiserver's own 60 s request timeout plus a
   * margin, so the server's answer wins when it can still give one.
   */
  readonly listTimeout?: number;
  /**
   * How long each watch asks the server to keep it open, ms: `timeoutSeconds` is drawn uniformly in
   * [minWatchTimeout, 2 × minWatchTimeout] (in whole seconds) from `random`, as client-go's `MinWatchTimeout`.
   * Default 300 000: [300, 600] s. `'server'` sends no `timeoutSeconds`, so kube-apiserver ends each watch after
   * its own `--min-request-timeout` (uniform in [min, 2 × min], 1800 s by default); the silence that counts as a
   * dead connection is then 3600 s (twice that default) + 30 s.
   *
   * # Caveats
   * - Short watches cost a new watch request each time they end (resumed at once from the last resourceVersion,
   *   without a relist): below client-go's 5 minutes, for tests and soaks that want the server to end watches often.
   */
  readonly minWatchTimeout?: number | 'server';
  /**
   * How long a watch that has had a bookmark may send no byte, ms, before it counts as a dead connection
   * (`DeadConnection`: aborted and resumed from the last resourceVersion after backoff). Default 90 000; `false`
   * keeps only the `timeoutSeconds + 30 s` bound.
   *
   * kube-apiserver's watch cache sends each watch that allows bookmarks (this one always does) a BOOKMARK about once
   * a minute, and 2 s before its deadline, but only once the cache's resourceVersion has passed the one the watch
   * started from: on 1.36.3 a watch of a resource nobody wrote got its first only after 120 s (when etcd's progress
   * notifications moved the cache on), one whose resource changed got it after 59 s, and then every 59.4 to 60.5 s.
   * So a watch's first bookmark is the sign that more follow on it: from then on it is never silent much longer
   * than 60 s, and 90 s is that minute plus the same 30 s of slack the `timeoutSeconds` bound has. Without
   * it, a connection whose peer vanished without a FIN (a partition) is noticed only after `timeoutSeconds + 30 s`:
   * 330 to 630 s by default.
   *
   * # Guarantees
   * - A watch is held to the lower of `idleTimeout` and `timeoutSeconds + 30 s` from its first bookmark that is not
   *   a streaming list's `k8s.io/initial-events-end` one (any server sends that one), counted from its last byte;
   *   until then, and on every new watch until it has its own, only to `timeoutSeconds + 30 s`. A quiet watch, or
   *   one from a server that never sends bookmarks (a watch served from etcd without the watch cache, an aggregated
   *   API), is never cut by it.
   * - Every timer runs on the `scheduler`.
   *
   * # Caveats
   * - A watch stalled before its first bookmark, or a watch request left unanswered, still waits for
   *   `timeoutSeconds + 30 s`.
   */
  readonly idleTimeout?: number | false;
  /**
   * Every delay and timer goes through it. Default `monotonicScheduler` (from `rxkube/extend`): a step of the system clock moves no
   * backoff, timeout or liveness check; virtual inside `TestScheduler.run()`.
   */
  readonly scheduler?: SchedulerLike;
  /** Random source in [0, 1) for jitter and the watch timeout choice. Default `Math.random`. */
  readonly random?: () => number;
  /** List page size (`limit`). Default 500. */
  readonly pageSize?: number;
  /** Overrides the connection's transport for this watch (a scripted one in tests); default is `transportOf(connection)`. */
  readonly transport?: Transport;
  /** Backoff shape; default 800 ms × 2, cap 30 s. */
  readonly backoff?: BackoffPolicy;
  /**
   * Receives the API server's warnings on the list pages and watches (a deprecated API version, for one), those of
   * refused requests included. A handler that throws is reported as a process warning. Default:
   * `printWarningOnce`, each distinct text once per process.
   */
  readonly onWarning?: WarningHandler;
  /**
   * Receives the watch's health news: each distinct cause of failure once (a refused connection, a 401, a 403, an
   * unknown kind, a DNS or TLS failure, a 5xx…) on the failure that shows it first, the recovery once the server
   * accepts the watch again, and the failure that stops it (see `WatchHealthReport`). Pass `() => {}` to silence
   * them. A handler that throws is reported as a process warning. Default: the connection's own handler when it
   * routes health (a virtual cluster collects them for its test), else `printWatchHealth`, a process warning on
   * stderr.
   */
  readonly onHealth?: WatchHealthHandler;
}

/** Default {@link ListWatchOptions.listTimeout}: kube-apiserver's 60 s request timeout plus 10 s. */
export const DEFAULT_LIST_TIMEOUT_MS = 70_000;

/** Default {@link ListWatchOptions.minWatchTimeout}: client-go's 5 minutes. */
export const DEFAULT_MIN_WATCH_TIMEOUT_MS = 300_000;

/**
 * Default {@link ListWatchOptions.idleTimeout}: kube-apiserver's bookmark period (about 60 s) plus the 30 s of slack
 * the `timeoutSeconds` bound has.
 */
export const DEFAULT_WATCH_IDLE_TIMEOUT_MS = 90_000;

/**
 * With `minWatchTimeout: 'server'`, the longest a watch is expected to stay open, s: twice kube-apiserver's default
 * `--min-request-timeout` (1800 s).
 */
export const SERVER_WATCH_TIMEOUT_BOUND_S = 3_600;

/**
 * The `timeoutSeconds` of one watch: uniform in [min, 2 × min] whole seconds from `sample` (in [0, 1)), or
 * `undefined` for `'server'` (the server's `--min-request-timeout` decides).
 */
export function watchTimeoutSeconds(minWatchTimeout: number | 'server', sample: number): number | undefined {
  if (minWatchTimeout === 'server') return undefined;
  const min = Math.max(1, Math.round(minWatchTimeout / 1000));
  return Math.min(2 * min, min + Math.floor(sample * (min + 1)));
}

/** The options with every default filled in; internal to the reflector. */
export interface ResolvedOptions<T extends KubernetesObject> {
  readonly namespace: string | undefined;
  readonly labelSelector: string | undefined;
  readonly fieldSelector: string | undefined;
  /** The ranges of `shard` and their `shardSelector` text; undefined when not sharded. */
  readonly shard: { readonly ranges: readonly ShardRange[]; readonly selector: string } | undefined;
  readonly listAccept: string | undefined;
  readonly watchAccept: string | undefined;
  /** Strips managedFields unless kept; never throws. */
  readonly strip: (object: T) => T;
  /** The user's transform, if any; may throw. */
  readonly transform: ((object: T) => T) | undefined;
  readonly listTimeout: number;
  readonly minWatchTimeout: number | 'server';
  /** The silence allowed a watch that has had a bookmark, ms; undefined when turned off. */
  readonly idleTimeout: number | undefined;
  readonly streamingList: boolean;
  readonly failFast: boolean;
  readonly scheduler: SchedulerLike;
  readonly random: () => number;
  readonly pageSize: number;
  readonly backoff: BackoffPolicy;
  readonly onWarning: WarningHandler;
  readonly onHealth: WatchHealthHandler;
}

/**
 * Checks what a watch can be told to do before anything is sent, naming the bad option: the selectors' syntax, the
 * shard's ranges, and
 * that `onWarning`, `onHealth` and `transform` are functions. Throws a `RangeError` or `TypeError`.
 */
export function checkWatchOptions(
  where: string,
  options: Pick<ListWatchOptions, 'labelSelector' | 'fieldSelector' | 'shard' | 'onWarning' | 'onHealth'> & {
    readonly transform?: unknown;
  },
): void {
  checkSelectors(where, options);
  resolveShard(where, options.shard);
  checkWarningHandler(where, options.onWarning);
  checkHealthHandler(where, options.onHealth);
  if (options.transform !== undefined && typeof options.transform !== 'function') {
    throw new TypeError(`${where}: transform must be a function (object) => object`);
  }
}

/**
 * Fills the defaults in and validates every option (see {@link checkWatchOptions}, and `pageSize`, `listTimeout`),
 * naming the bad one. `connection` supplies the default health handler.
 */
export function resolveOptions<T extends KubernetesObject>(
  options: ListWatchOptions<T>,
  connection?: Connection,
): ResolvedOptions<T> {
  const pageSize = options.pageSize ?? 500;
  if (!Number.isInteger(pageSize) || pageSize < 1)
    throw new RangeError(`listWatch: pageSize must be a positive integer, got ${pageSize}`);
  const listTimeout = options.listTimeout ?? DEFAULT_LIST_TIMEOUT_MS;
  if (typeof listTimeout !== 'number' || !(listTimeout > 0)) {
    throw new RangeError(`listWatch: listTimeout must be a number of ms > 0, got ${String(listTimeout)}`);
  }
  const minWatchTimeout = options.minWatchTimeout ?? DEFAULT_MIN_WATCH_TIMEOUT_MS;
  if (minWatchTimeout !== 'server' && (typeof minWatchTimeout !== 'number' || !(minWatchTimeout >= 1000))) {
    throw new RangeError(
      `listWatch: minWatchTimeout must be a number of ms >= 1000 or 'server', got ${JSON.stringify(minWatchTimeout)}`,
    );
  }
  const idleTimeout = options.idleTimeout ?? DEFAULT_WATCH_IDLE_TIMEOUT_MS;
  if (
    idleTimeout !== false &&
    (typeof idleTimeout !== 'number' || !(idleTimeout > 0) || !Number.isFinite(idleTimeout))
  ) {
    throw new RangeError(
      `listWatch: idleTimeout must be a finite number of ms > 0 or false, got ${JSON.stringify(idleTimeout)}`,
    );
  }
  checkWatchOptions('listWatch', options);
  return {
    namespace: options.namespace,
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
    shard: resolveShard('listWatch', options.shard),
    listAccept: options.metadataOnly ? METADATA_LIST_ACCEPT : undefined,
    watchAccept: options.metadataOnly ? METADATA_WATCH_ACCEPT : undefined,
    strip: options.keepManagedFields === true ? (object) => object : stripManagedFields,
    transform: options.transform,
    listTimeout,
    minWatchTimeout,
    idleTimeout: idleTimeout === false ? undefined : idleTimeout,
    streamingList: options.streamingList === true,
    failFast: options.failFast === true,
    scheduler: options.scheduler ?? monotonicScheduler,
    random: options.random ?? Math.random,
    pageSize,
    backoff: options.backoff ?? DEFAULT_WATCH_BACKOFF,
    onWarning: options.onWarning ?? printWarningOnce,
    onHealth: options.onHealth ?? defaultHealthHandler(options.transport, connection),
  };
}

/** The `shard` option with its selector text; a `RangeError` naming `where` for ranges the server would refuse. */
function resolveShard(where: string, ranges: readonly ShardRange[] | undefined): ResolvedOptions<never>['shard'] {
  if (ranges === undefined) return undefined;
  try {
    return { ranges: [...ranges], selector: formatShardSelector(ranges) };
  } catch (err) {
    throw new RangeError(`${where}: shard is not a valid shard selector: ${(err as Error).message}`);
  }
}

/** Returns the object without `metadata.managedFields`; the input is not mutated. */
export function stripManagedFields<T extends KubernetesObject>(object: T): T {
  const metadata = object.metadata;
  if (metadata === undefined || !('managedFields' in metadata)) return object;
  const { managedFields: _dropped, ...rest } = metadata;
  return { ...object, metadata: rest };
}
