/**
 * Options of `reconcile`, their defaults and their validation.
 */
import type { Observable, SchedulerLike } from 'rxjs';
import { monotonicScheduler } from '../../clock/index.js';
import { checkMetrics } from './metrics.js';
import type { ReconcileMetrics } from 'rxkube/extend';
import { exponentialRateLimiter, tokenBucketRateLimiter } from './rate-limiters.js';
import type { RateLimiter } from './rate-limiters.js';
import type { ReconcileReadiness } from 'rxkube/extend';
import type { Aging } from './ready-set.js';
import type { KeyGate } from './key-gate.js';
import { LOW_PRIORITY } from './types.js';

/** Default `drainTimeout`: 30 s, controller-runtime's graceful shutdown period. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 30_000;
/** Default `aging.after`: a ready key that has waited 30 s is overdue. */
export const DEFAULT_AGING_AFTER_MS = 30_000;
/** Default `aging.every`: while a key is overdue, one start in 4 goes to the oldest ready key. */
export const DEFAULT_AGING_EVERY = 4;

/**
 * How waiting raises a ready key's effective priority (the `aging` option of `reconcile`): a key that has waited
 * `after` ms is overdue, and while any key is overdue one start in every `every` goes to the key that has been ready
 * longest, whatever its priority.
 */
export interface AgingOptions {
  /**
   * ms a key may wait ready before it is overdue; a number >= 0. Default 30 000. `Infinity` turns aging off
   * (strict priorities, as controller-runtime's: a low key may then wait forever).
   */
  readonly after?: number;
  /**
   * While a key is overdue, at least one start in this many takes the oldest ready key; an integer >= 1 (1: overdue
   * keys go first, oldest first). Default 4. With more than one slot, those starts may come up to
   * `(every - 1) · (slots - 1)` starts late (see `ReconcileOptions.aging`).
   */
  readonly every?: number;
}

/**
 * Slots held back for live work (the `reserved` option of `reconcile`): of the `concurrency` slots, `slots` never
 * run a key of priority `above` or lower, so a key above it starts at once while a backlog of lower keys (an
 * initial list, a relist, a resync) fills every other slot.
 */
export interface ReservedSlots {
  /** How many slots are held back; an integer >= 0, below `concurrency` so that lower keys keep at least one. */
  readonly slots: number;
  /** Keys of this priority or lower never use the held-back slots. A safe integer; default `priorities.low`. */
  readonly above?: number;
}

/** Options of `reconcile`. Every field is optional; see {@link ReconcileLookupOptions} for `lookup`. */
export interface ReconcileOptions {
  /** Most runs at once, across keys. Default 1. A positive integer, or `Infinity`. */
  readonly concurrency?: number;
  /**
   * Every delay and every time reading goes through it. Default `monotonicScheduler` (from `rxkube/extend`): a step of the system
   * clock moves no retry, requeue, rate limit or timeout; virtual inside `TestScheduler.run()`.
   */
  readonly scheduler?: SchedulerLike;
  /**
   * Runs start only while the latest value is `true` (before its first value: closed). Triggers meanwhile are
   * deduplicated and held. Default: always open. Typically an informer's `synced$` or a leader election's `isLeader$`.
   * Closing it again pauses starts and aborts the `signal` of every run in flight; those runs end as they choose
   * (a reconcile that honours its signal stops at once). A failure they end with is not counted: the key runs
   * again, same attempt, when the gate reopens (see `ReconcileFailed.gateClosed`).
   */
  readonly gate?: Observable<boolean>;
  /**
   * A gate per key, beside `gate`: a run of a key starts only while `keyGate.isOpen(key)` and `gate` are both open,
   * and a key it closes has its run in flight aborted as a closing `gate` aborts it (see {@link KeyGate}). The
   * manager's sharding passes one through the controller's context. Default: none.
   */
  readonly keyGate?: KeyGate;
  /** On its first value: stop intake, drop waiting keys, drain in-flight runs, then complete. */
  readonly stop$?: Observable<unknown>;
  /** How long the drain after `stop$` may take, ms; runs still in flight then are cancelled. Default 30 000. */
  readonly drainTimeout?: number;
  /** Per-run time limit, ms; exceeding it is a (retried) failure and the run is cancelled. Default: none. */
  readonly timeout?: number;
  /** Retries after which a failing key is dropped (`dropped` event). 0 = never retry. Default: unlimited. */
  readonly maxRetries?: number;
  /** Per-key retry delay. Default `rateLimiters.exponential()` (5 ms · 2^n, cap 1000 s), one per subscription. */
  readonly rateLimiter?: RateLimiter;
  /**
   * Shared limiter for failure retries (not for fresh triggers, nor for `{ requeueAfter }` requeues, which are
   * schedules). Default `rateLimiters.tokenBucket()` (10 qps, burst 100), one per subscription. `false` turns it off.
   */
  readonly globalRateLimiter?: RateLimiter | false;
  /**
   * Hears what the queue does (adds, starts, runs done, outcomes) and reads its state (depth, workers, unfinished
   * work) through a view: client-go's `MetricsProvider`. Default: none, and then nothing is called. The manager
   * passes its own through `context.reconcile`.
   */
  readonly metrics?: ReconcileMetrics;
  /**
   * Bounds every wait: after `after` ms ready a key is overdue, and while one is, one start in `every` goes to the
   * key ready longest, whatever the priorities. Default `{ after: 30_000, every: 4 }`. That start comes a little
   * early (after `every - 1 - floor(every / 4)` others) when it can take a turn of the key's own priority rather
   * than a higher key's slot. With more than one slot it may also come late, by up to `(every - 1) · (s - 1)` starts
   * (`s` the slots lower keys may use; under `every - 1` runs in time), so that a burst of higher keys in slots that
   * free together is not cut into; the starts put off are made up at the lower keys' own turns. See the ordering
   * guarantees of `reconcile` for the bound this gives.
   */
  readonly aging?: AgingOptions;
  /**
   * The fairness key of a key: within one priority, ready keys are served round-robin across fairness keys, so that
   * a group that floods the queue delays another group's key by at most one run per other group. Default: the
   * namespace (the text before the first `/` of `namespace/name`; every cluster-scoped key is in the group `''`).
   * Give a function of the key, such as a tenant label read from the informer (`(key) => pods.current().get(key)
   * ?.metadata?.labels?.tenant ?? ''`); `() => ''` serves ready keys of one priority first come, first served. It
   * is called when a key enters the queue with no record; a throw or a value that is not a string puts the key in
   * the group `''` and is reported (`config.onUnhandledError`, else a process warning).
   */
  readonly fairness?: (key: string) => string;
  /**
   * Slots held back for keys above a priority (default: none). With `{ slots: s, above: p }`, runs of keys at
   * priority `p` or lower never fill more than `concurrency - s` slots, so that a key above `p` (a live change)
   * starts as soon as it is ready while a backlog of lower keys waits, instead of waiting for a run to end. This is
   * what a priority alone cannot give: controller-runtime's priority queue, like rxkube without this option, makes
   * a live change wait for the next free slot. Size `slots` to the live keys that run at once (their rate times a
   * run's duration) and some margin: a slot held back is idle while no such key is ready.
   *
   * # Caveats
   * - The aging bound counts only the starts of keys that did not take a held-back slot, and its time form has
   *   `concurrency - slots` where it had `concurrency` (see `reconcile`'s ordering guarantees).
   * - A key's class is its priority when its run starts: a low key raised while running still counts as low.
   */
  readonly reserved?: ReservedSlots;
  /**
   * Asked before each run of a key starts; the run waits until it says so (see `ReconcileReadiness`, from `rxkube/extend`).
   * `controller()` passes one that waits for the caches to show what the key's last runs wrote (read-your-own-
   * writes; see `ownWrites.readYourWrites`). Default: none, and then runs start as soon as a slot is free.
   */
  readonly readiness?: ReconcileReadiness;
}

/**
 * Where a reconcile reads the latest object of its key: anything with `current().get(key)` (an informer, whose
 * `current()` is its Lister), or a function of the key.
 *
 * # Caveats
 * - Give the informer itself (`lookup: pods`) to have the object type inferred. TypeScript infers arguments left to
 *   right and the reconcile function comes first, so with an arrow (`lookup: (key) => …`) the object type is only
 *   known if the arrow's parameter is annotated (`(key: string) => …`) or the type argument is given.
 */
export type Lookup<T> =
  | ((key: string) => T | undefined)
  | {
      /** The latest snapshot: an informer's Lister. */
      current(): {
        /** The object stored under `key`; `undefined` when there is none. */
        get(key: string): T | undefined;
      };
    };

/**
 * Options of `reconcile` with a `lookup`: the reconcile function then receives the latest object of its key
 * (`undefined` meaning deleted), and its type is inferred from `lookup`.
 */
export interface ReconcileLookupOptions<T> extends ReconcileOptions {
  /** Reads the latest object for a key when its run starts: an informer (`lookup: pods`) or a function of the key. */
  readonly lookup: Lookup<T>;
}

/** Options after validation; limiters are still factories so that each subscription owns fresh state. */
export interface ResolvedOptions<T> {
  readonly concurrency: number;
  readonly scheduler: SchedulerLike;
  readonly gate: Observable<boolean> | undefined;
  readonly keyGate: KeyGate | undefined;
  readonly stop$: Observable<unknown> | undefined;
  readonly drainTimeout: number;
  readonly timeout: number | undefined;
  readonly maxRetries: number;
  readonly rateLimiter: () => RateLimiter;
  readonly globalRateLimiter: () => RateLimiter | undefined;
  readonly lookup: ((key: string) => T | undefined) | undefined;
  readonly metrics: ReconcileMetrics | undefined;
  readonly aging: Aging;
  readonly fairness: ((key: string) => string) | undefined;
  /** Slots held back, 0 for none, and the priority at or below which keys may not use them. */
  readonly reserved: { readonly slots: number; readonly above: number };
  readonly readiness: ReconcileReadiness | undefined;
}

function check(name: string, value: number | undefined, ok: (v: number) => boolean, want: string): void {
  if (value !== undefined && (typeof value !== 'number' || Number.isNaN(value) || !ok(value))) {
    throw new RangeError(`reconcile: ${name} must be ${want}, got ${String(value)}`);
  }
}

const positiveIntegerOrInfinity = (v: number): boolean =>
  v === Number.POSITIVE_INFINITY || (Number.isInteger(v) && v >= 1);

/**
 * Validates `options` and fills in defaults. Throws a `RangeError`/`TypeError` naming the bad option, at
 * operator-creation time, so misconfiguration never surfaces as a runtime stream error.
 */
export function resolveOptions<T>(
  options: ReconcileOptions & { readonly lookup?: Lookup<T> | undefined },
): ResolvedOptions<T> {
  check('concurrency', options.concurrency, positiveIntegerOrInfinity, 'a positive integer or Infinity');
  check('drainTimeout', options.drainTimeout, (v) => v >= 0, 'a number of ms >= 0');
  check('timeout', options.timeout, (v) => v > 0, 'a number of ms > 0');
  check(
    'maxRetries',
    options.maxRetries,
    (v) => v === Number.POSITIVE_INFINITY || (Number.isInteger(v) && v >= 0),
    'an integer >= 0',
  );
  checkMetrics(options.metrics);
  const aging = resolveAging(options.aging);
  const { fairness } = options;
  if (fairness !== undefined && typeof fairness !== 'function') {
    throw new TypeError(
      `reconcile: fairness must be a function (key) => string, got ${fairness === null ? 'null' : typeof fairness}`,
    );
  }
  const readiness: unknown = options.readiness;
  if (
    readiness !== undefined &&
    (readiness === null ||
      typeof readiness !== 'object' ||
      typeof (readiness as ReconcileReadiness).wait !== 'function')
  ) {
    throw new TypeError(
      `reconcile: readiness must be an object with a wait(key) method, got ${readiness === null ? 'null' : typeof readiness}`,
    );
  }
  const lookup = toLookupFunction(options.lookup);
  const concurrency = options.concurrency ?? 1;
  const reserved = resolveReserved(options.reserved, concurrency);
  const rateLimiter = options.rateLimiter;
  const globalRateLimiter = options.globalRateLimiter;
  return {
    concurrency,
    scheduler: options.scheduler ?? monotonicScheduler,
    gate: options.gate,
    keyGate: checkKeyGate(options.keyGate),
    stop$: options.stop$,
    drainTimeout: options.drainTimeout ?? DEFAULT_DRAIN_TIMEOUT_MS,
    timeout: options.timeout,
    maxRetries: options.maxRetries ?? Number.POSITIVE_INFINITY,
    rateLimiter: rateLimiter === undefined ? () => exponentialRateLimiter() : () => rateLimiter,
    globalRateLimiter:
      globalRateLimiter === false
        ? () => undefined
        : globalRateLimiter === undefined
          ? () => tokenBucketRateLimiter()
          : () => globalRateLimiter,
    lookup,
    metrics: options.metrics,
    readiness: options.readiness,
    aging,
    fairness,
    reserved,
  };
}

const NO_RESERVED = Object.freeze({ slots: 0, above: LOW_PRIORITY });

/** The `reserved` option with its default; throws a `RangeError`/`TypeError` naming a bad field. */
function resolveReserved(
  reserved: ReservedSlots | undefined,
  concurrency: number,
): { readonly slots: number; readonly above: number } {
  if (reserved === undefined) return NO_RESERVED;
  if (reserved === null || typeof reserved !== 'object') {
    throw new TypeError(
      `reconcile: reserved must be an object { slots, above? }, got ${reserved === null ? 'null' : typeof reserved}`,
    );
  }
  if (reserved.slots === undefined) throw new RangeError('reconcile: reserved.slots is required');
  check(
    'reserved.slots',
    reserved.slots,
    (v) => Number.isInteger(v) && v >= 0 && v < concurrency,
    `an integer >= 0 and below concurrency (${concurrency})`,
  );
  check('reserved.above', reserved.above, Number.isSafeInteger, 'a safe integer');
  return Object.freeze({ slots: reserved.slots, above: reserved.above ?? LOW_PRIORITY });
}

/** The `aging` option with its defaults; throws a `RangeError`/`TypeError` naming a bad field. */
function resolveAging(aging: AgingOptions | undefined): Aging {
  if (aging === undefined) return DEFAULT_AGING;
  if (aging === null || typeof aging !== 'object') {
    throw new TypeError(
      `reconcile: aging must be an object { after?, every? }, got ${aging === null ? 'null' : typeof aging}`,
    );
  }
  check('aging.after', aging.after, (v) => v >= 0, 'a number of ms >= 0');
  check('aging.every', aging.every, (v) => Number.isInteger(v) && v >= 1, 'an integer >= 1');
  return { after: aging.after ?? DEFAULT_AGING_AFTER_MS, every: aging.every ?? DEFAULT_AGING_EVERY };
}

const DEFAULT_AGING: Aging = Object.freeze({ after: DEFAULT_AGING_AFTER_MS, every: DEFAULT_AGING_EVERY });

/** The function form of a {@link Lookup}; throws a `TypeError` for anything that is neither form. */
function toLookupFunction<T>(lookup: Lookup<T> | undefined): ((key: string) => T | undefined) | undefined {
  if (lookup === undefined || typeof lookup === 'function') return lookup;
  if (lookup !== null && typeof lookup === 'object' && typeof lookup.current === 'function') {
    return (key) => lookup.current().get(key);
  }
  throw new TypeError(
    'reconcile: lookup must be an informer (anything with current().get(key)) or a function (key) => object | undefined',
  );
}

function checkKeyGate(keyGate: KeyGate | undefined): KeyGate | undefined {
  if (keyGate === undefined) return undefined;
  const gate = keyGate as Partial<KeyGate> | null;
  if (
    gate === null ||
    typeof gate !== 'object' ||
    typeof gate.isOpen !== 'function' ||
    typeof (gate.changed$ as { subscribe?: unknown } | undefined)?.subscribe !== 'function'
  )
    throw new TypeError('reconcile: keyGate must be an object with isOpen(key) and a changed$ Observable');
  return keyGate;
}
