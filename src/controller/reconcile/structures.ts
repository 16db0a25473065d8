/**
 * Allocation-light containers for the reconcile queue: a FIFO ring buffer and a binary min-heap.
 * Internal; not exported from the folder index.
 */

/**
 * A growable FIFO over a power-of-two ring, so `push` and `shift` are O(1) (unlike `Array.prototype.shift`, which is
 * O(n) on large arrays).
 */
export class Ring<T> {
  private items: (T | undefined)[] = new Array<T | undefined>(16);
  private head = 0;
  private count = 0;

  get length(): number {
    return this.count;
  }

  push(item: T): void {
    if (this.count === this.items.length) this.grow();
    this.items[(this.head + this.count) & (this.items.length - 1)] = item;
    this.count += 1;
  }

  shift(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined; // release the reference for the GC
    this.head = (this.head + 1) & (this.items.length - 1);
    this.count -= 1;
    return item;
  }

  clear(): void {
    this.items = new Array<T | undefined>(16);
    this.head = 0;
    this.count = 0;
  }

  private grow(): void {
    const next = new Array<T | undefined>(this.items.length * 2);
    for (let i = 0; i < this.count; i += 1) next[i] = this.items[(this.head + i) & (this.items.length - 1)];
    this.items = next;
    this.head = 0;
  }
}

/** An entry of {@link MinHeap}: ordered by `at`, then by insertion (`seq`) so equal times stay FIFO. */
export interface HeapEntry<T> {
  readonly at: number;
  readonly seq: number;
  readonly value: T;
}

/** A binary min-heap by (`at`, `seq`): O(log n) push and pop, O(1) peek. */
export class MinHeap<T> {
  private readonly entries: HeapEntry<T>[] = [];
  private seq = 0;

  get size(): number {
    return this.entries.length;
  }

  peek(): HeapEntry<T> | undefined {
    return this.entries[0];
  }

  /** Adds `value` due at `at`; returns the entry's `seq`, which lets callers recognise stale entries later. */
  push(at: number, value: T): number {
    const entries = this.entries;
    const seq = this.seq++;
    entries.push({ at, seq, value });
    let i = entries.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(entries[i]!, entries[parent]!)) break;
      [entries[i], entries[parent]] = [entries[parent]!, entries[i]!];
      i = parent;
    }
    return seq;
  }

  pop(): HeapEntry<T> | undefined {
    const entries = this.entries;
    const top = entries[0];
    const last = entries.pop();
    if (top === undefined || last === undefined || entries.length === 0) return top;
    entries[0] = last;
    this.siftDown(0);
    return top;
  }

  /** Keeps only the entries `keep` accepts, in O(n); used to purge entries that went stale. */
  retain(keep: (entry: HeapEntry<T>) => boolean): void {
    const kept = this.entries.filter(keep);
    this.entries.length = 0;
    this.entries.push(...kept);
    for (let i = (kept.length >> 1) - 1; i >= 0; i -= 1) this.siftDown(i);
  }

  clear(): void {
    this.entries.length = 0;
  }

  private siftDown(start: number): void {
    const entries = this.entries;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < entries.length && before(entries[left]!, entries[smallest]!)) smallest = left;
      if (right < entries.length && before(entries[right]!, entries[smallest]!)) smallest = right;
      if (smallest === i) return;
      [entries[i], entries[smallest]] = [entries[smallest]!, entries[i]!];
      i = smallest;
    }
  }
}

function before<T>(a: HeapEntry<T>, b: HeapEntry<T>): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
