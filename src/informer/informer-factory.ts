/**
 * `informerFactory`: one shared informer per (resource, namespace, selectors, metadataOnly), ref-counted.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { defer, Observable, type SchedulerLike } from 'rxjs';
import { resolveResource$ } from '../resources/index.js';
import { Store, type Indexer } from '../store/index.js';
import {
  checkHealthHandler,
  checkWatchOptions,
  describeWatch,
  listWatchBatches,
  type ReflectorDelta,
  type ResourceRef,
} from '../watch/index.js';
import { checkWarningHandler, transportOf } from '../transport/index.js';
import type { Connection } from '../transport/index.js';
import { type HealthClaims, healthClaimsFor, registerHealthClaims } from './health.js';
import { buildInformer } from './informer-from-source.js';
import type { InformerWatchOptions } from './informer.js';
import type { Informer } from './types.js';
import type {
  DeltaSource,
  ListWatchOptions,
  ResolvedResource,
  WarningHandler,
  WatchHealthHandler,
} from 'rxkube/extend';

/** Options shared by every informer of a factory. */
export interface InformerFactoryOptions {
  /** Default scheduler for every informer (a `for()` call may still pass its own). */
  readonly scheduler?: SchedulerLike;
  /**
   * Default random source in [0, 1) of every informer (watch timeouts, backoff jitter); a `for()` call may still
   * pass its own. Seed it for deterministic runs against a virtual cluster.
   */
  readonly random?: () => number;
  /** Replaces `listWatch(connection, …)` as the delta source, e.g. with scripted streams in tests. */
  readonly source?: DeltaSource;
  /**
   * Default receiver of the API server's warnings on every informer's lists and watches (see
   * `ListWatchOptions.onWarning`); a `for()` call may still pass its own. Default: `printWarningOnce`.
   */
  readonly onWarning?: WarningHandler;
  /**
   * Default receiver of every informer's health news (see `ListWatchOptions.onHealth`); a `for()` call may still
   * pass its own. Default: the connection's own handler when it routes health (a virtual cluster), else a process
   * warning on stderr. A manager passes its own, since it logs every informer's status itself.
   */
  readonly onHealth?: WatchHealthHandler;
  /**
   * Default `minWatchTimeout` of every informer (see `ListWatchOptions.minWatchTimeout`); a `for()` call may still
   * pass its own. `'server'` leaves each watch's end to kube-apiserver's `--min-request-timeout`.
   */
  readonly minWatchTimeout?: number | 'server';
}

/** Hands out shared informers; see {@link informerFactory}. */
export interface InformerFactory {
  /** The shared informer for `resource` with these watch options. */
  for<T extends KubernetesObject = KubernetesObject>(
    resource: ResourceRef,
    options?: InformerWatchOptions<T>,
  ): Informer<T>;
  /** How many shared informers are running now (have at least one subscriber). */
  readonly active: number;
  /**
   * Resolves `resource` (plural and scope) the way an informer of this factory with these options does: the built-in
   * table, then discovery on the same connection (or the options' `transport`), cached per transport. Emits once and
   * completes, or errors (an `UnknownResourceError`, or the transport's error). Nothing is sent until subscribed.
   * `controller()` asks it for the scope of its owner kind. Optional, so that a factory written by hand still
   * satisfies the interface; `informerFactory()` always has it.
   */
  resolve?(
    resource: ResourceRef,
    options?: Pick<InformerWatchOptions, 'transport' | 'onWarning'>,
  ): Observable<ResolvedResource>;
}

/**
 * A {@link DeltaSource}, or the default one (`listWatch` in batches), whose relists bring their objects as
 * `listedPages`.
 */
type ReflectorSource = <T extends KubernetesObject>(
  resource: ResourceRef,
  options: ListWatchOptions<T>,
) => Observable<ReflectorDelta<T> | readonly ReflectorDelta<T>[]>;

/** What a key's `for()` calls declared; the next start of the shared informer uses all of it. */
interface Declaration {
  readonly indexers: Map<string, Indexer<KubernetesObject>>;
  resyncPeriod: number;
  readonly options: InformerWatchOptions<KubernetesObject>;
  /** The watch's health reporting, shared by every view, claimable by a host. */
  readonly health: HealthClaims;
}

interface Entry {
  readonly informer: Informer<KubernetesObject>;
  subscribers: number;
}

/**
 * A factory that shares one watch per resource and per everything that shapes what the watch delivers: namespace,
 * label and field selectors, metadataOnly, keepManagedFields, transform (by function identity), streamingList,
 * failFast, pageSize and listTimeout.
 *
 * # Guarantees
 * - Every informer handed out for the same key is a view of one shared informer: one watch, one store.
 * - No view ever receives objects shaped by options it did not ask for: two `for()` calls that differ in any option
 *   above get two watches.
 * - Ref-counted: the shared informer starts with its first subscriber across all views, and when the last one
 *   leaves its entry is dropped and the watch stopped; the next subscriber creates a fresh one.
 * - Indexers declared by any `for()` call for a key are all available on the shared store.
 * - Each shared watch says its health news once, however many views it has (see `informer()`), to the `onHealth`
 *   of its first `for()`, else the factory's, else the connection's default.
 * - `for()` throws at once for selector text the server would refuse (a `RangeError` naming the selector and where
 *   it goes wrong) and for handlers that are not functions.
 *
 * # Caveats
 * - `resyncPeriod` is the shortest one declared for a key, as in client-go.
 * - Options that cannot differ between views of one watch (`scheduler`, `random`, `backoff`, `transport`,
 *   `onWarning`, `onHealth`, `minWatchTimeout`, `idleTimeout`) throw a `TypeError` when a later `for()` gives another value than the first one for that key:
 *   another function or object (a `backoff` policy is compared by value). Omitting one in a later `for()` is fine.
 * - Pass the same `transform` function to share a watch; an inline arrow written twice is two transforms.
 * - Declaring a new indexer name while the shared informer is running throws (its store cannot grow an index
 *   retroactively); declare indexes before subscribing. Two different functions under one name also throw.
 */
export function informerFactory(connection: Connection, factoryOptions: InformerFactoryOptions = {}): InformerFactory {
  checkWarningHandler('informerFactory', factoryOptions.onWarning);
  checkHealthHandler('informerFactory', factoryOptions.onHealth);
  const source: ReflectorSource =
    factoryOptions.source ??
    (<T extends KubernetesObject>(resource: ResourceRef, options: ListWatchOptions<T>) =>
      listWatchBatches<T>(connection, resource, options));
  const declarations = new Map<string, Declaration>();
  const entries = new Map<string, Entry>();

  const entryFor = (key: string, resource: ResourceRef): Entry => {
    let entry = entries.get(key);
    if (entry === undefined) {
      const declaration = declarations.get(key)!;
      const options: InformerWatchOptions<KubernetesObject> = {
        ...declaration.options,
        scheduler: declaration.options.scheduler ?? factoryOptions.scheduler,
        ...((declaration.options.random ?? factoryOptions.random) !== undefined
          ? { random: declaration.options.random ?? factoryOptions.random }
          : {}),
        ...((declaration.options.minWatchTimeout ?? factoryOptions.minWatchTimeout) !== undefined
          ? { minWatchTimeout: declaration.options.minWatchTimeout ?? factoryOptions.minWatchTimeout }
          : {}),
        ...((declaration.options.onWarning ?? factoryOptions.onWarning) !== undefined
          ? { onWarning: declaration.options.onWarning ?? factoryOptions.onWarning }
          : {}),
        onHealth: declaration.health.handler,
        indexers: Object.fromEntries(declaration.indexers),
        resyncPeriod: declaration.resyncPeriod,
      };
      entry = { informer: buildInformer(source(resource, options), options), subscribers: 0 };
      entries.set(key, entry);
    }
    return entry;
  };

  const declare = (key: string, options: InformerWatchOptions<KubernetesObject>): Declaration => {
    let declaration = declarations.get(key);
    if (declaration === undefined) {
      const health = healthClaimsFor({ ...options, onHealth: options.onHealth ?? factoryOptions.onHealth }, connection);
      declaration = { indexers: new Map(), resyncPeriod: 0, options, health };
      declarations.set(key, declaration);
    }
    for (const name of UNSHAREABLE) {
      const first = declaration.options[name];
      const next = options[name];
      if (next !== undefined && first !== undefined && !sameOption(first, next)) {
        throw new TypeError(
          `informerFactory: option "${name}" differs from the one the shared informer for ${key} was declared with; one watch has one ${name}`,
        );
      }
    }
    const running = entries.get(key);
    for (const [name, indexer] of Object.entries(options.indexers ?? {})) {
      const known = declaration.indexers.get(name);
      if (known !== undefined && known !== indexer) {
        throw new TypeError(
          `informerFactory: indexer "${name}" is already declared with a different function for ${key}`,
        );
      }
      if (known === undefined && running !== undefined) {
        throw new Error(
          `informerFactory: cannot add indexer "${name}" to the running shared informer for ${key}; declare it before subscribing`,
        );
      }
      declaration.indexers.set(name, indexer);
    }
    // Validate now, so a bad indexer fails at for() and not at some later subscribe.
    Store.empty({ indexers: Object.fromEntries(declaration.indexers) });
    const period = options.resyncPeriod ?? 0;
    if (period > 0 && (declaration.resyncPeriod === 0 || period < declaration.resyncPeriod))
      declaration.resyncPeriod = period;
    return declaration;
  };

  return {
    for<T extends KubernetesObject = KubernetesObject>(
      resource: ResourceRef,
      options: InformerWatchOptions<T> = {},
    ): Informer<T> {
      checkWatchOptions(`informerFactory.for(${describeWatch(resource, options)})`, options);
      const key = sharingKey(resource, options as ListWatchOptions<KubernetesObject>);
      const declaration = declare(key, options as InformerWatchOptions<KubernetesObject>);
      const idle = Store.empty<T>({ indexers: options.indexers ?? {} });
      const view = <V>(pick: (informer: Informer<KubernetesObject>) => Observable<unknown>): Observable<V> =>
        new Observable<V>((subscriber) => {
          const entry = entryFor(key, resource);
          entry.subscribers += 1;
          const subscription = pick(entry.informer).subscribe(subscriber as never);
          return () => {
            subscription.unsubscribe();
            entry.subscribers -= 1;
            if (entry.subscribers === 0 && entries.get(key) === entry) entries.delete(key);
          };
        });
      const informer: Informer<T> = {
        events$: view((i) => i.events$),
        store$: view((i) => i.store$),
        synced$: view((i) => i.synced$),
        status$: view((i) => i.status$),
        problems$: view((i) => i.problems$),
        current: () => (entries.get(key)?.informer.current() as Store<T> | undefined) ?? idle,
      };
      registerHealthClaims(informer, declaration.health);
      return informer;
    },
    get active() {
      return entries.size;
    },
    resolve: (resource, options = {}) =>
      defer(() =>
        resolveResource$(
          options.transport ?? transportOf(connection),
          resource,
          options.onWarning ?? factoryOptions.onWarning,
        ),
      ),
  };
}

/** Options one watch can have only one value of, and that are not part of what it delivers. */
const UNSHAREABLE = [
  'scheduler',
  'random',
  'backoff',
  'transport',
  'onWarning',
  'onHealth',
  'minWatchTimeout',
  'idleTimeout',
] as const;

/** The same function or object, or (for a plain value like a backoff policy) equal JSON. */
function sameOption(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'function' || typeof b === 'function') return false;
  try {
    return JSON.stringify(a) === JSON.stringify(b) && Object.getPrototypeOf(a) === Object.prototype;
  } catch {
    return false;
  }
}

const transformIds = new WeakMap<object, number>();
let nextTransformId = 1;

/** A stable id per transform function, so the sharing key can tell transforms apart by identity. */
function transformId(transform: ((object: never) => unknown) | undefined): number {
  if (transform === undefined) return 0;
  let id = transformIds.get(transform);
  if (id === undefined) {
    id = nextTransformId++;
    transformIds.set(transform, id);
  }
  return id;
}

/** The identity of a shared watch: the resource and every option that shapes what the watch delivers. */
function sharingKey(resource: ResourceRef, options: ListWatchOptions<KubernetesObject>): string {
  return JSON.stringify([
    resource.apiVersion,
    resource.kind,
    options.namespace ?? '',
    options.labelSelector ?? '',
    options.fieldSelector ?? '',
    options.shard ?? null,
    options.metadataOnly === true,
    options.keepManagedFields === true,
    transformId(options.transform),
    options.streamingList === true,
    options.failFast === true,
    options.pageSize ?? null,
    options.listTimeout ?? null,
  ]);
}
