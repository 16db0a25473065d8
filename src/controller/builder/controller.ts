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
import { readYourWrites, type ReadSource } from '../own-writes/index.js';
import { mapKeys, toKeys } from '../triggers/index.js';
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
import { checkOwnWriteOptions, echoFilter, maxWaitOf, readSourceOf, referenceOf } from './own-writes.js';
import { checkRuntimeWatches, runtimeWatches, type AttachedWatch } from './runtime-watches.js';
import { describeSource, isInformer, type WatchesSpec, type WatchSource } from './sources.js';

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
  /**
   * Watches to add and remove while the controller runs: each value is the whole set of extra watches wanted from
   * then on (beside `watches`), each spec compared by identity. A spec that appears is watched (through the
   * context's shared informers); one that disappears stops triggering at once, and its informer is released (its
   * watch request aborted) when nothing else uses it. Runs do not wait for these caches to sync; their health is
   * reported to `onError`, or by their informers, and is not on `health$`. Default: none.
   */
  readonly watches$?: Observable<readonly WatchesSpec<KubernetesObject>[]>;
  /**
   * Read-your-own-writes (needs a `context`): a run of a key starts only once the caches this controller reads show
   * what the key's last runs wrote through `context.client()` (passing their `signal`), and the last write to the
   * key's own object; or the object is gone; or `maxWait` passes (default 5 000 ms; `Infinity`: no bound), and then
   * it runs anyway and its `started` event carries `staleRead`. `false` turns it off. Default: on. A `readiness`
   * option given explicitly replaces it.
   */
  readonly readYourWrites?:
    | boolean
    | {
        /** How long a run waits at most for its caches to show its key's writes, ms; default 5 000; `Infinity`: no bound. */
        readonly maxWait?: number;
      };
  /**
   * Own-write filtering (needs a `context`): which sources drop the events that only echo a write this controller
   * sent through `context.client()` (see `ownWrites.ignore` for exactly which events): `'primary'` (default) the
   * primary's own events, `'all'` every source given by reference (owned and watched too), `'none'`.
   * Caveat: the echo of a status write then triggers nothing, so a run that waits on time (an expiry, a deadline)
   * and writes status must ask for its own next run with `{ requeueAfter }`; the replica-set example's expectations
   * are one such case.
   */
  readonly ignoreOwnWrites?: 'primary' | 'all' | 'none';
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
 * - With a `context`, a run reads its own writes (`readYourWrites`), and a write to a primary object does not
 *   trigger the run that would find nothing to do (`ignoreOwnWrites`); see those options.
 * - `watches$` adds and removes watches while the controller runs; see that option.
 * - Bad options (`owns` without a primary resource reference, a resource reference without a `context`, the old
 *   `connection`, `kubeConfig` or `informers` options, a bad `syncTimeout`, `owns` of a custom kind with an informer
 *   factory that cannot resolve resources, a `watches$` that is not an Observable, a bad `readYourWrites` or
 *   `ignoreOwnWrites`) throw a `TypeError` or `RangeError` when `controller()` is called.
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
  checkRuntimeWatches(options.watches$);
  checkOwnWriteOptions(options.readYourWrites, options.ignoreOwnWrites);
  const writes = context?.writes;
  const filtering = options.ignoreOwnWrites ?? 'primary';
  const referenced = (source: WatchSource<KubernetesObject>) => referenceOf(source, isInformer(source));
  // A host that splits the primary server-side by hash range builds it itself.
  const shardedFor =
    context?.shards?.informer !== undefined && !isInformer(options.for) && 'resource' in options.for
      ? context.shards.informer<T>(options.for.resource, options.for.options)
      : undefined;
  const primary = shardedFor ?? resolve(options.for);
  const primaryReference = referenced(options.for as WatchSource<KubernetesObject>);
  const primaryRef = primaryReference?.resource;
  const owned = (options.owns ?? []).map((source) => ({ informer: resolve(source), reference: referenced(source) }));
  const watched = (options.watches ?? []).map((spec) => ({
    spec,
    informer: resolve(spec.source),
    reference: referenced(spec.source),
  }));
  const onError = options.onError ?? context?.reportError;
  const report = (error: Error): void => reportError(error, onError);
  const secondaryEvents = <S extends KubernetesObject>(
    informer: Informer<S>,
    reference: ReturnType<typeof referenced>,
  ): Observable<InformerEvent<S>> => informer.events$.pipe(echoFilter<S>(writes, reference, filtering === 'all'));
  // The owner's scope decides its key, as controller-runtime asks its RESTMapper: never guessed, waited for if need be.
  const owners = ownedTriggers(
    primaryRef,
    owned.map(({ informer, reference }) => ({ events$: secondaryEvents(informer, reference) })),
    {
      resolve$:
        primaryRef === undefined
          ? undefined
          : factory?.resolve?.(primaryRef, 'resource' in options.for ? options.for.options : undefined),
      primarySynced$: primary.synced$,
      scheduler: options.scheduler ?? context?.scheduler ?? monotonicScheduler,
      report,
    },
  );

  const ownEvents = primary.events$.pipe(echoFilter<T>(writes, primaryReference, filtering !== 'none'));
  const forEvents = options.forFilter ? ownEvents.pipe(options.forFilter) : ownEvents;
  const watchTriggers = (
    spec: WatchesSpec,
    informer: Informer<KubernetesObject>,
    reference: ReturnType<typeof referenced>,
  ): Observable<ReconcileTrigger> => {
    const events$ = secondaryEvents(informer, reference);
    return (spec.filter ? events$.pipe(spec.filter) : events$).pipe(mapKeys(spec.map));
  };
  const triggers: Observable<ReconcileTrigger>[] = [
    forEvents.pipe(toKeys()),
    owners.triggers$,
    ...watched.map(({ spec, informer, reference }) => watchTriggers(spec, informer, reference)),
  ];
  const named: NamedInformer[] = [
    {
      name: describeSource(options.for as WatchSource<KubernetesObject>, 'primary'),
      informer: primary as unknown as Informer<KubernetesObject>,
    },
    ...(options.owns ?? []).map((source, i) => ({
      name: describeSource(source, `owned #${i + 1}`),
      informer: owned[i]!.informer,
    })),
    ...(options.watches ?? []).map((spec, i) => ({
      name: describeSource(spec.source, `watched #${i + 1}`),
      informer: watched[i]!.informer,
    })),
  ];
  // The caches a run reads, for read-your-own-writes: every one whose kind is known.
  const staticReads = [
    readSourceOf(primaryReference, primary as unknown as Informer<KubernetesObject>),
    ...owned.map(({ informer, reference }) => readSourceOf(reference, informer)),
    ...watched.map(({ informer, reference }) => readSourceOf(reference, informer)),
  ].filter((read): read is ReadSource => read !== undefined);
  const maxWait = maxWaitOf(options.readYourWrites);
  const scheduler = options.scheduler ?? context?.scheduler ?? monotonicScheduler;
  /** A watch of `watches$`, started. */
  const attach = (spec: WatchesSpec): AttachedWatch => {
    const informer = resolve(spec.source);
    const reference = referenced(spec.source);
    const health =
      options.onError === undefined
        ? EMPTY
        : reportHealth([{ name: describeSource(spec.source, 'watched at run time'), informer }], report);
    return {
      triggers$: merge(watchTriggers(spec, informer, reference), health),
      read: readSourceOf(reference, informer),
    };
  };
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
    watches$,
    readYourWrites: _readYourWrites,
    ignoreOwnWrites: _ignoreOwnWrites,
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
    // Per subscription: the watches added at run time join and leave it.
    const reads = new Set(staticReads);
    const readiness =
      reconcileOptions.readiness ??
      (writes === undefined || maxWait === false
        ? undefined
        : readYourWrites(writes, reads, { maxWait, primary: primaryRef, scheduler }));
    const sources = watches$ === undefined ? triggers : [...triggers, runtimeWatches(watches$, attach, reads, report)];
    return merge(
      merge(...sources).pipe(
        operator<T>(fn, {
          ...reconcileOptions,
          gate,
          lookup: (key) => primary.current().get(key),
          ...(readiness === undefined ? {} : { readiness }),
        }),
        tap({ complete: () => done$.next() }),
      ),
      merge(
        // Without an `onError` of its own, each informer says its own health where its host's factory sends it (the
        // manager's log, stderr, the virtual cluster's collection); with one, the controller takes it over, so that it
        // is said once.
        options.onError === undefined ? EMPTY : reportHealth(named, report),
        // A sharded host reads the uids of keys from the primary, and remembers those of deleted keys.
        context?.shards?.primary(primary) ?? EMPTY,
        watchSyncTimeout(named, syncTimeout, scheduler, failFast, report),
      ).pipe(takeUntil(done$)),
    );
  });
  return Object.assign(run$, { health$: healthOf(named), problems$: problemsOf(named) });
}

/** How the cluster used to be given, before the context was the one way. */
const REPLACED_OPTIONS = ['connection', 'kubeConfig', 'informers'] as const;

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
