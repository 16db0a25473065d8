/**
 * `expectReconciles`: marble assertions over a controller's `ReconcileEvent`s, one letter per event kind.
 * @module
 */
import { asyncScheduler, filter, map, type Observable, type Subscription } from 'rxjs';
import { TestScheduler, type RunHelpers } from 'rxjs/testing';
import { describeEntries, firstDifference, legend, renderMarble, sameMarble, type MarbleEntry } from './marble-text.js';
import type { ReconcileEvent } from 'rxkube';

/**
 * The letter of each `ReconcileEvent` kind in a reconcile marble:
 *
 * | letter | event |
 * |---|---|
 * | `s` | `started` |
 * | `S` | `succeeded` |
 * | `q` | `requeued` (follows `S` in the same frame) |
 * | `f` | `failed`, retriable |
 * | `t` | `failed` with a `TerminalError` (`terminal: true`) |
 * | `r` | `retrying` (follows `f` in the same frame) |
 * | `d` | `dropped` (follows `f` in the same frame) |
 * | `x` | `rejected` (an input that is not a key) |
 * | `l` | `released` (a Promise that outlived its `timeout` settled) |
 *
 * A run that succeeds at once is `(sS)`; one that asks for a requeue is `(sSq)`; a failure retried later is `(sfr)`;
 * a terminal failure is `(st)` (`t` replaces `f`, it is not added to it).
 */
export const RECONCILE_LETTERS = Object.freeze({
  /** `s`: a run of a key began. */
  started: 's',
  /** `S`: the run returned success (followed by `q` in the same frame when it asked for a requeue). */
  succeeded: 'S',
  /** `q`: the successful run asked for `{ requeueAfter }`; always in the frame of its `S`. */
  requeued: 'q',
  /**
   * `f`: the run failed with a retriable error (anything but a `TerminalError`); followed by `r` or `d`, or alone
   * while draining.
   */
  failed: 'f',
  /**
   * `t`: the run failed with a `TerminalError` (`failed` with `terminal: true`); it replaces `f` and is never
   * retried.
   */
  terminal: 't',
  /** `r`: the failed key will be retried after a delay; always in the frame of its `f`. */
  retrying: 'r',
  /** `d`: `maxRetries` is exhausted and the key is not retried; always in the frame of its `f`. */
  dropped: 'd',
  /** `x`: an input that is not a key was rejected; it belongs to no key, so a `key` filter leaves it out. */
  rejected: 'x',
  /**
   * `l`: a Promise that outlived its `timeout` settled, freeing its key and concurrency slot; in the frame it
   * settled, after its run's `f` (and `r` or `d`) at the deadline.
   */
  released: 'l',
} as const);

/** The default letter of one event (see {@link RECONCILE_LETTERS}). */
export function reconcileLetter(event: ReconcileEvent): string {
  if (event.type === 'failed' && event.terminal) return RECONCILE_LETTERS.terminal;
  return RECONCILE_LETTERS[event.type];
}

/**
 * A pattern a letter of {@link ReconcileExpectation.toBe}'s `values` stands for: the event's `type` and any other
 * fields that must be equal (`key`, `attempt`, `delayMs`, `failures`, `reasons`…).
 */
export type ReconcileEventPattern = {
  /**
   * The event type that must match (`'started'`, `'failed'`…); a terminal failure is `'failed'` here, so pin
   * `terminal: true` to tell it from a retriable one.
   */
  readonly type: ReconcileEvent['type'];
} & Readonly<Record<string, unknown>>;

/** What {@link expectReconciles} returns. */
export interface ReconcileExpectation {
  /**
   * Asserts the marble of the events: each event becomes the first letter of `values` whose pattern it matches,
   * or else its default letter ({@link RECONCILE_LETTERS}); a default letter that `values` redefines becomes `?`
   * for the events that do not match its pattern, so a mismatch never passes for a match.
   */
  toBe(marble: string, values?: Readonly<Record<string, ReconcileEventPattern>>): void;
}

/** Options of {@link expectReconciles}. */
export interface ExpectReconcilesOptions {
  /** Only the events of this key (or of the keys it accepts); `rejected` events have no key and are left out. */
  readonly key?: string | ((key: string) => boolean);
  /** A subscription marble, as `expectObservable`'s: when to subscribe and unsubscribe. */
  readonly subscription?: string;
}

/**
 * Marble assertions over reconcile events, inside `TestScheduler.run()`:
 * `expectReconciles(helpers, events$).toBe('(sS)--(sfr)-(sS)')`.
 *
 * A mismatch fails the run with an `Error` that says, as RxJS users read them, the two marbles and the legend of
 * their letters:
 *
 * ```text
 * expectReconciles: the reconcile marbles differ
 *   expected: 1600ms (sfr) 15ms (sS)
 *   actual:   1600ms (sfr) 15ms (sf)
 *   first difference: expected S at 1620 ms, got f at 1620 ms (failed default/flaky: again)
 *   letters: S = succeeded, f = failed, r = retrying, s = started
 * ```
 *
 * and keeps the detail: `actual` and `expected` (the two marbles, which mocha shows as a diff), `actualEvents`
 * (every event behind the actual letters, `<ms> <letter> <event>`, with its key, attempt and error), and
 * `actualEntries`/`expectedEntries` (frame and symbol of each).
 *
 * # Guarantees
 * - It records like `expectObservable`: the subscription marble, frames in the scheduler's milliseconds, events of one
 *   frame in a group `(…)`. It compares marbles: the same letters at the same frames; an error matches `#`.
 * - Both marbles in a failure are drawn from what they mean, the same way, so their text differs only where they do.
 * - With `values`, a letter can pin fields: `{ R: { type: 'retrying', delayMs: 10 } }`.
 *
 * # Caveats
 * - The comparison runs after everything else the run scheduled, so the run's clock ends far in the future; read
 *   times you need before the run ends.
 * - A controller that keeps requeueing never completes: end its stream (for example with `takeUntil`, `stop$` or a
 *   subscription marble) or the expected marble must not end with `|`.
 * - Call it inside `TestScheduler.run()`: it schedules through the run's delegation of `asyncScheduler`.
 */
export function expectReconciles(
  helpers: Pick<RunHelpers, 'expectObservable'>,
  events$: Observable<ReconcileEvent>,
  options: ExpectReconcilesOptions = {},
): ReconcileExpectation {
  if (typeof helpers?.expectObservable !== 'function') {
    throw new TypeError('expectReconciles: pass the helpers of TestScheduler.run(), and call it inside the run');
  }
  const { key } = options;
  const wanted = key === undefined ? undefined : typeof key === 'string' ? (k: string) => k === key : key;
  return {
    toBe(marble, values = {}) {
      const patterns = Object.entries(values);
      const redefined = new Set(Object.keys(values));
      const letters$ = events$.pipe(
        filter((event) => wanted === undefined || (event.type !== 'rejected' && wanted(event.key))),
        map((event) => {
          for (const [letter, pattern] of patterns) if (matches(event, pattern)) return { letter, event };
          const letter = reconcileLetter(event);
          return { letter: redefined.has(letter) ? '?' : letter, event };
        }),
      );
      const expected: MarbleEntry[] = TestScheduler.parseMarbles(marble, undefined, undefined, true, true).map(
        ({ frame, notification }) => ({
          frame,
          symbol: notification.kind === 'N' ? String(notification.value) : notification.kind === 'C' ? '|' : '#',
        }),
      );
      const actual = record(letters$, options.subscription);
      // Last of all the run's actions: every event has been recorded by then.
      asyncScheduler.schedule(() => {
        if (sameMarble(actual, expected)) return;
        throw new ReconcileMarbleError(actual, expected, values);
      }, COMPARE_AFTER);
    },
  };
}

/** How far in the future, in frames, the comparison runs: after every action a run can schedule. */
const COMPARE_AFTER = Number.MAX_SAFE_INTEGER / 4;

/** Subscribes `letters$` as `expectObservable` does (at the subscription marble's frames) and records it. */
function record(
  letters$: Observable<{ letter: string; event: ReconcileEvent }>,
  subscriptionMarble: string | undefined,
): MarbleEntry[] {
  const entries: MarbleEntry[] = [];
  const { subscribedFrame, unsubscribedFrame } = TestScheduler.parseMarblesAsSubscriptions(
    subscriptionMarble ?? null,
    true,
  );
  let subscription: Subscription | undefined;
  asyncScheduler.schedule(
    () => {
      subscription = letters$.subscribe({
        next: ({ letter, event }) => entries.push({ frame: asyncScheduler.now(), symbol: letter, event }),
        error: (error: unknown) => entries.push({ frame: asyncScheduler.now(), symbol: '#', error }),
        complete: () => entries.push({ frame: asyncScheduler.now(), symbol: '|' }),
      });
    },
    subscribedFrame === Infinity ? 0 : subscribedFrame,
  );
  if (unsubscribedFrame !== Infinity) asyncScheduler.schedule(() => subscription?.unsubscribe(), unsubscribedFrame);
  return entries;
}

/** The failure of {@link expectReconciles}: the two marbles, their legend, and every actual event behind the letters. */
class ReconcileMarbleError extends Error {
  /** The actual marble, as mocha's diff shows it. */
  readonly actual: string;
  /** The expected marble, drawn the same way. */
  readonly expected: string;
  /** Tells mocha to show `expected` and `actual` as a diff. */
  readonly showDiff = true;
  /** Every actual entry: `<ms> ms <letter> <event>`, with the event's key, attempt, delay and error. */
  readonly actualEvents: readonly string[];

  constructor(
    readonly actualEntries: readonly MarbleEntry[],
    readonly expectedEntries: readonly MarbleEntry[],
    values: Readonly<Record<string, object>>,
  ) {
    const actual = renderMarble(actualEntries);
    const expected = renderMarble(expectedEntries);
    const symbols = [...actualEntries, ...expectedEntries].map((entry) => entry.symbol);
    super(
      [
        'expectReconciles: the reconcile marbles differ',
        `  expected: ${expected}`,
        `  actual:   ${actual}`,
        `  ${firstDifference(actualEntries, expectedEntries) ?? ''}`,
        `  letters: ${legend(symbols, RECONCILE_LETTERS, values)}`,
      ].join('\n'),
    );
    this.name = 'ReconcileMarbleError';
    this.actual = actual;
    this.expected = expected;
    this.actualEvents = describeEntries(actualEntries);
  }
}

function matches(event: ReconcileEvent, pattern: ReconcileEventPattern): boolean {
  return Object.entries(pattern).every(([field, value]) =>
    deepEqual((event as unknown as Record<string, unknown>)[field], value),
  );
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(b);
  return (
    keys.length === Object.keys(a).length &&
    keys.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}
