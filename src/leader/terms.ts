/**
 * The terms of one `leaderElection` Observable run one after another: what a later subscription (`repeat()`, the
 * manager's standby, a resubscription) must wait for, and what all of them share.
 */
import { BehaviorSubject, defer, filter, finalize, map, take, type Observable } from 'rxjs';
import { WallStamps } from './record.js';

/**
 * One campaign at a time per `leaderElection` Observable: a term's release runs detached from the subscriber that
 * ended it, so the next term waits for it to settle before its first request, as client-go's `Run` returns only
 * after `release`. Otherwise a late answer to the old term's read could clear the Lease the new term just took.
 *
 * # Guarantees
 * - `settled()` emits once no tracked release is in flight (at once when none is), then completes.
 * - A tracked release counts as in flight from its subscription until it ends in any way (answer, error, timeout,
 *   unsubscription).
 */
export class TermSequence {
  /** Shared by the terms, so that no term's write repeats a stamp of an earlier term's. */
  readonly stamps = new WallStamps();
  private readonly releasing = new BehaviorSubject(0);

  /** Emits (then completes) when no release of an earlier term is in flight. */
  settled(): Observable<void> {
    return this.releasing.pipe(
      filter((count) => count === 0),
      take(1),
      map(() => undefined),
    );
  }

  /** `release$`, counted as in flight while it runs. */
  track<T>(release$: Observable<T>): Observable<T> {
    return defer(() => {
      this.releasing.next(this.releasing.value + 1);
      return release$.pipe(finalize(() => this.releasing.next(this.releasing.value - 1)));
    });
  }
}
