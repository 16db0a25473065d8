/**
 * `controller()`: controller-runtime's builder shape (`For`, `Owns`, `Watches`) as a thin layer over the operators.
 */
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { combineLatest, map, merge, type Observable, type OperatorFunction } from 'rxjs';
import { informerFactory, type Informer, type InformerEvent, type InformerFactory, type InformerWatchOptions } from '../../informer/index.js';
import type { ResourceRef } from '../../watch/index.js';
import type { ReconcileOptions } from '../options.js';
import { reconcile } from '../reconcile.js';
import type { ReconcileEvent, ReconcileFn, ReconcileTrigger } from '../types.js';
import { mapKeys, toKeys, toOwnerKeys, type KeyMapping } from '../triggers/index.js';

/** A resource to watch: a reference plus its watch options, or an informer the caller already has. */
export type WatchSource<T extends KubernetesObject = KubernetesObject> =
  | ResourceRef
  | { readonly resource: ResourceRef; readonly options?: InformerWatchOptions<T> }
  | Informer<T>;

/** A secondary resource whose events map to primary keys. */
export interface WatchesSpec<S extends KubernetesObject = KubernetesObject> {
  readonly source: WatchSource<S>;
  /** Event to primary keys; any shape `mapKeys` accepts. */
  readonly map: (event: InformerEvent<S>) => KeyMapping;
  /** Filters events before mapping (e.g. a predicate from `controller/predicates`). */
  readonly filter?: OperatorFunction<InformerEvent<S>, InformerEvent<S>>;
}

/** Options of {@link controller}. */
export interface ControllerOptions<T extends KubernetesObject> extends Omit<ReconcileOptions<T>, 'lookup'> {
  /** Where informers come from; pass one `informerFactory` to share watches across controllers. */
  readonly kubeConfig?: KubeConfig;
  readonly informers?: InformerFactory;
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
 * - Subscribing starts the watches; unsubscribing stops them. Building the controller starts nothing.
 * - Bad options (`owns` without a primary resource reference, a resource reference without `kubeConfig` or
 *   `informers`) throw a `TypeError` when `controller()` is called, not later inside the stream.
 *
 * # Caveats
 * - Owned resources are keyed by their controller owner reference whose kind (and group) is the primary's; owners of
 *   other kinds are ignored.
 */
export function controller<T extends KubernetesObject>(options: ControllerOptions<T>): Observable<ReconcileEvent> {
  const factory = options.informers ?? (options.kubeConfig ? informerFactory(options.kubeConfig) : undefined);
  const resolve = <S extends KubernetesObject>(source: WatchSource<S>): Informer<S> => {
    if (isInformer(source)) return source;
    if (!factory) throw new TypeError('controller: pass kubeConfig or informers to watch a resource by reference');
    return 'resource' in source ? factory.for<S>(source.resource, source.options) : factory.for<S>(source);
  };
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
  const everyInformer = [primary, ...owned, ...watched.map((w) => w.informer)];
  const gate = options.gate ?? combineLatest(everyInformer.map((informer) => informer.synced$)).pipe(map((synced) => synced.every(Boolean)));

  const { for: _for, forFilter: _forFilter, owns: _owns, watches: _watches, reconcile: fn, kubeConfig: _kc, informers: _inf, ...reconcileOptions } = options;
  return merge(...triggers).pipe(
    reconcile<T>(fn, { ...reconcileOptions, gate, lookup: (key) => primary.current().get(key) }),
  );
}

function isInformer<S extends KubernetesObject>(source: WatchSource<S>): source is Informer<S> {
  return typeof (source as Informer<S>).current === 'function' && 'events$' in source;
}
