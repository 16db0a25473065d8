/**
 * `controller()`: controller-runtime's builder shape (`For`, `Owns`, `Watches`) as a thin layer over the operators.
 */
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { combineLatest, defer, EMPTY, map, merge, Subject, takeUntil, tap, type Observable, type OperatorFunction } from 'rxjs';
import { asyncScheduler } from 'rxjs';
import { informerFactory, type Informer, type InformerEvent, type InformerFactory, type InformerWatchOptions } from '../../informer/index.js';
import type { Connection } from '../../transport/index.js';
import { describeWatch as describeWatchOf, type ResourceRef } from '../../watch/index.js';
import { reportError } from '../predicates/index.js';
import type { ReconcileOptions } from '../options.js';
import { reconcile } from '../reconcile.js';
import type { ReconcileEvent, ReconcileFn, ReconcileTrigger } from '../types.js';
import { mapKeys, toKeys, toOwnerKeys, type KeyMapping } from '../triggers/index.js';
import type { ContextReconcile, ControllerContext } from './context.js';
import {
  healthOf, problemsOf, reportHealth, watchSyncTimeout, type InformerHealth, type LabelledProblem, type NamedInformer,
} from './health.js';

/** A resource to watch: a reference plus its watch options, or an informer the caller already has. */
export type WatchSource<T extends KubernetesObject = KubernetesObject> =
  | ResourceRef
  | {
    /** Which resource. */
    readonly resource: ResourceRef;
    /** Its watch options (namespace, selectors, indexers, …). */
    readonly options?: InformerWatchOptions<T>;
  }
  | Informer<T>;

/** A secondary resource whose events map to primary keys. */
export interface WatchesSpec<S extends KubernetesObject = KubernetesObject> {
  /** The secondary resource. */
  readonly source: WatchSource<S>;
  /** Event to primary keys; any shape `mapKeys` accepts. */
  readonly map: (event: InformerEvent<S>) => KeyMapping;
  /** Filters events before mapping (e.g. a predicate from `controller/predicates`). */
  readonly filter?: OperatorFunction<InformerEvent<S>, InformerEvent<S>>;
}

/** Options of {@link controller}. */
export interface ControllerOptions<T extends KubernetesObject> extends ReconcileOptions {
  /**
   * Where informers come from: a `KubeConfig` or any `Transport` (a virtual cluster), as every other entry point
   * takes it; or pass one `informerFactory` as `informers` to share watches across controllers.
   */
  readonly connection?: Connection;
  /** @deprecated The same as `connection` (a KubeConfig), kept for existing callers; pass `connection`. */
  readonly kubeConfig?: KubeConfig;
  /** The informer factory to take informers from; one is made from `kubeConfig` when omitted. */
  readonly informers?: InformerFactory;
  /**
   * The host this controller runs in (the manager's context): its shared informers, its gate (leadership) and
   * shutdown, its scheduler and its error reporting. Excludes `kubeConfig` and `informers`.
   */
  readonly context?: ControllerContext;
  /** The primary resource: its own events trigger its own keys, and reconciles read it from its store. */
  readonly for: WatchSource<T>;
  /** Filters primary events before keying, e.g. `generationChanged()`. */
  readonly forFilter?: OperatorFunction<InformerEvent<T>, InformerEvent<T>>;
  /** Owned resources: their events trigger the key of their controller owner of the primary kind. */
  readonly owns?: readonly WatchSource[];
  /** Any other resources, with their own key mapping. */
  readonly watches?: readonly WatchesSpec<KubernetesObject>[];
  /** The reconcile function; it receives the primary object read from the store at start time. */
  readonly reconcile: ReconcileFn<T>;
  /**
   * How long the caches may take to sync, ms. When it runs out, a `SyncTimeoutError` naming the unsynced informers
   * and their last status is reported to `onError` (the controller keeps waiting), or, with `failFast`, errors the
   * stream. Default: no limit.
   */
  readonly syncTimeout?: number;
  /** With `syncTimeout`: error the stream instead of reporting. Default false. */
  readonly failFast?: boolean;
  /**
   * Receives what the controller survives but a user must hear about: a `SyncTimeoutError`, and, when given, its
   * informers' trouble as `InformerHealthError`s (once per distinct cause until the informer recovers: a refused
   * connection, a 401, a 403, an unknown kind; and the failure that stops one), which the informers then no longer
   * report themselves. Without it (and without a `context`), each informer reports its own health where it would
   * alone (its `onHealth`, else its connection's default: stderr over a KubeConfig, the virtual cluster's collection
   * in tests), recoveries included. Default for the rest: `reportError` (RxJS's `config.onUnhandledError` if set,
   * else a process warning on stderr).
   */
  readonly onError?: (error: Error) => void;
}

/**
 * The stream `controller()` returns: its `ReconcileEvent`s, plus what its informers say about themselves.
 *
 * `pipe` returns a plain Observable; keep the controller value to read `health$` and `problems$`.
 */
export interface Controller extends Observable<ReconcileEvent> {
  /** Every informer's connection status, labelled; on subscribe, each informer's latest status first. */
  readonly health$: Observable<InformerHealth>;
  /** Every informer's object-level problems, labelled, with running counts. */
  readonly problems$: Observable<LabelledProblem>;
}

/**
 * Builds a controller the way controller-runtime's builder does, from the same operators a hand-written pipeline
 * uses: `toKeys` for the primary, `toOwnerKeys` for owned kinds, `mapKeys` for watches, then `reconcile`.
 *
 * # Guarantees
 * - All the guarantees of `reconcile` (never concurrent per key, coalescing, backoff, rate limits, drain).
 * - Informers come from one factory, so a resource watched by several controllers built on the same `informers`
 *   is watched once.
 * - Unless `gate` is given, no reconcile starts before every informer this controller uses has synced.
 * - Nothing fails silently, and nothing is said twice: while the controller runs, an informer that cannot reach the
 *   cluster or is refused (ECONNREFUSED, 401, 403, an unknown kind) is reported once per cause, to `onError` (or the
 *   host's `reportError`) when there is one, else by the informer itself (see `onError`); `health$` and `problems$`
 *   expose every informer's state; `syncTimeout` bounds how long the caches may take.
 * - Subscribing starts the watches; unsubscribing stops them. Building the controller starts nothing. After
 *   `stop$` (or the host's shutdown) the stream completes once the drain is over.
 * - With a `context` (a manager's), informers come from its shared factory, runs wait for its gate (leadership)
 *   as well as for the caches, its shutdown drains the controller, and errors go to its `reportError`.
 * - Bad options (`owns` without a primary resource reference, a resource reference without `kubeConfig`,
 *   `informers` or `context`, `context` together with `kubeConfig` or `informers`, a bad `syncTimeout`) throw a
 *   `TypeError` or `RangeError` when `controller()` is called.
 *
 * # Caveats
 * - Owned resources are keyed by their controller owner reference whose kind (and group) is the primary's; owners of
 *   other kinds are ignored.
 */
export function controller<T extends KubernetesObject>(options: ControllerOptions<T>): Controller {
  const { context } = options;
  if (options.connection !== undefined && options.kubeConfig !== undefined) {
    throw new TypeError('controller: pass connection or kubeConfig (its old name), not both');
  }
  const connection = options.connection ?? options.kubeConfig;
  if (context !== undefined && (options.informers !== undefined || connection !== undefined)) {
    throw new TypeError('controller: pass either context or connection/informers; a context brings its own informers');
  }
  const factory = context?.informers ?? options.informers ?? (connection ? informerFactory(connection) : undefined);
  const resolve = <S extends KubernetesObject>(source: WatchSource<S>): Informer<S> => {
    if (isInformer(source)) return source;
    if (!factory) throw new TypeError('controller: pass connection, informers or context to watch a resource by reference');
    return 'resource' in source ? factory.for<S>(source.resource, source.options) : factory.for<S>(source);
  };
  const { syncTimeout } = options;
  if (syncTimeout !== undefined && !(typeof syncTimeout === 'number' && syncTimeout > 0)) {
    throw new RangeError(`controller: syncTimeout must be a number of ms > 0, got ${String(syncTimeout)}`);
  }
  const primary = resolve(options.for);
  const primaryRef = isInformer(options.for) ? undefined : 'resource' in options.for ? options.for.resource : options.for;
  const owned = (options.owns ?? []).map((source) => resolve(source));
  if (owned.length > 0 && primaryRef === undefined) {
    throw new TypeError('controller: `owns` needs `for` given as a resource reference, to know the owner kind');
  }
  const watched = (options.watches ?? []).map((spec) => ({ spec, informer: resolve(spec.source) }));

  const forEvents = options.forFilter ? primary.events$.pipe(options.forFilter) : primary.events$;
  const triggers: Observable<ReconcileTrigger>[] = [
    forEvents.pipe(toKeys()),
    ...owned.map((informer) => informer.events$.pipe(toOwnerKeys({ kind: primaryRef!.kind, apiVersion: primaryRef!.apiVersion }))),
    ...watched.map(({ spec, informer }) => (spec.filter ? informer.events$.pipe(spec.filter) : informer.events$).pipe(mapKeys(spec.map))),
  ];
  const named: NamedInformer[] = [
    { name: describeSource(options.for as WatchSource<KubernetesObject>, 'primary'), informer: primary as unknown as Informer<KubernetesObject> },
    ...(options.owns ?? []).map((source, i) => ({ name: describeSource(source, `owned #${i + 1}`), informer: owned[i]! })),
    ...(options.watches ?? []).map((spec, i) => ({ name: describeSource(spec.source, `watched #${i + 1}`), informer: watched[i]!.informer })),
  ];
  const gate = options.gate ?? combineLatest(named.map(({ informer }) => informer.synced$)).pipe(map((synced) => synced.every(Boolean)));
  const onError = options.onError ?? context?.reportError;
  const report = (error: Error): void => reportError(error, onError);

  const {
    for: _for, forFilter: _forFilter, owns: _owns, watches: _watches, reconcile: fn, connection: _connection, kubeConfig: _kc, informers: _inf,
    context: _context, syncTimeout: _syncTimeout, failFast = false, onError: _onError, ...reconcileOptions
  } = options;
  const operator: ContextReconcile = context?.reconcile ?? reconcile;
  const run$ = defer(() => {
    // The health reports end with the reconciles, so the controller completes after a drain.
    const done$ = new Subject<void>();
    return merge(
      merge(...triggers).pipe(operator<T>(fn, { ...reconcileOptions, gate, lookup: (key) => primary.current().get(key) }), tap({ complete: () => done$.next() })),
      merge(
        // Without an error handler, each informer says its own health (to its connection's default); with one, the
        // controller takes it over, so that it is said once.
        onError === undefined ? EMPTY : reportHealth(named, report),
        watchSyncTimeout(named, syncTimeout, options.scheduler ?? context?.scheduler ?? asyncScheduler, failFast, report),
      ).pipe(takeUntil(done$)),
    );
  });
  return Object.assign(run$, { health$: healthOf(named), problems$: problemsOf(named) });
}

function isInformer<S extends KubernetesObject>(source: WatchSource<S>): source is Informer<S> {
  return typeof (source as Informer<S>).current === 'function' && 'events$' in source;
}

/** `Pod v1 in default`, `Widget example.com/v1 app=web`, or the role of an informer given as is. */
function describeSource(source: WatchSource<KubernetesObject>, role: string): string {
  if (isInformer(source)) return `${role} informer`;
  const { resource, options } = 'resource' in source ? source : { resource: source, options: undefined };
  return describeWatch(resource, options);
}

/**
 * How informers are named in reports, logs and metric labels: `Pod v1`, then `in <namespace>` and the selectors
 * when set (`Widget example.com/v1 in default app=web`).
 */
export function describeWatch(resource: ResourceRef, options?: Pick<InformerWatchOptions, 'namespace' | 'labelSelector' | 'fieldSelector'>): string {
  return describeWatchOf(resource, options);
}
