/**
 * The reconcile operator's state: one record per recently seen key, the ready set (priorities, fairness, aging) and
 * a heap of delayed keys woken by a single scheduler action. Internal; `reconcile` is the public face.
 */
import type { SchedulerLike, Subscription } from 'rxjs';
import { ReadySet } from './ready-set.js';
import type { Aging, ReadyEntry } from './ready-set.js';
import { MinHeap } from './structures.js';
import { NORMAL_PRIORITY } from './types.js';

/** Not waiting. */
export const IDLE = 0;
/** Waiting in the ready set. */
export const READY = 1;
/** Waiting in the delay heap for `readyAt`. */
export const DELAYED = 2;
/** Where a key waits, if it does. */
export type Pending = typeof IDLE | typeof READY | typeof DELAYED;

/**
 * Reasons beyond this many distinct values per run are folded into one marker, to bound memory per key. Eight name
 * what set a run off. Every key that waits long holds its reasons (a backlog; a standby replica, whose gate stays
 * closed), each an event's own string (`updated Pod <key>`): 32 of them came to about 2.5 KB per waiting key.
 */
export const MAX_REASONS = 8;
/** The marker that stands for the reasons beyond {@link MAX_REASONS}. */
export const MORE_REASONS = '...';

const NO_REASONS: readonly string[] = Object.freeze([]);

/** How many distinct single-reason arrays one queue shares at most. */
const MAX_SHARED_SINGLES = 256;

function isIdle(state: KeyState): boolean {
  return !state.running && state.pending === IDLE && state.failures === 0 && state.reasons.length === 0;
}

/**
 * Bookkeeping of one key. A record lives while its key runs, waits, or has failures or reasons to remember; it is
 * dropped when a run ends with none of these, so the table holds only the keys in use and stays small and
 * cache-resident (a key triggered again gets a fresh record).
 *
 * # Invariants
 * - `running` and `pending` together give at most one running and one pending run per key.
 * - `dirty` implies `running`: a trigger during a run asks for exactly one more run right after it.
 */
export interface KeyState extends ReadyEntry {
  running: boolean;
  dirty: boolean;
  pending: Pending;
  /** Consecutive failures since the last success, drop or terminal failure. */
  failures: number;
  /** Heap `seq` of the live DELAYED entry; older heap entries for this key are stale. */
  heapSeq: number;
  /** Reasons collected for the next run. */
  reasons: readonly string[];
  /** When the next run's queue wait started. */
  enqueuedAt: number;
  /**
   * The priority of the run in progress, or of the last run until its retry or requeue is scheduled. (`priority`
   * is the pending run's: the highest of what was coalesced into it.)
   */
  runPriority: number;
}

/** The ordering options of the queue: see `ReconcileOptions.aging` and `.fairness`. */
export interface QueueOrder {
  readonly aging: Aging;
  readonly fairness: ((key: string) => string) | undefined;
  /** Hears what `fairness` throws or returns wrong (the key then goes to the group `''`). */
  readonly onFairnessError: (error: unknown, key: string) => void;
}

/** FIFO by ready time, for a queue built without ordering options (the specs of the queue itself). */
const FIRST_COME: QueueOrder = {
  aging: { after: Number.POSITIVE_INFINITY, every: 1 },
  fairness: () => '',
  onFairnessError: () => undefined,
};

/*
 * Where a per-key readiness hold goes (read-your-own-writes: "do not start K before condition X or a deadline"):
 * a hold is a fifth pending state between DELAYED and READY. A held key stays out of the ready set (so no ordering
 * rule above needs to know about holds), its deadline sits in the delay heap like a retry's, a fresh trigger only
 * coalesces into it (unlike a delay, which it cuts short), and `release(key)` or the deadline calls `add` with the
 * release time, which is when the key's wait for the bound starts. `isIdle` must then also keep a held record.
 */

/**
 * Keyed dedup queue with delays and priorities, driven by a {@link SchedulerLike}.
 *
 * # Guarantees
 * - `trigger` makes a waiting or idle key ready now (a fresh trigger overrides any delay); a running key becomes
 *   dirty instead. A key is in the ready set at most once.
 * - Priorities coalesce to the highest: the pending run of a key has the highest priority of the triggers merged
 *   into it, and of the retry or requeue it replaced; a trigger that raises the priority of a ready key moves it
 *   (`ReadySet.raise`). A retry or requeue has the priority of the run that scheduled it unless told otherwise.
 * - Which ready key starts next is the ready set's rule (`ReadySet`): priority, then fairness round-robin, then
 *   first come, with aging letting the oldest key through.
 * - `delay` keeps the earliest of the existing and the new ready time.
 * - Keys leave the delay heap in (ready time, insertion) order.
 * - At most one scheduler action is pending at any time, for the earliest delayed key; `dispose` cancels it.
 * - Heap entries made stale by a fresh trigger or an earlier delay are purged once they outnumber the live ones
 *   (plus a slack of 1024), so memory stays proportional to the keys actually waiting.
 * - A trigger that coalesces (key already ready, or already dirty) is one Map lookup: no clock read, and no
 *   allocation unless it brings a reason the pending run does not have yet.
 * - Reasons: a run with no reason or one reason gets a frozen, shared array; only coalescing two or more distinct
 *   reasons builds a new array, which no one else sees until `takeReasons` hands it out.
 * - `depth` is client-go's: ready keys plus running keys marked dirty. `added` (the metrics hook's) is called each
 *   time a key enters it, except a dirty key becoming ready when its run ends (it was counted when it became dirty),
 *   so the adds minus the keys taken always equal the depth until `clearPending` drops the waiting keys.
 */
export class KeyedQueue {
  private readonly states = new Map<string, KeyState>();
  private readonly ready: ReadySet<KeyState>;
  private readonly delayed = new MinHeap<KeyState>();
  /** Frozen one-element reason arrays, shared by every run with that single reason (see `addReason`). */
  private readonly singles = new Map<string, readonly string[]>();
  private waiting = 0;
  /** How many keys are DELAYED, i.e. how many heap entries are live. */
  private delayedLive = 0;
  /** How many running keys are dirty (they are in the depth). */
  private dirtyCount = 0;
  private timer: Subscription | undefined;
  private timerAt = Number.POSITIVE_INFINITY;

  constructor(
    private readonly scheduler: SchedulerLike,
    /** Called after delayed keys became ready. */
    private readonly onWake: () => void,
    /** The metrics hook's `added`, if there is one: a key entered the depth, at that priority. */
    private readonly added?: (key: string, priority: number) => void,
    order: QueueOrder = FIRST_COME,
  ) {
    this.ready = new ReadySet<KeyState>(order.fairness, order.aging, order.onFairnessError);
  }

  /** Entries in the delay heap, stale ones included (a diagnostic for the memory bound). */
  get heapSize(): number {
    return this.delayed.size;
  }

  /** How many keys wait (ready or delayed). */
  get pendingCount(): number {
    return this.waiting;
  }

  /** client-go's depth: keys ready to run, plus running keys marked dirty (they run again right after). */
  get depth(): number {
    return this.ready.size + this.dirtyCount;
  }

  /** How many keys are ready (not delayed, not running). */
  get readyCount(): number {
    return this.ready.size;
  }

  /**
   * Registers a trigger for `key` at `priority`. Reads the clock only when the key's queue wait starts (a coalesced
   * trigger needs no timestamp); returns the time it read, if it read one, so the caller can reuse it.
   */
  trigger(key: string, reason: string | undefined, priority = NORMAL_PRIORITY): number | undefined {
    let state = this.states.get(key);
    if (state === undefined) {
      state = {
        key,
        running: false,
        dirty: false,
        pending: IDLE,
        failures: 0,
        readyAt: 0,
        heapSeq: -1,
        reasons: NO_REASONS,
        enqueuedAt: 0,
        priority,
        runPriority: priority,
        link: undefined,
      };
      this.states.set(key, state);
    }
    if (reason !== undefined) addReason(state, reason, this.singles);
    if (state.running) {
      if (state.dirty) {
        if (priority > state.priority) state.priority = priority;
        return undefined;
      }
      state.dirty = true;
      state.priority = priority;
      this.dirtyCount += 1;
      if (this.added !== undefined) this.added(key, priority);
      return (state.enqueuedAt = this.scheduler.now());
    }
    if (state.pending === READY) {
      if (priority > state.priority) this.ready.raise(state, priority);
      return undefined;
    }
    // A delayed run is pulled forward and merged into this one; an idle key's pending run is this trigger's.
    if (state.pending === IDLE || priority > state.priority) state.priority = priority;
    const now = this.scheduler.now();
    this.add(state, now);
    return now;
  }

  /** Takes the key that starts next at `now` (see `ReadySet`) and marks it running at its pending priority. */
  take(now = this.scheduler.now()): KeyState | undefined {
    const state = this.ready.take(now);
    return state === undefined ? undefined : this.started(state);
  }

  /**
   * Takes the key that starts next by priority and fairness if its priority is above `above`, for a held-back slot
   * (see `ReadySet.takeAbove`), and marks it running.
   */
  takeAbove(above: number): KeyState | undefined {
    const state = this.ready.takeAbove(above);
    return state === undefined ? undefined : this.started(state);
  }

  private started(state: KeyState): KeyState {
    state.pending = IDLE;
    state.running = true;
    state.runPriority = state.priority;
    this.waiting -= 1;
    return state;
  }

  /**
   * Calls `visit` with each priority of the depth and how many keys it has: the ready keys, and those of `running`
   * that are dirty (at the priority of their next run).
   */
  forEachDepth(running: Iterable<KeyState>, visit: (priority: number, keys: number) => void): void {
    this.ready.forEachPriority(visit);
    for (const state of running) if (state.dirty) visit(state.priority, 1);
  }

  /** Swaps out the reasons collected for `state`'s next run. */
  takeReasons(state: KeyState): readonly string[] {
    const reasons = state.reasons;
    state.reasons = NO_REASONS;
    return reasons;
  }

  /**
   * Marks the run of `state` over. A dirty key becomes ready at once (unless `requeueDirty` is false, when shutting
   * down). Returns nothing; follow with {@link delay}, then {@link release}.
   */
  finish(state: KeyState, now: number, requeueDirty: boolean): void {
    state.running = false;
    if (state.dirty) {
      state.dirty = false;
      this.dirtyCount -= 1;
      if (requeueDirty) this.makeReady(state, now, state.enqueuedAt);
    }
  }

  /**
   * Schedules `state` (not running) to be ready at `at`, keeping the earliest time, and records `reason` and
   * `priority` (default: the priority of the run that just ended) for the run it leads to. Returns the effective time.
   */
  delay(state: KeyState, at: number, now: number, reason: string, priority = state.runPriority): number {
    addReason(state, reason, this.singles);
    if (state.pending === READY) {
      if (priority > state.priority) this.ready.raise(state, priority);
      return state.readyAt;
    }
    if (state.pending === IDLE || priority > state.priority) state.priority = priority;
    if (state.pending === DELAYED && state.readyAt <= at) return state.readyAt;
    if (at <= now) {
      this.add(state, now);
      return now;
    }
    if (state.pending === IDLE) {
      this.waiting += 1;
      this.delayedLive += 1;
    }
    state.pending = DELAYED;
    state.readyAt = at;
    state.heapSeq = this.delayed.push(at, state);
    if (this.delayed.size > 2 * this.delayedLive + 1024)
      this.delayed.retain((entry) => this.isLive(entry.value, entry.seq));
    this.arm(now);
    return at;
  }

  /**
   * Puts back the work of a run that did not count (its gate closed while it ran): `reasons` go first among the
   * next run's reasons, its priority joins the next run's, and `state` (not running) is ready now unless it already
   * is. Its place in the ready set is by this time, as for any key that becomes ready.
   */
  restore(state: KeyState, reasons: readonly string[], now: number): void {
    const later = state.reasons;
    state.reasons = NO_REASONS;
    for (const reason of reasons) addReason(state, reason, this.singles);
    for (const reason of later) addReason(state, reason, this.singles);
    const priority = state.runPriority;
    if (state.pending === READY) {
      if (priority > state.priority) this.ready.raise(state, priority);
      return;
    }
    if (state.pending === IDLE || priority > state.priority) state.priority = priority;
    this.add(state, now);
  }

  /**
   * Called when the run of `state` ended and its outcome was handled: drops the record if nothing about the key is
   * left to remember (not running, not waiting, no failures, no reasons). Keeping idle records for reuse was measured
   * slower: with many distinct keys, a large table makes every trigger a cache miss.
   */
  release(state: KeyState): void {
    if (isIdle(state)) this.states.delete(state.key);
  }

  /** How many key records exist (a diagnostic for the memory bound). */
  get recordCount(): number {
    return this.states.size;
  }

  /** Forgets every waiting key (used when intake stops); running and failing keys keep their records. */
  clearPending(): void {
    for (const [key, state] of this.states) {
      state.pending = IDLE;
      state.dirty = false;
      if (state.link !== undefined)
        state.link.slot = state.link.prev = state.link.next = state.link.older = state.link.newer = undefined;
      state.reasons = NO_REASONS; // they were for the next run, which will not happen
      if (isIdle(state)) this.states.delete(key);
    }
    this.ready.clear();
    this.delayed.clear();
    this.waiting = 0;
    this.delayedLive = 0;
    this.dirtyCount = 0;
    this.cancelTimer();
  }

  /** Cancels the wake-up action. */
  dispose(): void {
    this.cancelTimer();
  }

  /**
   * Makes `state` (not ready, not running; its pending priority set) ready at `now`, its wait counted from
   * `enqueuedAt`: an add, as the metrics hook counts them.
   */
  private add(state: KeyState, now: number, enqueuedAt = now): void {
    this.makeReady(state, now, enqueuedAt);
    if (this.added !== undefined) this.added(state.key, state.priority);
  }

  private makeReady(state: KeyState, now: number, enqueuedAt: number): void {
    if (state.pending === IDLE) this.waiting += 1;
    else if (state.pending === DELAYED) this.delayedLive -= 1;
    // A DELAYED entry left in the heap goes stale: `pending` no longer says DELAYED when it surfaces.
    state.pending = READY;
    state.enqueuedAt = enqueuedAt;
    this.ready.add(state, now);
  }

  private isLive(state: KeyState, seq: number): boolean {
    return state.pending === DELAYED && state.heapSeq === seq;
  }

  private arm(now: number): void {
    let top = this.delayed.peek();
    while (top !== undefined && !this.isLive(top.value, top.seq)) {
      this.delayed.pop();
      top = this.delayed.peek();
    }
    if (top === undefined) {
      this.cancelTimer();
      return;
    }
    if (this.timer !== undefined && this.timerAt <= top.at) return; // an earlier wake-up re-arms when it fires
    this.cancelTimer();
    this.timerAt = top.at;
    this.timer = this.scheduler.schedule(() => this.wake(), Math.max(0, top.at - now));
  }

  private wake(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = this.scheduler.now();
    let woke = false;
    for (let top = this.delayed.peek(); top !== undefined && top.at <= now; top = this.delayed.peek()) {
      this.delayed.pop();
      if (!this.isLive(top.value, top.seq)) continue;
      // The wait is counted from the due time; its place in the ready set from now, when it entered it.
      this.add(top.value, now, top.at);
      woke = true;
    }
    this.arm(now);
    if (woke) this.onWake();
  }

  private cancelTimer(): void {
    this.timer?.unsubscribe();
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
  }
}

/**
 * Adds `reason` to the reasons of `state`'s next run. A run with one reason (the common case: `'updated'`,
 * `'retry'`, `'requeue'`) gets a frozen array shared through `singles`, so it costs no allocation; an array of two or
 * more is owned by the key until `takeReasons` hands it out, and is only then visible to anyone else.
 */
function addReason(state: KeyState, reason: string, singles: Map<string, readonly string[]>): void {
  const reasons = state.reasons;
  const length = reasons.length;
  if (length === 0) {
    let single = singles.get(reason);
    if (single === undefined) {
      single = Object.freeze([reason]);
      // Bounded: reasons such as `owner:<key>` have unbounded cardinality; past the cap they simply allocate.
      if (singles.size < MAX_SHARED_SINGLES) singles.set(reason, single);
    }
    state.reasons = single;
  } else if (reasons.includes(reason)) {
    return;
  } else if (length === 1) {
    state.reasons = [reasons[0]!, reason]; // copy: a single may be shared and is frozen
  } else if (length < MAX_REASONS) {
    (reasons as string[]).push(reason);
  } else if (reasons[length - 1] !== MORE_REASONS) {
    (reasons as string[]).push(MORE_REASONS);
  }
}
