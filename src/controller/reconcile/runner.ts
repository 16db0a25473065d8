/**
 * One subscription of `reconcile`: intake, the pump that starts runs, and the bookkeeping when runs end.
 * Internal; the operator function wraps it.
 */
import { isObservable, take } from 'rxjs';
import { describeValue, messageOf } from '../../error-messages/index.js';
import type { Observable, SchedulerLike, Subscriber, Subscription, Unsubscribable } from 'rxjs';
import { KeyedQueue } from './keyed-queue.js';
import type { KeyState } from './keyed-queue.js';
import { hookOf, queueView } from './metrics.js';
import type { ReconcileQueueView } from './metrics-hook.js';
import type { ResolvedOptions } from './options.js';
import { Outcomes } from './outcomes.js';
import { reportError } from '../predicates/index.js';
import type { StaleRead } from 'rxkube/extend';
import { ReadinessHolds, withReasons, type Released } from './readiness.js';
import { KeyGateParking } from './key-gate.js';
import { abortRequest, KeyOnlyRequest, LookupRequest, type AnyRequest } from './request.js';
import { isPriority, isThenable, parseResult } from './results.js';
import type { Requeue } from './results.js';
import {
  InvalidReconcileResultError,
  NORMAL_PRIORITY,
  RETRY_REASON,
  ReconcileAbortedError,
  ReconcileCancelledError,
  ReconcileTimeoutError,
  TerminalError,
} from './types.js';
import type { ReconcileEvent, ReconcileFn, ReconcileTrigger } from './types.js';

/**
 * One asynchronous run (an Observable or Promise result). Synchronous runs, the common case for cheap reconciles,
 * never allocate one: they finish before `begin` returns.
 */
interface Run {
  readonly state: KeyState;
  readonly attempt: number;
  readonly reasons: readonly string[];
  readonly queueWaitMs: number;
  readonly startedAt: number;
  readonly request: AnyRequest;
  /** The outcome was reported. */
  done: boolean;
  /**
   * A Promise abandoned at its timeout: its failure is reported, but it keeps its key and its slot until it settles.
   * `retryAt` is when its retry may start (undefined: no retry).
   */
  held: boolean;
  retryAt: number | undefined;
  /** The gate closed while the run was in flight: a failure is then not counted, the key runs again as it was. */
  gateClosed: boolean;
  work: Unsubscribable | undefined;
  deadline: Subscription | undefined;
  /** The list the run is in (in flight, or held), and its neighbours there: see {@link RunList}. */
  list: RunList | undefined;
  prev: Run | undefined;
  next: Run | undefined;
}

const OK = 0;
const FAILED = 1;
/** A failure of a run whose gate closed while it was in flight: not counted, the key waits for the gate. */
const INTERRUPTED = 2;
type Outcome = typeof OK | typeof FAILED | typeof INTERRUPTED;

/**
 * Drives one subscription. Every public method is safe to call after `dispose`.
 *
 * Hot-path notes (the per-trigger and per-run cost is what the throughput benchmark measures): a synchronous run
 * allocates only its request, its two events and, for a key with no record, the record (dropped again when the run
 * ends); the clock is read once when a key's wait starts (reused for a start in the same call) and once when a run
 * ends, never for a coalesced trigger; events are object literals with one fixed shape per type. Without a metrics
 * hook, each hook site costs one test of a field that is `undefined`.
 */
export class Runner<T> {
  private readonly queue: KeyedQueue;
  private readonly inFlight = new RunList();
  /** Abandoned Promises still holding their key and slot. */
  private readonly held = new RunList();
  private readonly outcomes: Outcomes;
  private readonly scheduler: SchedulerLike;
  private readonly concurrency: number;
  private readonly lookup: ((key: string) => T | undefined) | undefined;
  private readonly subscriptions: Subscription[] = [];
  private source: Subscription | undefined;
  private drainTimer: Subscription | undefined;
  private active = 0;
  /** Runs in flight whose priority is `reserved.above` or lower: they may not fill the held-back slots. */
  private activeAtOrBelow = 0;
  /** Slots such runs may fill: `concurrency - reserved.slots`. */
  private readonly unreserved: number;
  private readonly reservedAbove: number;
  private gateOpen: boolean;
  /** Read by {@link Outcomes} through {@link RunnerState}. */
  stopping = false;
  closed = false;
  private sourceDone = false;
  private pumping = false;
  /** The metrics hook's methods this runner calls itself (the queue and the outcomes hold the others). */
  private readonly onStarted: ((key: string, queueWaitMs: number, priority: number) => void) | undefined;
  private readonly onDone: ((key: string, durationMs: number) => void) | undefined;
  private readonly onClosed: ((queue: ReconcileQueueView) => void) | undefined;
  private readonly onStaleRead: ((key: string, staleRead: StaleRead) => void) | undefined;
  private view: ReconcileQueueView | undefined;
  /** The keys waiting for the `readiness` hook (none without one). */
  private readonly holds: ReadinessHolds | undefined;
  /** The keys the key gate holds back (none without one). */
  private readonly parking: KeyGateParking | undefined;

  constructor(
    private readonly fn: ReconcileFn<T>,
    private readonly options: ResolvedOptions<T>,
    private readonly out: Subscriber<ReconcileEvent>,
  ) {
    this.scheduler = options.scheduler;
    this.concurrency = options.concurrency;
    this.unreserved = options.concurrency - options.reserved.slots;
    this.reservedAbove = options.reserved.above;
    this.lookup = options.lookup;
    const { metrics } = options;
    this.queue = new KeyedQueue(options.scheduler, () => this.pump(), hookOf(metrics, 'added'), {
      // The aging count is of takes of the slots lower keys may use: a start in a held-back slot is not one.
      aging: { ...options.aging, slots: this.unreserved },
      fairness: options.fairness,
      onFairnessError: (error, key) =>
        reportError(
          new Error(
            `reconcile: the fairness function failed for ${key}, which joins the group '': ${messageOf(error)}`,
            { cause: error },
          ),
        ),
    });
    this.outcomes = new Outcomes(
      this.queue,
      out,
      options.rateLimiter(),
      options.globalRateLimiter(),
      options.maxRetries,
      this,
      hookOf(metrics, 'outcome'),
    );
    this.gateOpen = options.gate === undefined;
    this.onStarted = hookOf(metrics, 'started');
    this.onDone = hookOf(metrics, 'done');
    this.onClosed = hookOf(metrics, 'closed');
    this.onStaleRead = hookOf(metrics, 'staleRead');
    this.holds =
      options.readiness === undefined
        ? undefined
        : new ReadinessHolds(options.readiness, this.queue, () => this.pump());
    this.parking =
      options.keyGate === undefined
        ? undefined
        : new KeyGateParking(options.keyGate, this.queue, (error) =>
            reportError(
              new Error(`reconcile: the key gate's isOpen() failed; the key stays closed: ${messageOf(error)}`, {
                cause: error,
              }),
            ),
          );
  }

  /**
   * Tells the metrics hook the queue opened, then subscribes gate, stop notifier and source, in that order, so a
   * synchronous gate is known before any trigger.
   */
  start(source: Observable<ReconcileTrigger | string>): void {
    const opened = hookOf(this.options.metrics, 'opened');
    if (opened !== undefined || this.onClosed !== undefined) {
      this.view = queueView(
        this.concurrency,
        this.scheduler,
        () => this.queue.depth + (this.holds?.size ?? 0),
        () => this.depthByPriority(),
        () => this.active,
        [this.inFlight, this.held],
      );
      opened?.(this.view);
    }
    const { gate, stop$ } = this.options;
    if (gate !== undefined) {
      this.hold(
        gate.subscribe({
          next: (open) => {
            const wasOpen = this.gateOpen;
            this.gateOpen = open === true;
            if (this.gateOpen) this.pump();
            else if (wasOpen) this.abortInFlight('gate closed');
          },
          error: (error: unknown) => this.fail(error),
        }),
      );
    }
    const keyGate = this.options.keyGate;
    if (keyGate !== undefined && !this.closed) {
      this.hold(
        keyGate.changed$.subscribe({
          next: (changed) => this.keyGateChanged(changed),
          error: (error: unknown) => this.fail(error),
        }),
      );
    }
    if (stop$ !== undefined && !this.closed) {
      this.hold(stop$.subscribe({ next: () => this.stop(), error: (error: unknown) => this.fail(error) }));
    }
    if (this.closed || this.stopping) return;
    const subscription = source.subscribe({
      next: (trigger) => this.intake(trigger),
      error: (error: unknown) => this.fail(error),
      complete: () => {
        this.sourceDone = true;
        this.maybeComplete();
      },
    });
    if (this.closed || this.stopping) subscription.unsubscribe();
    else this.source = subscription;
  }

  /** Keeps an inner subscription for teardown, or drops it at once if it closed us while subscribing. */
  private hold(subscription: Subscription): void {
    if (this.closed) subscription.unsubscribe();
    else this.subscriptions.push(subscription);
  }

  /** Cancels everything at once: in-flight work, timers, inner subscriptions. Emits nothing. */
  dispose(): void {
    const wasClosed = this.closed;
    this.closed = true;
    for (const run of this.inFlight) {
      cancel(run);
      abortRequest(run.request, new ReconcileAbortedError(run.state.key, 'unsubscribed'));
    }
    for (const run of this.held) abortRequest(run.request, new ReconcileAbortedError(run.state.key, 'unsubscribed'));
    this.inFlight.clear();
    this.held.clear();
    this.queue.dispose();
    this.holds?.dispose();
    this.parking?.dispose();
    this.drainTimer?.unsubscribe();
    this.source?.unsubscribe();
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    if (!wasClosed && this.onClosed !== undefined) this.onClosed(this.view!);
  }

  /** `depth` by priority: the ready keys and the running keys triggered again. */
  private depthByPriority(): Map<number, number> {
    const depth = new Map<number, number>();
    const count = (priority: number, keys: number): void => void depth.set(priority, (depth.get(priority) ?? 0) + keys);
    const running = function* (sets: readonly RunList[]): Iterable<KeyState> {
      for (const set of sets) for (const run of set) yield run.state;
    };
    this.queue.forEachDepth(running([this.inFlight, this.held]), count);
    // Keys waiting for their readiness are in the depth at the priority of the run they wait for.
    this.holds?.forEachHeld((state) => count(state.runPriority, 1));
    return depth;
  }

  private intake(trigger: ReconcileTrigger | string): void {
    if (this.closed || this.stopping) return;
    // The common case, a plain key, skips the shape checks below.
    if (typeof trigger === 'string' && trigger !== '') {
      if (this.holds?.absorb(trigger, undefined)) return;
      const now = this.queue.trigger(trigger, undefined);
      if (now !== undefined) this.pump(now);
      return;
    }
    let key: unknown = trigger;
    let reason: unknown;
    let priority: unknown;
    if (typeof trigger !== 'string') {
      key = trigger !== null && typeof trigger === 'object' ? trigger.key : undefined;
      if (key !== undefined) {
        reason = trigger.reason;
        priority = trigger.priority;
      }
    }
    if (
      typeof key !== 'string' ||
      key === '' ||
      (reason !== undefined && typeof reason !== 'string') ||
      (priority !== undefined && !isPriority(priority))
    ) {
      const error = new TypeError(
        `reconcile: a trigger must be a non-empty key string or { key: string, reason?: string, priority?: safe integer }, got ${describeValue(trigger)}`,
      );
      this.out.next({ type: 'rejected', trigger, error, time: this.scheduler.now() });
      return;
    }
    if (this.holds?.absorb(key, reason as string | undefined)) return;
    const now = this.queue.trigger(
      key,
      reason as string | undefined,
      (priority as number | undefined) ?? NORMAL_PRIORITY,
    );
    // A coalesced trigger changed nothing the pump could act on, so it is not called: no clock read, no loop.
    if (now !== undefined) this.pump(now);
  }

  /** Starts ready keys while slots are free. `now`, if given, was just read and serves the first start only. */
  private pump(now?: number): void {
    if (this.pumping) return; // the outer loop picks up whatever the nested call wanted
    this.pumping = true;
    try {
      while (!this.closed && this.gateOpen && !this.stopping && this.active < this.concurrency) {
        // Only keys above `reserved.above` may take a held-back slot.
        const above = this.activeAtOrBelow >= this.unreserved ? this.reservedAbove : undefined;
        // Keys whose readiness wait is over go first: they were ready before the keys still in the queue.
        const released = this.holds?.next(above);
        let state = released?.state;
        // The clock is read only when a key starts: an empty queue costs no read.
        if (state === undefined && this.queue.readyCount === 0) break;
        const at = now ?? this.scheduler.now();
        if (state === undefined) {
          state = above === undefined ? this.queue.take(at)! : this.queue.takeAbove(above);
          if (state === undefined) break;
          if (this.parking?.park(state, []) === true) continue;
          if (this.holds?.hold(state) === true) continue;
        } else if (this.parking?.park(state, released!.reasons) === true) continue;
        this.begin(state, at, released);
        now = undefined;
      }
    } finally {
      this.pumping = false;
    }
    this.maybeComplete();
  }

  private begin(state: KeyState, now: number, released?: Released): void {
    const { key } = state;
    const attempt = state.failures + 1;
    let reasons = this.queue.takeReasons(state);
    if (released !== undefined && released.reasons.length > 0) reasons = withReasons(reasons, released.reasons);
    const staleRead = released?.staleRead;
    const queueWaitMs = now - state.enqueuedAt;
    const priority = state.runPriority;
    this.active += 1;
    if (priority <= this.reservedAbove) this.activeAtOrBelow += 1;
    if (this.onStarted !== undefined) this.onStarted(key, queueWaitMs, priority);
    if (staleRead === undefined) this.out.next({ type: 'started', key, attempt, reasons, queueWaitMs, time: now });
    else {
      if (this.onStaleRead !== undefined) this.onStaleRead(key, staleRead);
      this.out.next({ type: 'started', key, attempt, reasons, queueWaitMs, time: now, staleRead });
    }
    if (this.closed) return;
    let output: unknown;
    let request: AnyRequest;
    try {
      const lookup = this.lookup;
      request =
        lookup === undefined
          ? new KeyOnlyRequest(key, reasons, attempt, priority)
          : (new LookupRequest<T>(key, lookup(key), reasons, attempt, priority) as LookupRequest<unknown>);
      if (this.holds !== undefined) this.holds.began(request);
      output = this.fn(request as LookupRequest<T>);
    } catch (error) {
      this.finish(state, attempt, reasons, queueWaitMs, now, FAILED, error);
      return;
    }
    if (output === undefined || output === null || (typeof output !== 'object' && typeof output !== 'function')) {
      // A primitive result: success, settled without allocating a Run.
      this.finish(state, attempt, reasons, queueWaitMs, now, OK, undefined);
      return;
    }
    let observable: boolean;
    try {
      observable = isObservable(output);
      if (!observable && !isThenable(output)) {
        this.settleSync(state, attempt, reasons, queueWaitMs, now, output);
        return;
      }
    } catch (error) {
      // Telling the kinds apart reads `then`/`subscribe`; a hostile getter or Proxy is the user's failure, not a crash.
      this.finish(state, attempt, reasons, queueWaitMs, now, FAILED, error);
      return;
    }
    const run: Run = {
      state,
      attempt,
      reasons,
      queueWaitMs,
      startedAt: now,
      request,
      done: false,
      held: false,
      retryAt: undefined,
      gateClosed: false,
      work: undefined,
      deadline: undefined,
      list: undefined,
      prev: undefined,
      next: undefined,
    };
    this.inFlight.add(run);
    if (observable) {
      const work = (output as Observable<unknown>).pipe(take(1)).subscribe({
        next: (value) => this.settle(run, value),
        error: (error: unknown) => this.end(run, FAILED, error),
        complete: () => this.settle(run, undefined),
      });
      if (run.done) work.unsubscribe();
      else run.work = work;
    } else {
      try {
        (output as PromiseLike<unknown>).then(
          (value) => (run.held ? this.release(run) : this.settle(run, value)),
          (error: unknown) => (run.held ? this.release(run) : this.end(run, FAILED, error)),
        );
      } catch (error) {
        // A hand-made thenable may throw from `then` itself; that is the user's failure, not ours.
        this.end(run, FAILED, error);
      }
    }
    const timeout = this.options.timeout;
    if (run.done || this.closed || timeout === undefined) return;
    run.deadline = this.scheduler.schedule(() => {
      const error = new ReconcileTimeoutError(key, timeout);
      abortRequest(run.request, error);
      if (observable) this.end(run, FAILED, error);
      else this.abandon(run, error);
    }, timeout);
  }

  /**
   * Reports a timed-out Promise as failed now, but keeps its key and its slot until it settles: a Promise cannot
   * be cancelled, and running the key again meanwhile would run it concurrently with itself.
   */
  private abandon(run: Run, error: unknown): void {
    if (run.done || this.closed) return;
    cancel(run);
    this.inFlight.delete(run);
    run.held = true;
    this.held.add(run);
    const now = this.scheduler.now();
    const durationMs = now - run.startedAt;
    if (run.gateClosed)
      this.outcomes.interrupted(run.state, run.attempt, run.reasons, run.queueWaitMs, durationMs, now, error, true);
    else
      run.retryAt = this.outcomes.failed(
        run.state,
        run.attempt,
        run.reasons,
        run.queueWaitMs,
        durationMs,
        now,
        error,
        true,
      );
  }

  /**
   * An abandoned Promise settled: reports `released`, then its key and slot are free again, and its retry (if any)
   * may start.
   */
  private release(run: Run): void {
    if (!run.held || this.closed) return;
    run.held = false;
    this.held.delete(run);
    this.active -= 1;
    if (run.state.runPriority <= this.reservedAbove) this.activeAtOrBelow -= 1;
    const now = this.scheduler.now();
    const { state, attempt, reasons, queueWaitMs } = run;
    if (this.onDone !== undefined) this.onDone(state.key, now - run.startedAt);
    this.out.next({
      type: 'released',
      key: state.key,
      attempt,
      reasons,
      queueWaitMs,
      durationMs: now - run.startedAt,
      time: now,
    });
    if (this.closed) return;
    this.queue.finish(run.state, now, !this.stopping);
    if (!this.stopping) {
      if (run.gateClosed) this.queue.restore(run.state, run.reasons, now);
      else if (run.retryAt !== undefined) this.queue.delay(run.state, run.retryAt, now, RETRY_REASON);
    }
    this.queue.release(run.state);
    this.pump();
  }

  /**
   * Aborts the signal of every run in flight (they go on and report as they end) and marks them, so that a failure
   * they end with is not counted against their key.
   */
  private abortInFlight(why: 'gate closed'): void {
    // An abort listener may end runs, its own or others', while this loop runs: those are skipped, as a Set would.
    for (const run of this.inFlight.toArray()) {
      if (!this.inFlight.has(run)) continue;
      run.gateClosed = true;
      abortRequest(run.request, new ReconcileAbortedError(run.state.key, why));
    }
  }

  /**
   * The key gate changed: keys it held back that are open again go back to the ready set, and runs in flight whose
   * key it closed are aborted as a closing `gate` aborts them.
   */
  private keyGateChanged(changed: unknown): void {
    const parking = this.parking!;
    const only = typeof changed === 'string' ? changed : undefined;
    for (const run of this.inFlight.toArray()) {
      if (!this.inFlight.has(run)) continue;
      if (run.gateClosed || (only !== undefined && run.state.key !== only) || parking.isOpen(run.state.key)) continue;
      run.gateClosed = true;
      abortRequest(run.request, new ReconcileAbortedError(run.state.key, 'gate closed'));
    }
    if (!this.stopping && parking.reopen(this.scheduler.now(), only)) this.pump();
  }

  private settleSync(
    state: KeyState,
    attempt: number,
    reasons: readonly string[],
    queueWaitMs: number,
    startedAt: number,
    value: unknown,
  ): void {
    const parsed = parseResult(state.key, value);
    if (parsed instanceof InvalidReconcileResultError)
      this.finish(state, attempt, reasons, queueWaitMs, startedAt, FAILED, parsed);
    else this.finish(state, attempt, reasons, queueWaitMs, startedAt, OK, parsed);
  }

  private settle(run: Run, value: unknown): void {
    const parsed = parseResult(run.state.key, value);
    if (parsed instanceof InvalidReconcileResultError) this.end(run, FAILED, parsed);
    else this.end(run, OK, parsed);
  }

  /** Ends an asynchronous run exactly once. */
  private end(run: Run, outcome: Outcome, detail: unknown): void {
    if (run.done || this.closed) return;
    cancel(run);
    this.inFlight.delete(run);
    // A TerminalError stays terminal: the reconcile itself said that running again cannot help.
    if (outcome === FAILED && run.gateClosed && !(detail instanceof TerminalError)) outcome = INTERRUPTED;
    this.finish(run.state, run.attempt, run.reasons, run.queueWaitMs, run.startedAt, outcome, detail);
  }

  /** Ends a run: frees its slot, updates the key, emits its events, then lets the pump continue. */
  private finish(
    state: KeyState,
    attempt: number,
    reasons: readonly string[],
    queueWaitMs: number,
    startedAt: number,
    outcome: Outcome,
    detail: unknown,
  ): void {
    if (this.closed) return;
    this.active -= 1;
    if (state.runPriority <= this.reservedAbove) this.activeAtOrBelow -= 1;
    const now = this.scheduler.now();
    if (this.onDone !== undefined) this.onDone(state.key, now - startedAt);
    this.queue.finish(state, now, !this.stopping);
    if (outcome === OK)
      this.outcomes.succeeded(
        state,
        attempt,
        reasons,
        queueWaitMs,
        now - startedAt,
        now,
        detail as Requeue | undefined,
      );
    else if (outcome === INTERRUPTED)
      this.outcomes.interrupted(state, attempt, reasons, queueWaitMs, now - startedAt, now, detail, false);
    else this.outcomes.failed(state, attempt, reasons, queueWaitMs, now - startedAt, now, detail, false);
    this.queue.release(state);
    this.pump();
  }

  private stop(): void {
    if (this.stopping || this.closed) return;
    this.stopping = true;
    this.source?.unsubscribe();
    this.queue.clearPending();
    this.holds?.drop(this.scheduler.now());
    this.parking?.drop(this.scheduler.now());
    if (this.active === 0) {
      this.complete();
      return;
    }
    const { drainTimeout } = this.options;
    this.drainTimer = this.scheduler.schedule(() => {
      for (const run of this.inFlight.toArray()) {
        const error = new ReconcileCancelledError(run.state.key, drainTimeout);
        abortRequest(run.request, error);
        this.end(run, FAILED, error);
      }
      for (const run of this.held) abortRequest(run.request, new ReconcileCancelledError(run.state.key, drainTimeout));
      this.complete();
    }, drainTimeout);
  }

  private maybeComplete(): void {
    if (this.closed || this.active > 0) return;
    if (
      this.stopping ||
      (this.sourceDone &&
        this.queue.pendingCount === 0 &&
        !(this.holds !== undefined && this.holds.size > 0) &&
        !(this.parking !== undefined && this.parking.size > 0))
    )
      this.complete();
  }

  private complete(): void {
    if (this.closed) return;
    this.dispose();
    this.out.complete();
  }

  private fail(error: unknown): void {
    if (this.closed) return;
    this.dispose();
    this.out.error(error);
  }
}

function cancel(run: Run): void {
  run.done = true;
  run.work?.unsubscribe();
  run.deadline?.unsubscribe();
}

/**
 * The runs in one state (in flight, or held): a doubly linked list through the runs themselves, in the order they
 * were added.
 *
 * Not a `Set`, which costs the collector dearly here. The runner lives long, so its Set's table is in the old
 * generation, and every run adds and deletes a young `Run`. When the Set rehashes, the table it leaves behind (dead,
 * but old) still points at the runs it held, and the scavenger keeps whatever an old object points at until the
 * next full collection. So runs with their requests, events, closures and promises were promoted, to die old: in a
 * queue of a million keys at concurrency 64, 3.4 MB was promoted at every scavenge and a scavenge took about 4 ms,
 * against none and 0.5 ms with this list. A run's links are cleared when it leaves, so no dead run points at a live
 * one either.
 */
class RunList implements Iterable<Run> {
  private first: Run | undefined;
  private last: Run | undefined;

  /** Appends `run`, which is in no list. */
  add(run: Run): void {
    run.list = this;
    run.prev = this.last;
    run.next = undefined;
    if (this.last === undefined) this.first = run;
    else this.last.next = run;
    this.last = run;
  }

  /** Whether `run` is in this list now. */
  has(run: Run): boolean {
    return run.list === this;
  }

  /** Removes `run` if it is in this list. */
  delete(run: Run): void {
    if (!this.has(run)) return;
    const { prev, next } = run;
    if (prev === undefined) this.first = next;
    else prev.next = next;
    if (next === undefined) this.last = prev;
    else next.prev = prev;
    run.list = run.prev = run.next = undefined;
  }

  /** Empties the list, clearing every run's links. */
  clear(): void {
    for (let run = this.first; run !== undefined; ) {
      const next: Run | undefined = run.next;
      run.list = run.prev = run.next = undefined;
      run = next;
    }
    this.first = this.last = undefined;
  }

  /** The runs now in the list, for a loop whose body may add or remove runs (it calls user code). */
  toArray(): Run[] {
    const runs: Run[] = [];
    for (let run = this.first; run !== undefined; run = run.next) runs.push(run);
    return runs;
  }

  /** Visits the runs in order; the loop body may remove the run it is given, and no other. */
  *[Symbol.iterator](): Iterator<Run> {
    for (let run = this.first; run !== undefined; ) {
      const next: Run | undefined = run.next;
      yield run;
      run = next;
    }
  }
}
