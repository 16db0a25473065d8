/**
 * One millisecond of work that ends as I/O ends: a sleeper thread delivers each completion as a message, at its due
 * time to within tens of microseconds, the way an HTTP response reaches a reconcile. `setTimeout(1)` instead ends
 * every run on libuv's millisecond clock, in batches, so a slot frees only at the next millisecond tick; Go's
 * `time.Sleep` has no such quantum. The benchmark runs both kinds of work, so that the queue's own latency can be
 * told apart from the timer's.
 *
 * The main thread writes each request (its id and absolute due time) into a shared ring and wakes the sleeper with
 * `Atomics.notify`; the sleeper keeps a heap of due times, sleeps with `Atomics.wait` until the earliest, and posts
 * the ids that are due (within 20 µs of each other) as one message. Every request is due 1 ms after it is made, so a
 * new request is never due before the sleeper's next wake-up: the main thread wakes the sleeper only when its heap
 * is empty (it then sleeps without a deadline).
 */
import { Worker } from 'node:worker_threads';

/** Runs in flight at once can never exceed this (the benchmark's highest concurrency is 1,000). */
const RING = 8_192;

const SLEEPER = `
const { parentPort, workerData } = require('node:worker_threads');
const header = new Int32Array(workerData.header);
const ids = new Int32Array(workerData.ids);
const dues = new Float64Array(workerData.dues);
const RING = ids.length;
const heapDue = [];
const heapId = [];
function push(due, id) {
  let i = heapDue.length;
  heapDue.push(due);
  heapId.push(id);
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heapDue[parent] <= due) break;
    heapDue[i] = heapDue[parent];
    heapId[i] = heapId[parent];
    i = parent;
  }
  heapDue[i] = due;
  heapId[i] = id;
}
function pop() {
  const top = heapId[0];
  const lastDue = heapDue.pop();
  const lastId = heapId.pop();
  const n = heapDue.length;
  if (n > 0) {
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && heapDue[child + 1] < heapDue[child]) child += 1;
      if (heapDue[child] >= lastDue) break;
      heapDue[i] = heapDue[child];
      heapId[i] = heapId[child];
      i = child;
    }
    heapDue[i] = lastDue;
    heapId[i] = lastId;
  }
  return top;
}
let read = 0;
for (;;) {
  if (Atomics.load(header, 1) === 1) break;
  let written = Atomics.load(header, 0);
  for (; read !== written; read = (read + 1) | 0) push(dues[read & (RING - 1)], ids[read & (RING - 1)]);
  const now = performance.timeOrigin + performance.now();
  const due = [];
  while (heapDue.length > 0 && heapDue[0] <= now + 0.02) due.push(pop());
  if (due.length > 0) parentPort.postMessage(due);
  if (heapDue.length > 0) {
    const wait = heapDue[0] - now;
    if (wait > 0.02) Atomics.wait(header, 0, written, wait);
  } else {
    // Idle: announce it, then look once more, so that a request written meanwhile is not slept through.
    Atomics.store(header, 2, 1);
    written = Atomics.load(header, 0);
    if (written === read) Atomics.wait(header, 0, written);
    Atomics.store(header, 2, 0);
  }
}
`;

/** The sleeper and its ring; `sleep()` resolves about `ms` later, as an I/O completion. */
export class IoWork {
  /** [requests written, stop, sleeper idle] */
  private readonly header = new Int32Array(new SharedArrayBuffer(12));
  private readonly ids = new Int32Array(new SharedArrayBuffer(RING * 4));
  private readonly dues = new Float64Array(new SharedArrayBuffer(RING * 8));
  private readonly waiting: (((value: undefined) => void) | undefined)[] = new Array(RING).fill(undefined);
  private readonly worker: Worker;
  private written = 0;

  constructor(private readonly ms = 1) {
    this.worker = new Worker(SLEEPER, {
      eval: true,
      workerData: { header: this.header.buffer, ids: this.ids.buffer, dues: this.dues.buffer },
    });
    this.worker.on('message', (due: number[]) => {
      for (const id of due) {
        const resolve = this.waiting[id]!;
        this.waiting[id] = undefined;
        resolve(undefined);
      }
    });
  }

  sleep(): Promise<void> {
    return new Promise<undefined>((resolve) => {
      const slot = this.written & (RING - 1);
      if (this.waiting[slot] !== undefined) throw new Error(`io-work: more than ${RING} sleeps in flight`);
      this.waiting[slot] = resolve;
      this.ids[slot] = slot;
      this.dues[slot] = performance.timeOrigin + performance.now() + this.ms;
      this.written = (this.written + 1) | 0;
      Atomics.store(this.header, 0, this.written);
      if (Atomics.load(this.header, 2) === 1) Atomics.notify(this.header, 0);
    }) as Promise<unknown> as Promise<void>;
  }

  async stop(): Promise<void> {
    Atomics.store(this.header, 1, 1);
    Atomics.notify(this.header, 0);
    await this.worker.terminate();
  }
}
