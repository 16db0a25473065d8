/**
 * Batches and their items: the watch stream is read in batches (the lines of one network chunk, the deltas of one
 * burst), and flattened wherever one item per emission is the contract.
 */
import { Observable } from 'rxjs';

/**
 * Emits the items of every batch `source` emits, one by one, in order.
 *
 * # Guarantees
 * - Synchronous: the items of a batch are emitted within the emission of that batch.
 * - A subscriber that unsubscribes from inside its callback gets no further item, not even the rest of the batch.
 * - Errors and completion pass through; unsubscribing unsubscribes `source`.
 */
export function eachOf<V>(source: Observable<readonly V[]>): Observable<V> {
  return new Observable<V>((subscriber) =>
    source.subscribe({
      next: (batch) => {
        for (let i = 0; i < batch.length && !subscriber.closed; i++) subscriber.next(batch[i]!);
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => subscriber.complete(),
    }),
  );
}
