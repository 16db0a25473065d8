/**
 * The plain-JS floor of the queue benchmark: the least a priority work queue in one Node thread can do. Dedup of
 * waiting keys, one run per key at a time (a trigger during a run runs the key once more after it), strict priority
 * (FIFO within one), bounded concurrency, and a callback per completed run. No aging, no fairness, no clock reads, no
 * events, no retries: what it costs is the price of the runtime, so that the gap between rxkube and
 * controller-runtime can be split into what rxkube adds and what a single JavaScript thread costs by itself.
 */
export class FloorPriorityQueue {
  /** Waiting keys → the priority of the bucket entry that is live (older entries in lower buckets are skipped). */
  private readonly waiting = new Map<string, number>();
  /** Running keys → the priority of their next run, or `undefined` when not triggered again. */
  private readonly running = new Map<string, number | undefined>();
  private readonly buckets = new Map<number, { keys: string[]; head: number }>();
  /** Priorities with a bucket, highest first. */
  private priorities: number[] = [];
  private active = 0;
  private open = false;

  constructor(
    private readonly concurrency: number,
    private readonly work: (key: string) => Promise<void>,
    private readonly onDone: (key: string) => void,
  ) {}

  add(key: string, priority: number): void {
    if (this.running.has(key)) {
      const next = this.running.get(key);
      if (next === undefined || priority > next) this.running.set(key, priority);
      return;
    }
    const queued = this.waiting.get(key);
    if (queued !== undefined && queued >= priority) return;
    this.waiting.set(key, priority);
    this.bucket(priority).keys.push(key);
    this.pump();
  }

  start(): void {
    this.open = true;
    this.pump();
  }

  private bucket(priority: number): { keys: string[]; head: number } {
    let bucket = this.buckets.get(priority);
    if (bucket === undefined) {
      bucket = { keys: [], head: 0 };
      this.buckets.set(priority, bucket);
      this.priorities = [...this.buckets.keys()].sort((a, b) => b - a);
    }
    return bucket;
  }

  private take(): string | undefined {
    for (const priority of this.priorities) {
      const bucket = this.buckets.get(priority)!;
      while (bucket.head < bucket.keys.length) {
        const key = bucket.keys[bucket.head]!;
        bucket.head += 1;
        if (this.waiting.get(key) !== priority) continue; // raised since: its live entry is in a higher bucket
        this.waiting.delete(key);
        if (bucket.head > 4_096 && bucket.head * 2 > bucket.keys.length) {
          bucket.keys = bucket.keys.slice(bucket.head);
          bucket.head = 0;
        }
        return key;
      }
    }
    return undefined;
  }

  private pump(): void {
    while (this.open && this.active < this.concurrency) {
      const key = this.take();
      if (key === undefined) return;
      this.active += 1;
      this.running.set(key, undefined);
      this.work(key).then(() => this.finish(key));
    }
  }

  private finish(key: string): void {
    this.active -= 1;
    const again = this.running.get(key);
    this.running.delete(key);
    this.onDone(key);
    if (again !== undefined) this.add(key, again);
    else this.pump();
  }
}
