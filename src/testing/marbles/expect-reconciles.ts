/**
 * `expectReconciles`: marble assertions over a controller's {@link ReconcileEvent}s, one letter per event kind.
 * @module
 */
import { filter, map, type Observable } from 'rxjs';
import type { RunHelpers } from 'rxjs/testing';
import type { ReconcileEvent } from '../../controller/index.js';

/**
 * The letter of each {@link ReconcileEvent} kind in a reconcile marble:
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
 * # Guarantees
 * - It is `expectObservable` over the events mapped to letters: frames are the scheduler's milliseconds, events of
 *   one frame form a group `(…)`, and a failure shows both marbles as `TestScheduler` reports them, after the run.
 * - With `values`, a letter can pin fields: `{ R: { type: 'retrying', delayMs: 10 } }`.
 *
 * # Caveats
 * - A controller that keeps requeueing never completes: end its stream (for example with `takeUntil`, `stop$` or a
 *   subscription marble) or the expected marble must not end with `|`.
 */
export function expectReconciles(
  helpers: Pick<RunHelpers, 'expectObservable'>, events$: Observable<ReconcileEvent>, options: ExpectReconcilesOptions = {},
): ReconcileExpectation {
  const { key } = options;
  const wanted = key === undefined ? undefined : typeof key === 'string' ? (k: string) => k === key : key;
  return {
    toBe(marble, values = {}) {
      const patterns = Object.entries(values);
      const redefined = new Set(Object.keys(values));
      const letters$ = events$.pipe(
        filter((event) => wanted === undefined || (event.type !== 'rejected' && wanted(event.key))),
        map((event) => {
          for (const [letter, pattern] of patterns) if (matches(event, pattern)) return letter;
          const letter = reconcileLetter(event);
          return redefined.has(letter) ? '?' : letter;
        }),
      );
      helpers.expectObservable(letters$, options.subscription).toBe(marble);
    },
  };
}

function matches(event: ReconcileEvent, pattern: ReconcileEventPattern): boolean {
  return Object.entries(pattern).every(([field, value]) => deepEqual((event as unknown as Record<string, unknown>)[field], value));
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(b);
  return keys.length === Object.keys(a).length && keys.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
