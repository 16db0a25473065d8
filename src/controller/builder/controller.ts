/**
 * `controller()`: controller-runtime's builder shape (`For`, `Owns`, `Watches`) as a thin layer over the operators.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  combineLatest,
  defer,
  EMPTY,
  map,
  merge,
  Subject,
  takeUntil,
  tap,
  type Observable,
  type OperatorFunction,
} from 'rxjs';
import { monotonicScheduler } from '../../clock/index.js';
import type { Informer, InformerEvent, InformerWatchOptions } from '../../informer/index.js';
import { describeWatch as describeWatchOf, type ResourceRef } from '../../watch/index.js';
import { reportError } from '../predicates/index.js';
import type { ReconcileOptions } from '../reconcile/index.js';
import { reconcile } from '../reconcile/index.js';
import type { ReconcileEvent, ReconcileFn, ReconcileTrigger } from '../reconcile/index.js';
import { mapKeys, toKeys, type KeyMapping } from '../triggers/index.js';
import type { ContextReconcile, ControllerContext } from '../context/index.js';
import { ownedTriggers } from './owner-scope.js';
import {
  healthOf,
  problemsOf,
  reportHealth,
  watchSyncTimeout,
  type InformerHealth,
  type LabelledProblem,
  type NamedInformer,
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
   * Where the controller runs: the context its host (the manager, `startController`, the test kit) gave it. Resources
   * given by reference are watched through its shared informers; runs wait for its gate (leadership) as well as for
   * the caches; its shutdown drains the controller; its scheduler and error reporting are the defaults. Required to
   * watch a resource by reference; a controller over informers given as they are can do without.
   */
  readonly context?: ControllerContext;
  /** The primary resource: its own events trigger its own keys, and reconciles read it from its store. */
  readonly for: WatchSource<T>;
  /** Filters primary events before keying, e.g. `predicates.generationChanged()`. */
  readonly forFilter?: OperatorFunction<InformerEvent<T>, InformerEvent<T>>;
  /**
   * Owned resources: their events trigger the key of their controller owner of the primary kind, keyed by that kind's
   * scope (the built-in table, else the informer factory's discovery).
   */
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
   * report themselves. Without it, each informer reports its own health where its host's informer factory sends it
   * (the manager logs informer status itself; `startController` prints each cause once on stderr; `runController` and
   * `simulate` collect it on the virtual cluster), recoveries included. Default for the rest: the context's
   * `reportError`, else `reportError` (RxJS's `config.onUnhandledError` if set, else a process warning on stderr).
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
 * - Informers come from the context's factory, so a resource watched by several controllers of one host is watched
 *   once.
 * - Unless `gate` is given, no reconcile starts before every informer this controller uses has synced.
 * - Nothing fails silently, and nothing is said twice: while the controller runs, an informer that cannot reach the
 *   cluster or is refused (ECONNREFUSED, 401, 403, an unknown kind) is reported once per cause, to `onError` (or the
 *   host's `reportError`) when there is one, else by the informer itself (see `onError`); `health$` and `problems$`
 *   expose every informer's state; `syncTimeout` bounds how long the caches may take.
 * - Subscribing starts the watches; unsubscribing stops them. Building the controller starts nothing. After
 *   `stop$` (or the host's shutdown) the stream completes once the drain is over.
 * - Owned objects key their owner by the owner kind's real scope, as controller-runtime asks its RESTMapper: a
 *   ConfigMap owned by its Namespace, or by a cluster-scoped custom resource, wakes `ownerName`, never
 *   `namespace/ownerName`. A built-in kind's scope is known at once; another kind's is asked of the context's
 *   informer factory (discovery) once the primary has synced, and until it answers no run starts and no owned event
 *   is mapped (failures are reported to `onError` and asked again with backoff); the owned caches are then replayed.
 * - With a `context`, runs wait for its gate (leadership) as well as for the caches, its shutdown drains the
 *   controller, and errors go to its `reportError`.
 * - Bad options (`owns` without a primary resource reference, a resource reference without a `context`, the old
 *   `connection`, `kubeConfig` or `informers` options, a bad `syncTimeout`, `owns` of a custom kind with an informer
 *   factory that cannot resolve resources) throw a `TypeError` or `RangeError` when
 *   `controller()` is called.
 *
 * # Caveats
 * - Owned resources are keyed by their controller owner reference whose kind (and group) is the primary's; owners of
 *   other kinds are ignored.
 */
export function controller<T extends KubernetesObject>(options: ControllerOptions<T>): Controller {
  const { context } = options;
  const replaced = REPLACED_OPTIONS.filter((name) => name in options);
  if (replaced.length > 0) {
    throw new TypeError(
      `controller: ${replaced.join(', ')} ${replaced.length > 1 ? 'are' : 'is'} no longer an option; pass the host's context as \`context\` (startController(definition, { connection }) runs a controller alone)`,
    );
  }
  const factory = context?.informers;
  const resolve = <S extends KubernetesObject>(source: WatchSource<S>): Informer<S> => {
    if (isInformer(source)) return source;
    if (!factory) throw new TypeError('controller: pass a context to watch a resource by reference');
    return 'resource' in source ? factory.for<S>(source.resource, source.options) : factory.for<S>(source);
  };
  const { syncTimeout } = options;
  if (syncTimeout !== undefined && !(typeof syncTimeout === 'number' && syncTimeout > 0)) {
    throw new RangeError(`controller: syncTimeout must be a number of ms > 0, got ${String(syncTimeout)}`);
  }
  const primary = resolve(options.for);
  const primaryRef = isInformer(options.for)
    ? undefined
    : 'resource' in options.for
      ? options.for.resource
      : options.for;
  const owned = (options.owns ?? []).map((source) => resolve(source));
  const watched = (options.watches ?? []).map((spec) => ({ spec, informer: resolve(spec.source) }));
  const onError = options.onError ?? context?.reportError;
  const report = (error: Error): void => reportError(error, onError);
  // The owner's scope decides its key, as controller-runtime asks its RESTMapper: never guessed, waited for if need be.
  const owners = ownedTriggers(primaryRef, owned, {
    resolve$:
      primaryRef === undefined
        ? undefined
        : factory?.resolve?.(primaryRef, 'resource' in options.for ? options.for.options : undefined),
    primarySynced$: primary.synced$,
    scheduler: options.scheduler ?? context?.scheduler ?? monotonicScheduler,
    report,
  });

  const forEvents = options.forFilter ? primary.events$.pipe(options.forFilter) : primary.events$;
  const triggers: Observable<ReconcileTrigger>[] = [
    forEvents.pipe(toKeys()),
    owners.triggers$,
    ...watched.map(({ spec, informer }) =>
      (spec.filter ? informer.events$.pipe(spec.filter) : informer.events$).pipe(mapKeys(spec.map)),
    ),
  ];
  const named: NamedInformer[] = [
    {
      name: describeSource(options.for as WatchSource<KubernetesObject>, 'primary'),
      informer: primary as unknown as Informer<KubernetesObject>,
    },
    ...(options.owns ?? []).map((source, i) => ({
      name: describeSource(source, `owned #${i + 1}`),
      informer: owned[i]!,
    })),
    ...(options.watches ?? []).map((spec, i) => ({
      name: describeSource(spec.source, `watched #${i + 1}`),
      informer: watched[i]!.informer,
    })),
  ];
  const gate = owners.gate(
    options.gate ??
      combineLatest(named.map(({ informer }) => informer.synced$)).pipe(map((synced) => synced.every(Boolean))),
  );

  const {
    for: _for,
    forFilter: _forFilter,
    owns: _owns,
    watches: _watches,
    reconcile: fn,
    context: _context,
    syncTimeout: _syncTimeout,
    failFast = false,
    onError: _onError,
    ...reconcileOptions
  } = options;
  const operator: ContextReconcile = context?.reconcile ?? reconcile;
  const run$ = defer(() => {
    // The health reports end with the reconciles, so the controller completes after a drain.
    const done$ = new Subject<void>();
    return merge(
      merge(...triggers).pipe(
        operator<T>(fn, { ...reconcileOptions, gate, lookup: (key) => primary.current().get(key) }),
        tap({ complete: () => done$.next() }),
      ),
      merge(
        // Without an `onError` of its own, each informer says its own health where its host's factory sends it (the
        // manager's log, stderr, the virtual cluster's collection); with one, the controller takes it over, so that it
        // is said once.
        options.onError === undefined ? EMPTY : reportHealth(named, report),
        watchSyncTimeout(
          named,
          syncTimeout,
          options.scheduler ?? context?.scheduler ?? monotonicScheduler,
          failFast,
          report,
        ),
      ).pipe(takeUntil(done$)),
    );
  });
  return Object.assign(run$, { health$: healthOf(named), problems$: problemsOf(named) });
}

/** How the cluster used to be given, before the context was the one way. */
const REPLACED_OPTIONS = ['connection', 'kubeConfig', 'informers'] as const;

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
export function describeWatch(
  resource: ResourceRef,
  options?: Pick<InformerWatchOptions, 'namespace' | 'labelSelector' | 'fieldSelector'>,
): string {
  return describeWatchOf(resource, options);
}
