/**
 * The replay workloads of the informer benchmark (continuous stream and scale): a cache of N objects listed from
 * pre-built pages, then M MODIFIED events written into one watch response at full speed (`stream-server.ts`), so
 * the client, not the server, sets the pace. The floor, rxkube and client-node run interleaved round by round, each
 * in its own process, against the same bytes; every run reports its sync (time, CPU, heap per object, peak RSS) and
 * its stream (time, CPU).
 */
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { forkScript, waitForOneWatch, type Child } from './processes.js';
import { summarizeProfile, type ProfileSummary } from './profile.js';

export type StreamMode = 'floor' | 'rxkube' | 'client-node';
export const streamModes: readonly StreamMode[] = ['floor', 'rxkube', 'client-node'];
export type StreamResource = 'pods' | 'configmaps';

/** One client's sync: wall and CPU time to synced, heap kept per object, peak RSS up to synced. */
export interface SyncRun {
  readonly ms: number;
  readonly cpuMs: number;
  readonly heapBytes: number;
  readonly peakRssBytes: number;
}

/** One client's run: its sync, then its stream (wall time from its first to its last MODIFIED, and its CPU time). */
export interface StreamRun {
  readonly ms: number;
  readonly cpuMs: number;
  /** Main-thread GC pauses during the stream. */
  readonly gcMs: number;
  readonly sync: SyncRun;
}

export interface StreamSize {
  readonly resource: StreamResource;
  /** Objects listed into the cache. */
  readonly count: number;
  /** MODIFIED events streamed after the sync. */
  readonly events: number;
  /** Mean bytes of JSON per list item. */
  readonly objectBytes: number;
  /** Per mode, one run per round, in round order. */
  readonly runs: ReadonlyMap<StreamMode, readonly StreamRun[]>;
  readonly errors: readonly string[];
  /** Per mode, the CPU profile of one extra, untimed run (with `profile`). */
  readonly profiles: ReadonlyMap<StreamMode, ProfileSummary>;
  /** The response headers of a list page, as read off a raw socket. */
  readonly headers: string;
  /** The load average (1 / 5 / 15 min) when the last round ended. */
  readonly loadAverage: readonly number[];
}

export interface StreamPlan {
  readonly resource: StreamResource;
  readonly count: number;
  readonly events: number;
  readonly rounds: number;
  readonly profile: boolean;
}

/** A million small objects need more than the default heap in every process. */
const BIG_HEAP = ['--max-old-space-size=8192'];

/** Syncs one client, streams every event into it, and reports both. */
async function streamOnce(
  server: Child,
  url: string,
  mode: StreamMode,
  plan: StreamPlan,
  limitMs: number,
  profile?: string,
): Promise<StreamRun> {
  const client = forkScript('client.ts', [mode, url, String(plan.count), plan.resource], BIG_HEAP);
  try {
    const synced = await client.next<{ type: 'synced' } & SyncRun>('synced', limitMs);
    await waitForOneWatch(server);
    client.send({ type: 'expect', count: plan.events, ...(profile === undefined ? {} : { profile }) });
    await client.next('armed', 30_000);
    server.send({ type: 'stream' });
    const done = await client.next<{ type: 'burst-done'; ms: number; cpuMs: number; gcMs: number }>(
      'burst-done',
      limitMs,
    );
    if (profile !== undefined) await client.next('profiled', 60_000);
    await server.next('stream-sent', limitMs);
    const { ms, cpuMs, heapBytes, peakRssBytes } = synced;
    return { ms: done.ms, cpuMs: done.cpuMs, gcMs: done.gcMs, sync: { ms, cpuMs, heapBytes, peakRssBytes } };
  } finally {
    await client.stop();
  }
}

/**
 * Runs one plan: `rounds` rounds of floor, rxkube, client-node (so load from other processes hits all three alike),
 * then, with `profile`, one more run of each under the CPU profiler (not timed).
 */
export async function runStream(plan: StreamPlan): Promise<StreamSize> {
  const { resource, count, events, rounds } = plan;
  // A phase may take a while at a million objects on a loaded machine; a stuck one still ends.
  const limitMs = Math.max(300_000, count / 2);
  const server = forkScript('stream-server.ts', [resource, String(count), String(events)], BIG_HEAP);
  const runs = new Map<StreamMode, StreamRun[]>(streamModes.map((mode) => [mode, []]));
  const errors: string[] = [];
  const label = `${resource} ${count}`;
  try {
    const ready = await server.next<{
      type: 'ready';
      url: string;
      objectBytes: number;
      buildMs: number;
      headers: string;
    }>('ready', limitMs);
    console.log(`${label}: ~${ready.objectBytes} B per item, built in ${(ready.buildMs / 1000).toFixed(1)} s`);
    for (let round = 0; round < rounds; round++) {
      for (const mode of streamModes) {
        try {
          const run = await streamOnce(server, ready.url, mode, plan, limitMs);
          runs.get(mode)!.push(run);
          console.log(
            `${label}: round ${round + 1} ${mode}: sync ${run.sync.ms.toFixed(0)} ms (${run.sync.cpuMs.toFixed(0)} ms CPU, ${run.sync.heapBytes.toFixed(0)} B/object, peak RSS ${(run.sync.peakRssBytes / 2 ** 20).toFixed(0)} MiB); stream ${run.ms.toFixed(0)} ms, ${run.cpuMs.toFixed(0)} ms CPU`,
          );
        } catch (error) {
          errors.push(`${mode}, round ${round + 1}: ${(error as Error).message}`);
        }
      }
    }
    const loadAverage = loadavg();
    const profiles = new Map<StreamMode, ProfileSummary>();
    if (plan.profile) {
      const dir = mkdtempSync(join(tmpdir(), 'rxkube-profile-'));
      for (const mode of streamModes) {
        const path = join(dir, `${mode}-${resource}-${count}.cpuprofile`);
        await streamOnce(server, ready.url, mode, plan, limitMs, path);
        const n = (x: number) => x.toLocaleString('en-US');
        profiles.set(
          mode,
          summarizeProfile(path, `${mode}, ${n(events)} MODIFIED into a ${n(count)}-object cache`, events),
        );
        console.log(`profile written to ${path}`);
      }
    }
    return {
      resource,
      count,
      events,
      objectBytes: ready.objectBytes,
      runs,
      errors,
      profiles,
      headers: ready.headers,
      loadAverage,
    };
  } finally {
    await server.stop(30_000);
  }
}

/** The continuous workload for a cache of `pods` realistic pods: as many MODIFIED events as pods. */
export function runContinuous(pods: number, rounds: number, profile: boolean): Promise<StreamSize> {
  return runStream({ resource: 'pods', count: pods, events: pods, rounds, profile });
}
