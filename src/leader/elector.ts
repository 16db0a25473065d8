/**
 * One candidate's campaign for one subscription: when to try, when a holder must give up, and the release. The
 * requests themselves are in `attempt.ts`.
 */
import {
  catchError,
  EMPTY,
  of,
  tap,
  throwError,
  timeout,
  type Observable,
  type Subscriber,
  type Subscription,
} from 'rxjs';
import { proportionalJitter } from '../backoff/index.js';
import { reportError } from '../controller/predicates/index.js';
import { isConflict } from '../transport/index.js';
import { releaseLease, tryAcquireOrRenew, type AttemptContext, type AttemptResult } from './attempt.js';
import type { LeaseClient } from './lease-client.js';
import { LEADER_JITTER_FACTOR, type ResolvedLeaderOptions } from './options.js';
import { Observation, TermWrites } from './record.js';
import type { TermSequence } from './terms.js';
import type { LeaderEvent, LeaderPhase } from './types.js';

/**
 * The state machine behind `leaderElection`, driven only by scheduler actions and request answers.
 *
 * - Starting: wait until the release of this Observable's previous term (if any) has settled, then try.
 * - Not leading: try at once, then every `retryPeriod · (1 + 1.2 · random)` (client-go's `JitterUntil`), or at
 *   the moment the observed lease expires if that comes first; each try is bounded by `renewDeadline`.
 * - Leading: renew `retryPeriod` after the previous try settled (client-go's `Until` / `Poll`), and give up at
 *   `renewDeadline` after the last successful write was sent, aborting the try in flight. A read that shows another
 *   holder ends leadership at once.
 * - Teardown (unsubscribe, completion, error): cancel every timer and request, then release if the Lease may be ours.
 *
 * Every duration (expiry, deadline, delays) is read from `scheduler.now()`, monotonic by default; only the times
 * written into the Lease come from the wall clock.
 */
export class Elector {
  private readonly writes = new TermWrites();
  private readonly context: AttemptContext;
  private leading = false;
  /** No more tries: lost, stopped or torn down. */
  private ended = false;
  private releaseStarted = false;
  /** The current run of failures has been reported (the default reporter reports only its first). */
  private failing = false;
  private reportedHolder = '';
  /** Waiting for the previous term's release to settle. */
  private waiting: Subscription | undefined;
  private attempt: Subscription | undefined;
  private timer: Subscription | undefined;
  private deadline: Subscription | undefined;
  private stopping: Subscription | undefined;

  constructor(
    client: LeaseClient,
    private readonly options: ResolvedLeaderOptions,
    private readonly out: Subscriber<boolean>,
    private readonly terms: TermSequence,
    /** The local observation of the Lease; shared when others (a shard directory) observe the same Lease too. */
    private readonly observation: Observation = new Observation(),
  ) {
    this.context = {
      client,
      observation: this.observation,
      writes: this.writes,
      stamps: terms.stamps,
      identity: options.identity,
      namespace: options.namespace,
      name: options.name,
      leaseDurationSeconds: options.leaseDuration / 1000,
      scheduler: options.scheduler,
    };
  }

  start(): void {
    this.out.next(false);
    this.stopping = this.options.stop$?.subscribe({
      next: () => this.stop(),
      error: (error: unknown) => this.out.error(error),
    });
    if (this.ended) return;
    const waiting = this.terms.settled().subscribe(() => {
      this.waiting = undefined;
      if (!this.ended) this.try();
    });
    if (!waiting.closed) this.waiting = waiting;
  }

  /** Cancels every timer and request; releases the Lease (detached, best effort) when it may be ours. */
  teardown(): void {
    this.ended = true;
    this.cancelWork();
    this.stopping?.unsubscribe();
    if (!this.releaseStarted && this.mayHoldLease()) this.release().subscribe();
  }

  private try(): void {
    const { renewDeadline, scheduler } = this.options;
    const attempt$ = tryAcquireOrRenew(this.context);
    // A holder's tries are bounded by its renew deadline; a candidate's by the same span from the try's start.
    const bounded: Observable<AttemptResult> = this.leading
      ? attempt$
      : attempt$.pipe(
          timeout({
            first: renewDeadline,
            scheduler,
            with: () => of({ kind: 'failed', error: this.timeoutError('acquire') } as const),
          }),
        );
    const subscription = bounded.subscribe((result) => this.settle(result));
    if (this.ended || subscription.closed) subscription.unsubscribe();
    else this.attempt = subscription;
  }

  private settle(result: AttemptResult): void {
    this.attempt = undefined;
    if (this.ended) return;
    const now = this.options.scheduler.now();
    const phase: LeaderPhase = this.leading ? 'renew' : 'acquire';
    this.noteHolder(now);
    const firstFailure = !this.failing;
    this.failing = result.kind === 'failed';
    switch (result.kind) {
      case 'success':
        this.armDeadline(result.sentAt + this.options.renewDeadline);
        if (this.leading) this.report({ type: 'renewed', at: now });
        else {
          this.leading = true;
          this.report({
            type: 'acquired',
            at: now,
            identity: this.options.identity,
            leaseTransitions: result.leaseTransitions,
          });
          this.out.next(true);
        }
        break;
      case 'held':
        if (this.leading) {
          this.lose('takenOver', result.holder);
          return;
        }
        break;
      case 'conflict':
        this.report({ type: 'conflict', at: now, phase, error: result.error });
        break;
      case 'failed':
        this.report({ type: 'failed', at: now, phase, error: result.error }, firstFailure);
        break;
    }
    this.scheduleTry();
  }

  private scheduleTry(): void {
    if (this.ended) return;
    const delay = this.leading ? this.options.retryPeriod : this.candidateDelay();
    const { scheduler } = this.options;
    this.timer = scheduler.schedule(() => {
      this.timer = undefined;
      if (!this.ended) this.try();
    }, delay);
  }

  /**
   * client-go's jittered period, or less: a candidate that watches another's lease also tries the moment that lease
   * expires by its own observation, instead of up to `2.2 · retryPeriod` later. Expiry is judged exactly as
   * before, so this only makes failover faster; while the holder renews, the jittered tick always comes first.
   */
  private candidateDelay(): number {
    const { retryPeriod, random, scheduler, identity } = this.options;
    const jittered = proportionalJitter(retryPeriod, LEADER_JITTER_FACTOR, random());
    const holder = this.observation.holder();
    const untilExpiry = this.observation.expiresAt() - scheduler.now();
    return holder !== '' && holder !== identity && untilExpiry > 0 ? Math.min(jittered, untilExpiry) : jittered;
  }

  private armDeadline(at: number): void {
    this.deadline?.unsubscribe();
    const { scheduler } = this.options;
    this.deadline = scheduler.schedule(() => this.lose('renewDeadline'), Math.max(0, at - scheduler.now()));
  }

  /** Leadership is over: emit `false` first (a gate closes, in-flight runs are aborted), then stop or exit. */
  private lose(reason: 'renewDeadline' | 'takenOver', holder?: string): void {
    if (this.ended) return;
    this.ended = true;
    this.leading = false;
    this.cancelWork();
    const at = this.options.scheduler.now();
    this.out.next(false);
    const event: LeaderEvent =
      holder === undefined ? { type: 'lost', at, reason } : { type: 'lost', at, reason, holder };
    if (this.options.onLost === 'exit') {
      // A process warning is printed on a later tick, which an exit never reaches: say why now.
      if (this.options.onEvent === undefined) process.stderr.write(`${this.warning(event).message}; exiting\n`);
      else this.report(event);
      this.options.exit(1);
    } else this.report(event, true);
    this.out.complete();
  }

  /** `stop$`: stop trying, emit `false`, release, complete once the release settled. */
  private stop(): void {
    if (this.ended) return;
    this.ended = true;
    this.leading = false;
    this.cancelWork();
    this.stopping?.unsubscribe();
    this.out.next(false);
    if (!this.mayHoldLease()) {
      this.out.complete();
      return;
    }
    this.release().subscribe({ complete: () => this.out.complete() });
  }

  private mayHoldLease(): boolean {
    return this.writes.inDoubt() || this.observation.holder() === this.options.identity;
  }

  /**
   * The release, bounded by `renewDeadline`, reporting its outcome; never errors. The next term of this Observable
   * waits until it settled.
   */
  private release(): Observable<boolean> {
    this.releaseStarted = true;
    const { renewDeadline, scheduler } = this.options;
    return this.terms.track(
      releaseLease(this.context).pipe(
        timeout({ first: renewDeadline, with: () => throwError(() => this.timeoutError('release')), scheduler }),
        tap((released) => {
          this.noteHolder(scheduler.now());
          if (released) this.report({ type: 'released', at: scheduler.now() });
        }),
        catchError((error: unknown) => {
          const cause = error instanceof Error ? error : new Error(String(error));
          const type = isConflict(cause) ? 'conflict' : 'failed';
          this.report({ type, at: scheduler.now(), phase: 'release', error: cause }, true);
          return EMPTY;
        }),
      ),
    );
  }

  private cancelWork(): void {
    for (const subscription of [this.waiting, this.attempt, this.timer, this.deadline]) subscription?.unsubscribe();
    this.waiting = this.attempt = this.timer = this.deadline = undefined;
  }

  /** client-go's `OnNewLeader`: reports the observed holder when it differs from the one reported last. */
  private noteHolder(at: number): void {
    const holder = this.observation.holder();
    if (holder === this.reportedHolder) return;
    this.reportedHolder = holder;
    this.report({ type: 'leader', at, holder });
  }

  private timeoutError(phase: LeaderPhase): Error {
    const error = new Error(
      `${this.describe()}: ${phase} got no answer within renewDeadline (${this.options.renewDeadline} ms)`,
    );
    error.name = 'LeaseTimeoutError';
    return error;
  }

  private describe(): string {
    return `leader election on Lease ${this.context.client.describe} as ${this.options.identity}`;
  }

  /**
   * To `onEvent` when given (a throw there is reported, never thrown into the elector); otherwise failures and
   * losses worth a warning (`warn`) go to `reportError`.
   */
  private report(event: LeaderEvent, warn = false): void {
    const { onEvent } = this.options;
    if (onEvent === undefined) {
      if (warn) reportError(this.warning(event));
      return;
    }
    try {
      onEvent(event);
    } catch (error) {
      reportError(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private warning(event: LeaderEvent): Error {
    switch (event.type) {
      case 'lost':
        return new Error(
          `${this.describe()}: lost the lease (${event.reason}${event.holder === undefined ? '' : `, now held by ${event.holder}`})`,
        );
      case 'failed':
      case 'conflict':
        return new Error(`${this.describe()}: ${event.phase} failed: ${event.error.message}`, { cause: event.error });
      default:
        return new Error(`${this.describe()}: ${event.type}`);
    }
  }
}
