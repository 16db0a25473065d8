/**
 * Replica processes of a sharded controller (`shard-replica.ts`) for the e2e spec and the sharding benchmark: start
 * one, read its JSON lines, and tell from them which ranges it runs and whether two replicas ever ran a key at once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ShardReplicaConfig } from './shard-replica-config.js';

const here = dirname(fileURLToPath(import.meta.url));

/** One JSON line a replica wrote. */
export interface ReplicaLine {
  readonly event: string;
  readonly at: number;
  readonly key?: string;
  readonly open?: readonly number[];
  readonly members?: readonly string[];
  readonly runs?: number;
}

export interface Replica {
  readonly identity: string;
  readonly lines: ReplicaLine[];
  readonly exited: Promise<void>;
  exitedAt: number | undefined;
  readonly child: ChildProcess;
  stderr: string;
}

/** Starts a replica; its stdin stays open as a lifeline (if this process dies, the replica stops). */
export function startReplica(config: ShardReplicaConfig): Replica {
  const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'shard-replica.ts'), JSON.stringify(config)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const replica: Replica = {
    identity: config.identity,
    lines: [],
    exitedAt: undefined,
    child,
    stderr: '',
    exited: new Promise((resolve) =>
      child.once('exit', () => {
        replica.exitedAt = Date.now();
        resolve();
      }),
    ),
  };
  let pending = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const complete = pending.split('\n');
    pending = complete.pop()!;
    for (const line of complete) if (line.trim().startsWith('{')) replica.lines.push(JSON.parse(line) as ReplicaLine);
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    replica.stderr = (replica.stderr + chunk).slice(-20_000);
  });
  return replica;
}

/** The ranges a replica runs now: its last `shards` line, none once it exited. */
export const openRanges = (replica: Replica): readonly number[] =>
  replica.exitedAt !== undefined ? [] : (replica.lines.findLast((l) => l.event === 'shards')?.open ?? []);

/** Every run of every replica as [start, end) per key; a run a kill cut short ends when the process was seen dead. */
export function runsByKey(replicas: readonly Replica[]): Map<string, { who: string; start: number; end: number }[]> {
  const byKey = new Map<string, { who: string; start: number; end: number }[]>();
  for (const replica of replicas) {
    const open = new Map<string, number>();
    const add = (key: string, start: number, end: number): void => {
      byKey.set(key, [...(byKey.get(key) ?? []), { who: replica.identity, start, end }]);
    };
    for (const line of replica.lines) {
      if (line.event === 'run-start') open.set(line.key!, line.at);
      else if (line.event === 'run-end' && open.has(line.key!)) {
        add(line.key!, open.get(line.key!)!, line.at);
        open.delete(line.key!);
      }
    }
    for (const [key, start] of open) add(key, start, replica.exitedAt ?? Number.POSITIVE_INFINITY);
  }
  return byKey;
}

/** Pairs of runs of one key by two replicas that overlap in time. */
export function overlaps(replicas: readonly Replica[]): string[] {
  const found: string[] = [];
  for (const [key, runs] of runsByKey(replicas)) {
    const sorted = [...runs].sort((a, b) => a.start - b.start);
    for (let i = 0; i < sorted.length; i++)
      for (let j = i + 1; j < sorted.length && sorted[j]!.start < sorted[i]!.end; j++)
        if (sorted[j]!.who !== sorted[i]!.who)
          found.push(
            `${key}: ${sorted[i]!.who} [${sorted[i]!.start}, ${sorted[i]!.end}) and ${sorted[j]!.who} from ${sorted[j]!.start}`,
          );
  }
  return found;
}
