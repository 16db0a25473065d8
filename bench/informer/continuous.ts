/**
 * The continuous-stream workload of the informer benchmark: a cache of N realistic pods, then N MODIFIED events
 * written into one watch response at full speed (`stream-server.ts`), so the client, not the writer, sets the pace.
 * The floor, rxkube and client-node run interleaved round by round, each in its own process, against the same bytes.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forkScript, waitForOneWatch, type Child } from './processes.js';
import { summarizeProfile, type ProfileSummary } from './profile.js';

export type StreamMode = 'floor' | 'rxkube' | 'client-node';
export const streamModes: readonly StreamMode[] = ['floor', 'rxkube', 'client-node'];

/** One client's stream: wall time from its first to its last MODIFIED, and its own CPU time meanwhile. */
export interface StreamRun {
  readonly ms: number;
  readonly cpuMs: number;
  /** Main-thread GC pauses during the stream. */
  readonly gcMs: number;
}

export interface StreamSize {
  readonly pods: number;
  readonly podBytes: number;
  /** Per mode, one run per round, in round order. */
  readonly runs: ReadonlyMap<StreamMode, readonly StreamRun[]>;
  readonly errors: readonly string[];
  /** Per mode, the CPU profile of one extra, untimed run (with `profile`). */
  readonly profiles: ReadonlyMap<StreamMode, ProfileSummary>;
}

const PHASE_LIMIT_MS = 300_000;

/** Syncs one client, streams every event into it, and reports the stream's wall and CPU time. */
async function streamOnce(
  server: Child,
  url: string,
  mode: StreamMode,
  pods: number,
  profile?: string,
): Promise<StreamRun> {
  const client = forkScript('client.ts', [mode, url, String(pods)]);
  try {
    await client.next('synced', PHASE_LIMIT_MS);
    await waitForOneWatch(server);
    client.send({ type: 'expect', count: pods, ...(profile === undefined ? {} : { profile }) });
    await client.next('armed', 30_000);
    server.send({ type: 'stream' });
    const done = await client.next<{ type: 'burst-done'; ms: number; cpuMs: number; gcMs: number }>(
      'burst-done',
      PHASE_LIMIT_MS,
    );
    if (profile !== undefined) await client.next('profiled', 60_000);
    await server.next('stream-sent', PHASE_LIMIT_MS);
    return { ms: done.ms, cpuMs: done.cpuMs, gcMs: done.gcMs };
  } finally {
    await client.stop();
  }
}

/**
 * Runs the workload for a cache of `pods` objects: `rounds` rounds of floor, rxkube, client-node (so load from other
 * processes hits all three alike), then, with `profile`, one more run of each under the CPU profiler (not timed).
 */
export async function runContinuous(pods: number, rounds: number, profile: boolean): Promise<StreamSize> {
  const server = forkScript('stream-server.ts', [String(pods), String(pods)], ['--max-old-space-size=8192']);
  const runs = new Map<StreamMode, StreamRun[]>(streamModes.map((mode) => [mode, []]));
  const errors: string[] = [];
  try {
    const ready = await server.next<{ type: 'ready'; url: string; podBytes: number }>('ready', PHASE_LIMIT_MS);
    for (let round = 0; round < rounds; round++) {
      for (const mode of streamModes) {
        try {
          const run = await streamOnce(server, ready.url, mode, pods);
          runs.get(mode)!.push(run);
          console.log(
            `continuous ${pods}: round ${round + 1} ${mode}: ${run.ms.toFixed(0)} ms, ${run.cpuMs.toFixed(0)} ms CPU`,
          );
        } catch (error) {
          errors.push(`${mode}, round ${round + 1}: ${(error as Error).message}`);
        }
      }
    }
    const profiles = new Map<StreamMode, ProfileSummary>();
    if (profile) {
      const dir = mkdtempSync(join(tmpdir(), 'rxkube-profile-'));
      for (const mode of streamModes) {
        const path = join(dir, `${mode}-${pods}.cpuprofile`);
        await streamOnce(server, ready.url, mode, pods, path);
        profiles.set(
          mode,
          summarizeProfile(
            path,
            `${mode}, ${pods.toLocaleString('en-US')} MODIFIED into a ${pods.toLocaleString('en-US')}-object cache`,
            pods,
          ),
        );
        console.log(`profile written to ${path}`);
      }
    }
    return { pods, podBytes: ready.podBytes, runs, errors, profiles };
  } finally {
    await server.stop();
  }
}
