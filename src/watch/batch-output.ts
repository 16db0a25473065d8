/**
 * The reflector's output: events emitted together (a relist, the lines of one chunk) leave as one batch.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ReflectorDelta } from './types.js';

/** Where the reflector's batches go: a subscriber of batches, or one that flattens them. */
export interface BatchSink<T extends KubernetesObject> {
  next(batch: readonly ReflectorDelta<T>[]): void;
  error(error: unknown): void;
}

/**
 * The reflector's output. Events emitted inside {@link BatchOutput.batch} (a relist, the lines of one chunk) leave
 * together as one batch when the outermost `batch` call returns; any other event leaves at once, as a batch of one.
 *
 * # Guarantees
 * - Order is kept: a batch holds its events in emission order, status and problems included.
 * - Nothing is held back: the batch leaves when `batch` returns, even if its body threw, and before an error.
 */
export class BatchOutput<T extends KubernetesObject> {
  private depth = 0;
  private pending: ReflectorDelta<T>[] = [];

  constructor(private readonly sink: BatchSink<T>) {}

  next(event: ReflectorDelta<T>): void {
    if (this.depth > 0) this.pending.push(event);
    else this.sink.next([event]);
  }

  /** Runs `fill`, collecting what it emits into one batch (nested calls join the outermost one). */
  batch(fill: () => void): void {
    this.depth += 1;
    try {
      fill();
    } finally {
      this.depth -= 1;
      if (this.depth === 0) this.flush();
    }
  }

  /** Errors the output, after the events collected so far. */
  error(error: unknown): void {
    this.flush();
    this.sink.error(error);
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.sink.next(batch);
  }
}
