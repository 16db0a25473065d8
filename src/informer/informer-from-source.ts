/**
 * `informerFromSource`: an informer over any stream of reflector deltas; `informer()` feeds it `listWatch`.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { Observable, Subscription, interval, type Subscriber } from 'rxjs';
import { monotonicScheduler } from '../clock/index.js';
import { messageOf } from '../error-messages/index.js';
import { hasName, objectKey } from '../objects/index.js';
import { Store, forEachChange, isBatch, storeReducer, type StoreChange, type StoreUpdate } from '../store/index.js';
import type { ReflectorDelta, WatchEvent, WatchStatus } from '../watch/index.js';
import { STEPS, isPrepared, type InformerStep, type PreparedStep } from './steps.js';
import type { InformerEvent, InformerProblem, InformerProblemReason } from './types.js';
import type { Informer, InformerOptions } from 'rxkube';

/** One subscriber of one stream, as the hub sees it. */
interface Listener<T extends KubernetesObject> {
  event?(event: InformerEvent<T>): void;
  store?(store: Store<T>): void;
  step?(step: InformerStep<T>): void;
  synced?(): void;
  status?(status: WatchStatus): void;
  problem?(problem: InformerProblem): void;
  readonly subscriber: Subscriber<unknown>;
  /**
   * For an `events$` subscriber: the generation of the snapshot it was replayed from. Changes of that generation or
   * an older one are already in its replay, so they are not delivered again.
   */
  readonly since?: number;
}

/**
 * Builds an informer over `source$`, which is subscribed once however many subscribers the informer has.
 *
 * `source$` may emit single deltas or arrays of deltas that arrived together (`listWatchBatches` emits a relist, or
 * the lines of one network chunk, as one array). Each array is a batch: one `produce`, one snapshot and one `store$`
 * emission, cut only where one snapshot could not show every change of the batch exactly (a key changed twice, a
 * relist swap); `status` and `problem` events inside it are published in their place between the events. A source
 * that emits single deltas in synchronous bursts gets one snapshot per delta; pipe it through {@link coalesceBursts}
 * to make each burst one batch.
 *
 * Everything in `Informer`'s guarantees holds; in addition:
 * - `source$` is subscribed when the first subscriber arrives and unsubscribed when the last one leaves.
 * - Emissions of the source are applied and delivered one at a time, even when a callback makes the source emit
 *   re-entrantly: the nested emission waits until every listener has seen the current one.
 * - A batch whose subscribers all left from inside one of its callbacks is not applied further: its rest belonged
 *   to the source that was stopped.
 * - A delta the store cannot apply is reported as `StoreFailed` and skipped; the rest of its batch is applied
 *   (one delta per snapshot from there on).
 * - A subscriber that joins `events$` from inside any callback of this informer (`events$`, `store$`, `synced$`,
 *   `status$`, `problems$`) gets the snapshot as it is at that moment, then exactly the changes after it: no gap and
 *   no duplicate.
 * - `resync` runs on `options.scheduler` every `resyncPeriod` ms while the informer is running.
 *
 * Throws a `TypeError`/`RangeError` at once for invalid indexers or a negative or non-finite `resyncPeriod`.
 */
export function informerFromSource<T extends KubernetesObject>(
  source$: Observable<WatchEvent<T> | readonly WatchEvent<T>[]>,
  options: InformerOptions<T> = {},
): Informer<T> {
  return buildInformer(source$, options);
}

/**
 * {@link informerFromSource}, whose source may also emit {@link PreparedStep}s: snapshots it built itself (the
 * views do), published as they are, without the reducer. Deltas after a prepared step apply to its snapshot.
 * @internal
 */
export function buildInformer<T extends KubernetesObject>(
  source$: Observable<ReflectorDelta<T> | readonly ReflectorDelta<T>[] | PreparedStep<T>>,
  options: InformerOptions<T> = {},
): Informer<T> {
  const resyncPeriod = options.resyncPeriod ?? 0;
  if (!Number.isFinite(resyncPeriod) || resyncPeriod < 0) {
    throw new RangeError(`resyncPeriod must be a non-negative number of milliseconds, got ${resyncPeriod}`);
  }
  const scheduler = options.scheduler ?? monotonicScheduler;
  const empty = Store.empty<T>(options);
  const listeners = new Set<Listener<T>>();
  /** `listeners` as an array, rebuilt only after a change, so that a delivery allocates nothing. */
  let listenerList: readonly Listener<T>[] | null = null;
  const addListener = (listener: Listener<T>): void => {
    listeners.add(listener);
    listenerList = null;
  };
  const removeListener = (listener: Listener<T>): void => {
    listeners.delete(listener);
    listenerList = null;
  };
  let reducer = storeReducer<T>({ initial: empty });
  /** False after a prepared step: the reducer is then behind `latest`, and is rebuilt from it before its next use. */
  let reducerCurrent = true;
  let latest = empty;
  /** Counts the snapshots published; the replay of a late `events$` subscriber is pinned to one. */
  let generation = 0;
  let status: WatchStatus | undefined;
  let problemCounts = new Map<InformerProblemReason, number>();
  let refs = 0;
  let running: Subscription | null = null;

  // A trampoline: work queued while delivering runs after the current item reached every listener.
  const queue: (() => void)[] = [];
  let draining = false;
  const enqueue = (work: () => void): void => {
    queue.push(work);
    if (draining) return;
    draining = true;
    try {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) next();
    } finally {
      draining = false;
    }
  };
  const each = (deliver: (listener: Listener<T>) => void): void => {
    // The array in hand is never mutated: a listener added meanwhile waits for the next item, and one removed
    // meanwhile is skipped.
    for (const listener of (listenerList ??= [...listeners])) if (listeners.has(listener)) deliver(listener);
  };
  const publishStatus = (next: WatchStatus): void => {
    status = next;
    each((listener) => listener.status?.(next));
  };
  const publishProblem = (reason: InformerProblemReason, message: string, key?: string): void => {
    const count = (problemCounts.get(reason) ?? 0) + 1;
    problemCounts.set(reason, count);
    const problem: InformerProblem = { reason, message, count, ...(key === undefined ? {} : { key }) };
    each((listener) => listener.problem?.(problem));
  };

  /**
   * Publishes one exact step of the store: its problems, the snapshot, `synced`, then its changes in order, marked
   * `fromList` when the step swapped a relist in.
   */
  const publish = (update: StoreUpdate<T>, fromList: boolean): void => {
    const wasSynced = latest.synced;
    const previous = latest;
    latest = update.store;
    const current = (generation += 1);
    for (const problem of update.problems) publishProblem(problem.reason, problem.message, keyOf(problem.event));
    let step: InformerStep<T> | undefined;
    each((listener) => {
      listener.store?.(latest);
      if (listener.step !== undefined) listener.step((step ??= { previous, store: latest, changes: update.changes }));
    });
    if (!wasSynced && latest.synced) each((listener) => listener.synced?.());
    // A listener that joins events$ from here on is pinned to this generation and gets none of its changes: with no
    // events$ listener now, nobody gets them, and a lean relist's changes are never made.
    let listening = false;
    for (const listener of (listenerList ??= [...listeners])) if (listener.event !== undefined) listening = true;
    if (!listening) return;
    forEachChange(update, (change) => {
      // Made for the first events$ listener only: an informer read through store$ alone (a view's input) makes none.
      let informerEvent: InformerEvent<T> | undefined;
      for (const listener of (listenerList ??= [...listeners])) {
        if (
          listener.event !== undefined &&
          (listener.since === undefined || listener.since < current) &&
          listeners.has(listener)
        ) {
          listener.event((informerEvent ??= toInformerEvent(change, latest, fromList)));
        }
      }
    });
  };

  /**
   * Applies a run of deltas (no status or problem among them) in as few exact steps as `storeReducer` allows.
   * Returns false when the informer was stopped or restarted meanwhile (a callback left, or left and came back):
   * the rest belongs to a source that is gone.
   */
  const applyDeltas = (deltas: readonly ReflectorDelta<T>[], source: Subscription): boolean => {
    if (!reducerCurrent) {
      reducer = storeReducer<T>({ initial: latest });
      reducerCurrent = true;
    }
    for (let from = 0; from < deltas.length; ) {
      if (running !== source) return false;
      let step: ReturnType<typeof reducer.step>;
      try {
        step = reducer.step(deltas, from);
      } catch {
        // A step that throws changes nothing; find the delta that cannot be applied by taking the rest one by one.
        return applyOneByOne(deltas, from, source);
      }
      if (step.update !== undefined) publish(step.update, swapsRelist(deltas, from, step.next));
      from = step.next;
    }
    return running === source;
  };

  const applyOneByOne = (deltas: readonly ReflectorDelta<T>[], from: number, source: Subscription): boolean => {
    for (let i = from; i < deltas.length; i++) {
      if (running !== source) return false;
      const delta = deltas[i]!;
      let step: ReturnType<typeof reducer.step>;
      try {
        step = reducer.step([delta], 0);
      } catch (error) {
        // A delta the store cannot apply (a bug, or an object that defeats the reducer) must not take the informer
        // down with it: report it, keep the last good snapshot, and carry on with the next delta.
        publishProblem(
          'StoreFailed',
          `the store could not apply a ${delta.type} delta: ${messageOf(error)}`,
          keyOf(delta),
        );
        continue;
      }
      if (step.update !== undefined) publish(step.update, delta.type === 'relistDone');
    }
    return running === source;
  };

  /**
   * Applies one emission of the source: a delta, a batch of them with status and problems in their order, or a
   * prepared step.
   */
  const apply = (
    input: ReflectorDelta<T> | readonly ReflectorDelta<T>[] | PreparedStep<T>,
    source: Subscription,
  ): void => {
    if (isPrepared<T>(input)) {
      reducerCurrent = false;
      // A prepared step is the source's own change, never a list's.
      publish({ store: input.store, changes: input.changes, problems: [] }, false);
      return;
    }
    const events = isBatch(input) ? input : [input];
    let start = 0;
    for (let i = 0; i <= events.length; i++) {
      const event = events[i];
      if (event !== undefined && event.type !== 'status' && event.type !== 'problem') continue;
      if (i > start && !applyDeltas(start === 0 && i === events.length ? events : events.slice(start, i), source))
        return;
      if (event === undefined || running !== source) return;
      if (event.type === 'status') publishStatus(event.status);
      else publishProblem(event.problem.reason, event.problem.message, event.problem.key);
      start = i + 1;
    }
  };

  const resync = (): void => {
    const snapshot = latest;
    for (const [key, object] of snapshot.entries()) {
      const event: InformerEvent<T> = { type: 'resync', key, object, snapshot };
      each((listener) => listener.event?.(event));
    }
  };

  const start = (): void => {
    const subscription = new Subscription();
    running = subscription;
    if (resyncPeriod > 0) {
      subscription.add(interval(resyncPeriod, scheduler).subscribe(() => enqueue(resync)));
    }
    subscription.add(
      source$.subscribe({
        next: (input) => enqueue(() => apply(input, subscription)),
        error: (error: unknown) => enqueue(() => each((listener) => listener.subscriber.error(error))),
        complete: () => enqueue(() => each((listener) => listener.subscriber.complete())),
      }),
    );
  };

  /** Registers `listener` for the lifetime of its subscriber and holds a reference on the source meanwhile. */
  const attach = (listener: Listener<T>): void => {
    addListener(listener);
    refs += 1;
    listener.subscriber.add(() => {
      removeListener(listener);
      refs -= 1;
      if (refs === 0) {
        const stopping = running;
        running = null;
        stopping?.unsubscribe();
      }
    });
    if (refs === 1 && running === null) start();
  };

  /** A stream whose subscribers start from a fresh store when they are the first. */
  const stream = <V>(subscribe: (subscriber: Subscriber<V>) => void): Observable<V> =>
    new Observable<V>((subscriber) => {
      if (refs === 0) {
        reducer = storeReducer<T>({ initial: empty });
        reducerCurrent = true;
        latest = empty;
        status = undefined;
        problemCounts = new Map();
      }
      subscribe(subscriber);
    });

  const events$ = stream<InformerEvent<T>>((subscriber) => {
    // Buffer live events while replaying the snapshot, so that an event caused by a replay callback comes after
    // the replay: no gap (the listener is registered first) and no duplicate (changes of the replayed generation
    // are filtered out by `since`).
    const snapshot = latest;
    let buffer: InformerEvent<T>[] | null = [];
    attachLazily(
      subscriber,
      {
        subscriber,
        since: generation,
        event: (event) => (buffer === null ? subscriber.next(event) : buffer.push(event)),
      },
      () => {
        for (const [key, object] of snapshot.entries()) {
          if (subscriber.closed) return;
          subscriber.next({ type: 'added', key, object, snapshot, fromList: true });
        }
        for (let i = 0; buffer !== null && i < buffer.length; i++) subscriber.next(buffer[i]!);
        buffer = null;
      },
    );
  });

  const store$ = stream<Store<T>>((subscriber) => {
    subscriber.next(latest);
    attachLazily(subscriber, { subscriber, store: (store) => subscriber.next(store) });
  });

  const steps$ = stream<Store<T> | InformerStep<T>>((subscriber) => {
    subscriber.next(latest);
    attachLazily(subscriber, { subscriber, step: (step) => subscriber.next(step) });
  });

  const synced$ = stream<boolean>((subscriber) => {
    const synced = latest.synced;
    subscriber.next(synced);
    attachLazily(subscriber, synced ? { subscriber } : { subscriber, synced: () => subscriber.next(true) });
  });

  const status$ = stream<WatchStatus>((subscriber) => {
    if (status !== undefined) subscriber.next(status);
    attachLazily(subscriber, { subscriber, status: (next) => subscriber.next(next) });
  });

  const problems$ = stream<InformerProblem>((subscriber) => {
    attachLazily(subscriber, { subscriber, problem: (problem) => subscriber.next(problem) });
  });

  /** Attaches unless the subscriber already left during its replay; runs `replay` after registering. */
  function attachLazily(subscriber: Subscriber<unknown>, listener: Listener<T>, replay?: () => void): void {
    if (subscriber.closed) return;
    addListener(listener);
    replay?.();
    removeListener(listener);
    if (!subscriber.closed) attach(listener);
  }

  return { events$, store$, synced$, status$, problems$, current: () => latest, [STEPS]: steps$ } as Informer<T>;
}

/** The key of the object a delta is about, when it has a usable one. */
function keyOf(event: ReflectorDelta<KubernetesObject>): string | undefined {
  return 'object' in event && hasName(event.object) ? objectKey(event.object) : undefined;
}

/**
 * Whether the step over `deltas[from, next)` swapped a relist in. A step that does holds nothing but the swap's
 * changes: the store cuts a batch before a swap that follows a change, and after the swap.
 */
function swapsRelist(deltas: readonly ReflectorDelta<KubernetesObject>[], from: number, next: number): boolean {
  for (let i = from; i < next; i++) if (deltas[i]!.type === 'relistDone') return true;
  return false;
}

function toInformerEvent<T extends KubernetesObject>(
  change: StoreChange<T>,
  snapshot: Store<T>,
  fromList: boolean,
): InformerEvent<T> {
  switch (change.type) {
    case 'added':
      return fromList
        ? { type: 'added', key: change.key, object: change.object, snapshot, fromList }
        : { type: 'added', key: change.key, object: change.object, snapshot };
    case 'updated':
      return fromList
        ? { type: 'updated', key: change.key, old: change.old, object: change.object, snapshot, fromList }
        : { type: 'updated', key: change.key, old: change.old, object: change.object, snapshot };
    case 'deleted':
      return fromList
        ? {
            type: 'deleted',
            key: change.key,
            object: change.object,
            stateUnknown: change.stateUnknown,
            snapshot,
            fromList,
          }
        : { type: 'deleted', key: change.key, object: change.object, stateUnknown: change.stateUnknown, snapshot };
  }
}
