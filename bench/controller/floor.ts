/**
 * The benchmark floor: the smallest reasonable hand-written dedup work queue, with client-go's per-key semantics
 * (one pending, one running, a trigger while running means one more run) and nothing else: no timers, no events,
 * no retries. The reconcile operator is measured against it.
 *
 * It does the observable work any user of a queue needs and no more: dedup, one run per key at a time, and a
 * completion callback per run (the operator's equivalent is its `succeeded` event), so the comparison neither
 * flatters the floor by skipping the callback nor burdens it with the operator's timestamps and events.
 */
export class DedupQueue {
  /** While true, `add` only queues. */
  paused = false;
  private readonly queued = new Set<string>();
  private readonly running = new Set<string>();
  private readonly dirty = new Set<string>();
  private queue: string[] = [];
  private head = 0;
  private active = 0;
  private pumping = false;

  /** The last time read from `clock`, kept so that the reads cannot be optimised away. */
  lastTime = 0;

  constructor(
    private readonly concurrency: number,
    private readonly work: (key: string) => void,
    /** Called after each run, like the operator's `succeeded` event. */
    private readonly onDone: (key: string) => void,
    /**
     * When given, read where the operator reads its clock: when a key's wait starts and when a run ends. Only for the
     * reference row that shows how much of the gap to the operator is the clock; the floor itself reads none.
     */
    private readonly clock?: () => number,
  ) {}

  add(key: string): void {
    if (this.running.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    if (this.clock !== undefined) this.lastTime = this.clock();
    this.queued.add(key);
    this.queue.push(key);
    this.pump();
  }

  resume(): void {
    this.paused = false;
    this.pump();
  }

  private pump(): void {
    if (this.pumping || this.paused) return;
    this.pumping = true;
    while (this.active < this.concurrency && this.head < this.queue.length) {
      const key = this.queue[this.head++]!;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      this.queued.delete(key);
      this.running.add(key);
      this.active += 1;
      this.work(key);
      this.done(key);
    }
    this.pumping = false;
  }

  private done(key: string): void {
    if (this.clock !== undefined) this.lastTime = this.clock();
    this.running.delete(key);
    this.active -= 1;
    this.onDone(key);
    if (this.dirty.delete(key)) this.add(key);
  }
}
