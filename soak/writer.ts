/**
 * The soak's writer, a process of its own (forked with an IPC channel): creates, updates and deletes PodSets, and
 * increments the counter annotation of the shared counter PodSets through `mutate`, tallying each increment as
 * succeeded or of unknown outcome. The orchestrator pauses it at each checkpoint.
 *
 * Arguments: JSON of {@link WriterConfig}.
 * @module
 */
import { KubeConfig, type V1Pod } from '@kubernetes/client-node';
import { firstValueFrom } from 'rxjs';
import { ApiError, apiErrors, resourceClient } from '../src/index.js';
import { POD, PODSET, type PodSet } from '../examples/replica-set/podset.js';
import { podSet } from '../examples/replica-set/scenarios.js';
import type { CounterTally } from './checks.js';

/** What the orchestrator tells a writer. */
export interface WriterConfig {
  readonly kubeconfig: string;
  readonly namespace: string;
  /** This writer's index; it churns the objects whose index modulo `writers` is its own. */
  readonly index: number;
  readonly writers: number;
  readonly objects: number;
  readonly events: number;
  readonly counters: readonly string[];
  /** Share of events that are counter increments. */
  readonly counterShare: number;
  readonly concurrency: number;
  readonly seed: number;
  readonly writeTimeoutMs: number;
}

/** Messages from the orchestrator. */
export type ToWriter = { readonly type: 'pause' } | { readonly type: 'resume' } | { readonly type: 'stop' };
/** Messages to the orchestrator. */
export type FromWriter =
  | {
      readonly type: 'paused' | 'done';
      readonly events: number;
      readonly failed: number;
      readonly tallies: Record<string, CounterTally>;
    }
  | { readonly type: 'started' }
  /** Every {@link PROGRESS_EVERY_MS} while writing: events finished so far, and time spent per kind of write. */
  | { readonly type: 'progress'; readonly events: number; readonly failed: number; readonly kinds: KindTimes };

/** Per kind of event (`create`, `update`, `delete`, `increment`): how many finished and their summed duration, ms. */
export type KindTimes = Record<string, { readonly count: number; readonly totalMs: number }>;

/** How often a writer reports its progress, ms. */
export const PROGRESS_EVERY_MS = 2_000;

/** The annotation the writers increment. */
export const COUNTER_ANNOTATION = 'soak.rxkube.io/counter';

/** mulberry32: a small seeded generator, so a run's draws repeat with its seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A failure whose write may have been applied: no definite answer came back. */
export function outcomeUnknown(error: unknown): boolean {
  if (error instanceof ApiError) return apiErrors.isServerError(error);
  return true;
}

async function main(config: WriterConfig): Promise<void> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(config.kubeconfig);
  const podSets = resourceClient<PodSet>(kubeConfig, PODSET, {
    namespace: config.namespace,
    fieldManager: `soak-writer-${config.index}`,
    writeTimeout: config.writeTimeoutMs,
  });
  const pods = resourceClient<V1Pod>(kubeConfig, POD, {
    namespace: config.namespace,
    writeTimeout: config.writeTimeoutMs,
  });
  const random = seeded(config.seed);
  const tallies: Record<string, CounterTally> = {};
  for (const name of config.counters) tallies[name] = { succeeded: 0, unknown: 0 };
  const mine = Array.from({ length: config.objects }, (_, i) => i).filter((i) => i % config.writers === config.index);
  const exists = new Map<number, boolean>();
  let started = 0;
  let finished = 0;
  let failed = 0;
  let paused: { resume: Promise<void>; release: () => void } | undefined;
  let stopping = false;
  const kinds: Record<string, { count: number; totalMs: number }> = {};
  const timed = async <R>(kind: string, work: Promise<R>): Promise<R> => {
    const start = performance.now();
    try {
      return await work;
    } finally {
      const k = (kinds[kind] ??= { count: 0, totalMs: 0 });
      k.count++;
      k.totalMs += performance.now() - start;
    }
  };

  /** PodSets of this writer with a write in flight: at most one write per object at a time. */
  const busy = new Set<number>();
  /** Counter increments in flight per counter: this writer races the other one, not itself. */
  const incrementing = new Set<string>();

  /** The next event to write, its object marked busy; `undefined` when every object it drew is busy. */
  const draw = (): { readonly counter: string } | { readonly index: number } | undefined => {
    if (random() < config.counterShare) {
      const free = config.counters.filter((name) => !incrementing.has(name));
      if (free.length > 0) {
        const counter = free[Math.floor(random() * free.length)]!;
        incrementing.add(counter);
        return { counter };
      }
    }
    for (let attempt = 0; attempt < 8; attempt++) {
      const index = mine[Math.floor(random() * mine.length)]!;
      if (busy.has(index)) continue;
      busy.add(index);
      return { index };
    }
    return undefined;
  };

  const increment = async (name: string): Promise<void> => {
    try {
      await timed(
        'increment',
        firstValueFrom(
          podSets.mutate(name, (draft) => {
            const annotations = (draft.metadata!.annotations ??= {});
            annotations[COUNTER_ANNOTATION] = String(Number(annotations[COUNTER_ANNOTATION] ?? '0') + 1);
          }),
        ),
      );
      tallies[name] = { ...tallies[name]!, succeeded: tallies[name]!.succeeded + 1 };
    } catch (error) {
      failed++;
      if (outcomeUnknown(error)) tallies[name] = { ...tallies[name]!, unknown: tallies[name]!.unknown + 1 };
    } finally {
      incrementing.delete(name);
    }
  };

  const churn = async (index: number): Promise<void> => {
    const name = `ps-${index}`;
    const replicas = Math.floor(random() * 3);
    try {
      if (exists.get(index) !== true) {
        await timed('create', firstValueFrom(podSets.create(podSet(name, replicas))));
        exists.set(index, true);
      } else if (random() < 0.7) {
        await timed(
          'update',
          firstValueFrom(
            podSets.mutate(name, (draft) => {
              draft.spec!.replicas = replicas;
            }),
          ),
        );
      } else {
        await timed('delete', firstValueFrom(podSets.delete(name)));
        exists.set(index, false);
        // The garbage collector's part (this control plane runs no kube-controller-manager): without it the
        // deleted PodSets' Pods would pile up, and the heap would grow with them, not with a leak.
        await timed('delete-pods', firstValueFrom(pods.deleteCollection({ labelSelector: `app=${name}` }))).catch(
          () => undefined,
        );
      }
    } catch (error) {
      failed++;
      // What the writer believed is unsure now: an AlreadyExists or NotFound tells, anything else is asked.
      if (apiErrors.isAlreadyExists(error)) exists.set(index, true);
      else if (apiErrors.isNotFound(error)) exists.set(index, false);
      else exists.delete(index);
      if (!exists.has(index)) {
        await firstValueFrom(podSets.get(name)).then(
          () => exists.set(index, true),
          (e: unknown) => apiErrors.isNotFound(e) && exists.set(index, false),
        );
      }
    } finally {
      busy.delete(index);
    }
  };

  /** Frees a slot once any event in flight finishes, for a worker whose every draw was busy. */
  let anyFinished: { promise: Promise<void>; resolve: () => void } | undefined;
  const finishedOne = (): void => {
    anyFinished?.resolve();
    anyFinished = undefined;
  };

  // `concurrency` workers, each one write at a time: up to `concurrency` writes in flight, never two on one PodSet.
  const worker = async (): Promise<void> => {
    while (!stopping && started < config.events) {
      if (paused !== undefined) {
        await paused.resume;
        continue;
      }
      const event = draw();
      if (event === undefined) {
        anyFinished ??= (() => {
          let resolve!: () => void;
          const promise = new Promise<void>((r) => (resolve = r));
          return { promise, resolve };
        })();
        await anyFinished.promise;
        continue;
      }
      started++;
      await ('counter' in event ? increment(event.counter) : churn(event.index));
      finished++;
      finishedOne();
    }
  };

  process.on('message', (message: ToWriter) => {
    if (message.type === 'pause') {
      let release!: () => void;
      const resume = new Promise<void>((resolve) => {
        release = resolve;
      });
      paused ??= { resume, release };
      // Wait for the events in flight, so that the checkpoint sees a quiet writer.
      const settle = (): void => {
        if (started === finished)
          process.send!({ type: 'paused', events: finished, failed, tallies } satisfies FromWriter);
        else setTimeout(settle, 20);
      };
      settle();
    } else if (message.type === 'resume') {
      const current = paused;
      paused = undefined;
      current?.release();
    } else {
      stopping = true;
      const current = paused;
      paused = undefined;
      current?.release();
    }
  });
  process.send!({ type: 'started' } satisfies FromWriter);
  const progress = setInterval(
    () => process.send!({ type: 'progress', events: finished, failed, kinds } satisfies FromWriter),
    PROGRESS_EVERY_MS,
  );
  await Promise.all(Array.from({ length: config.concurrency }, () => worker()));
  clearInterval(progress);
  process.send!({ type: 'progress', events: finished, failed, kinds } satisfies FromWriter);
  process.send!({ type: 'done', events: finished, failed, tallies } satisfies FromWriter);
  process.disconnect();
}

if (process.send !== undefined) {
  // Stop with the orchestrator: a lost IPC channel means it is gone.
  process.on('disconnect', () => process.exit(0));
  await main(JSON.parse(process.argv[2]!) as WriterConfig);
}
