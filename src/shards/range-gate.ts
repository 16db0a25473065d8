/**
 * The per-key gate of a sharded controller: open for the keys of the ranges this replica holds, and the count of
 * runs in flight per range that a handover waits for before it releases the range's Lease.
 */
import { BehaviorSubject, filter, map, Subject, take, type Observable } from 'rxjs';
import type { KeyGate } from 'rxkube';
import type { ReconcileMetrics } from '../controller/index.js';

/**
 * A `KeyGate` (from `rxkube`) over a set of open ranges, and the runs in flight per range.
 *
 * # Guarantees
 * - `isOpen(key)` is true only while `rangeOf(key)` is one of the ranges last given to `setOpen`.
 * - `setOpen` emits on `changed$` synchronously, so a reconcile operator aborts the runs of the ranges that closed
 *   before `setOpen` returns.
 * - `metrics` counts the runs in flight of every operator it is given to, by the range their key was in when they
 *   started; `drained(range)` emits once none is (at once when none is).
 */
export class RangeGate implements KeyGate {
  private open: ReadonlySet<number> = new Set();
  private readonly changed = new Subject<string | undefined>();
  readonly changed$: Observable<unknown> = this.changed.asObservable();
  /** Runs in flight per key: the range they started in, and how many (two operators may run one key). */
  private readonly running = new Map<string, { readonly range: number; count: number }>();
  private readonly counts: BehaviorSubject<readonly number[]>;
  /** The hook to give every reconcile operator of the controller. */
  readonly metrics: ReconcileMetrics;

  constructor(
    private readonly rangeOf: (key: string) => number | undefined,
    ranges: number,
  ) {
    this.counts = new BehaviorSubject<readonly number[]>(new Array<number>(ranges).fill(0));
    this.metrics = {
      started: (key) => this.started(key),
      done: (key) => this.done(key),
    };
  }

  isOpen(key: string): boolean {
    const range = this.rangeOf(key);
    return range !== undefined && this.open.has(range);
  }

  /** `key` may lie in another range now (its object appeared in the primary cache): asks the operators again. */
  keyChanged(key: string): void {
    if (this.isOpen(key)) this.changed.next(key);
  }

  /** The ranges this replica may run now. */
  setOpen(ranges: readonly number[]): void {
    const next = new Set(ranges);
    if (next.size === this.open.size && [...next].every((range) => this.open.has(range))) return;
    this.open = next;
    this.changed.next(undefined);
  }

  /** Runs in flight per range. */
  inFlight(): readonly number[] {
    return this.counts.value;
  }

  /** Emits once no run of a key of `range` is in flight, then completes. */
  drained(range: number): Observable<void> {
    return this.counts.pipe(
      filter((counts) => (counts[range] ?? 0) === 0),
      take(1),
      map(() => undefined),
    );
  }

  private started(key: string): void {
    const entry = this.running.get(key);
    if (entry !== undefined) {
      entry.count += 1;
      this.add(entry.range, 1);
      return;
    }
    const range = this.rangeOf(key);
    if (range === undefined) return;
    this.running.set(key, { range, count: 1 });
    this.add(range, 1);
  }

  private done(key: string): void {
    const entry = this.running.get(key);
    if (entry === undefined) return;
    entry.count -= 1;
    if (entry.count === 0) this.running.delete(key);
    this.add(entry.range, -1);
  }

  private add(range: number, by: number): void {
    const counts = [...this.counts.value];
    counts[range] = (counts[range] ?? 0) + by;
    this.counts.next(counts);
  }
}
