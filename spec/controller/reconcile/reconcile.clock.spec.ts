import { expect } from 'chai';
import { Subject, type Subscription } from 'rxjs';
import {
  fastSlowRateLimiter,
  reconcile,
  tokenBucketRateLimiter,
  type ReconcileEvent,
  type ReconcileOptions,
} from '../../../src/controller/index.js';
import { withSteppedWallClock } from '../../leader/wall-clock.js';

const TWO_HOURS = 7_200_000;

/**
 * Runs `reconcile(fn, options)` with its default scheduler on Node's real timers for key `a`, steps the wall clock
 * two hours back at the first event `stepOn` accepts, and resolves with `'done'` once `done` accepts the events seen,
 * or with `'stalled'` after `ticks` real 10 ms timer ticks, whichever comes first. Node's timers run on a monotonic
 * clock and in due order, so this compares the order of two things, never a duration.
 */
async function raceAfterStepBack(
  fn: () => Promise<unknown>,
  options: ReconcileOptions,
  stepOn: (event: ReconcileEvent) => boolean,
  done: (seenAfterStep: readonly ReconcileEvent[]) => boolean,
  ticks: number,
): Promise<'done' | 'stalled'> {
  let subscription: Subscription | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await withSteppedWallClock(
      (step) =>
        new Promise<'done' | 'stalled'>((resolve, reject) => {
          const afterStep: ReconcileEvent[] = [];
          let stepped = false;
          const tick = (left: number): void => {
            timer = left === 0 ? undefined : setTimeout(() => (left === 1 ? resolve('stalled') : tick(left - 1)), 10);
          };
          const triggers = new Subject<string>();
          subscription = triggers.pipe(reconcile(fn, options)).subscribe({
            next: (event) => {
              if (stepped) {
                afterStep.push(event);
                if (done(afterStep)) resolve('done');
              } else if (stepOn(event)) {
                stepped = true;
                step(-TWO_HOURS);
                tick(ticks);
              }
            },
            error: reject,
          });
          triggers.next('a');
        }),
    );
  } finally {
    clearTimeout(timer);
    subscription?.unsubscribe();
  }
}

const startedAgain = (events: readonly ReconcileEvent[]): boolean => events.some((event) => event.type === 'started');

describe('reconcile with its default scheduler (a monotonic clock, real timers)', () => {
  it('a wall-clock step back while a failed key waits for its retry does not hold the retry back', async () => {
    let calls = 0;
    const outcome = await raceAfterStepBack(
      async () => {
        if (calls++ === 0) throw new Error('first try fails');
      },
      {},
      (event) => event.type === 'retrying',
      startedAgain,
      // The retry is due 5 ms after the failure: long before 100 ticks of 10 ms, unless it waits for the clock.
      100,
    );
    expect(outcome).to.equal('done');
  });

  it('a wall-clock step back while a requeueAfter waits does not hold the requeue back', async () => {
    let calls = 0;
    const outcome = await raceAfterStepBack(
      async () => (calls++ === 0 ? { requeueAfter: 20 } : undefined),
      {},
      (event) => event.type === 'requeued',
      startedAgain,
      100,
    );
    expect(outcome).to.equal('done');
  });

  it('a wall-clock step back does not stop the global token bucket from refilling', async () => {
    // Every retry needs one token of a bucket that refills one per 10 ms and holds one. Read on a clock that went
    // back, the bucket refills nothing, so the n-th retry waits n × 10 ms: 30 retries take 4.65 s instead of 0.3 s.
    const outcome = await raceAfterStepBack(
      () => Promise.reject(new Error('always fails')),
      {
        rateLimiter: fastSlowRateLimiter({ fastMs: 0, slowMs: 0, maxFastAttempts: 0 }),
        globalRateLimiter: tokenBucketRateLimiter({ qps: 100, burst: 1 }),
      },
      (event) => event.type === 'retrying',
      (events) => events.filter((event) => event.type === 'retrying').length === 30,
      200,
    );
    expect(outcome).to.equal('done');
  });
});
