/**
 * The soak's controller replicas: the replica-set example (`examples/replica-set/main.ts`) under the manager with
 * leader election, one process each, its JSON log records parsed as they come.
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { CACHE_DIGEST_ENV, CACHE_DIGEST_METRIC, CACHE_OBJECTS_METRIC } from '../examples/shared/cache-digest.js';
import type { HeapSample, RunSpan } from './checks.js';

/** A running (or finished) replica. */
export interface Replica {
  readonly identity: string;
  readonly child: ChildProcess;
  /** Its `reconciled` and `reconcile failed` records, as spans. */
  readonly spans: RunSpan[];
  /** Its metrics URL, once the manager said it. */
  metrics: string | undefined;
  leading: boolean;
  exited: boolean;
  readonly exit: Promise<void>;
  /** The last lines of its stderr that were not JSON records, for a failure's report. */
  readonly stderrTail: string[];
  /**
   * Watches the server ended cleanly (its timeout) and the informer resumed: an `informer watching` record that
   * follows another for the same informer with no listing, error or backoff between them.
   */
  watchesEndedByServer: number;
  /** The messages of its last warning and error records, for the line that says why it exited. */
  readonly lastWarnings: string[];
  /** The last informer record's message, by informer. */
  readonly informerState: Map<string, string>;
}

/** Lease timings of the replicas, ms. */
export interface LeaseTimings {
  readonly leaseDuration: number;
  readonly renewDeadline: number;
  readonly retryPeriod: number;
}

/** What the soak asks of the controller besides its Lease timings. */
export interface ReplicaSettings {
  readonly lease: LeaseTimings;
  /** The controller's expectations timeout, ms. */
  readonly expectationsTimeoutMs: number;
  /** PodSets synced at once (`--workers`). */
  readonly workers: number;
  /**
   * Where to keep the replica's output: its stderr (the JSON log records) as it comes, and its stdout (the
   * controller's printed lines) with the time each line arrived, `<time> | <line>`. Omitted: nothing is kept.
   */
  readonly logFile?: string | undefined;
}

/**
 * Starts a replica as `identity` on the cluster of `kubeconfig`, watching `namespace`; its informers leave each
 * watch's end to kube-apiserver (`--min-watch-timeout server`), and its `/metrics` serves its caches' digests.
 */
export function startReplica(
  identity: string,
  kubeconfig: string,
  namespace: string,
  { lease, expectationsTimeoutMs, workers, logFile }: ReplicaSettings,
): Replica {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'examples/replica-set/main.ts',
      '--kubeconfig',
      kubeconfig,
      '--namespace',
      namespace,
      '--identity',
      identity,
      '--workers',
      String(workers),
      '--expectations-timeout',
      String(expectationsTimeoutMs),
      '--min-watch-timeout',
      'server',
      '--metrics-bind-address',
      '127.0.0.1:0',
      '--health-probe-bind-address',
      '127.0.0.1:0',
      '--lease-duration',
      String(lease.leaseDuration),
      '--renew-deadline',
      String(lease.renewDeadline),
      '--retry-period',
      String(lease.retryPeriod),
      '--log-format',
      'json',
      '--stop-on-stdin-eof',
    ],
    {
      stdio: ['pipe', logFile === undefined ? 'ignore' : 'pipe', 'pipe'],
      env: { ...process.env, KUBECONFIG: '', [CACHE_DIGEST_ENV]: '1' },
    },
  );
  let exited!: () => void;
  const replica: Replica = {
    identity,
    child,
    spans: [],
    metrics: undefined,
    leading: false,
    exited: false,
    exit: new Promise<void>((resolve) => {
      exited = resolve;
    }),
    stderrTail: [],
    watchesEndedByServer: 0,
    informerState: new Map(),
    lastWarnings: [],
  };
  child.once('exit', () => {
    replica.exited = true;
    replica.leading = false;
    exited();
  });
  const log = logFile === undefined ? undefined : createWriteStream(logFile, { flags: 'a' });
  let pending = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      log?.write(`${line}\n`);
      readRecord(replica, line);
    }
  });
  if (log !== undefined) {
    let printed = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      printed += chunk;
      const lines = printed.split('\n');
      printed = lines.pop()!;
      const at = new Date().toISOString();
      for (const line of lines) log.write(`${at} | ${line}\n`);
    });
    child.once('close', () => log.end());
  }
  return replica;
}

function readRecord(replica: Replica, line: string): void {
  if (!line.startsWith('{')) {
    if (line.trim() === '') return;
    replica.stderrTail.push(line);
    if (replica.stderrTail.length > 20) replica.stderrTail.shift();
    return;
  }
  let record: {
    msg?: string;
    time?: string;
    key?: string;
    durationMs?: number;
    metrics?: string;
    informer?: string;
    level?: string | number;
  };
  try {
    record = JSON.parse(line) as typeof record;
  } catch {
    return;
  }
  const at = Date.parse(record.time ?? '');
  if (record.level === 'warn' || record.level === 'error' || (typeof record.level === 'number' && record.level >= 40)) {
    replica.lastWarnings.push(record.msg ?? '');
    if (replica.lastWarnings.length > 3) replica.lastWarnings.shift();
  }
  if (record.msg === 'reconciled' || record.msg === 'reconcile failed') {
    if (record.key !== undefined && typeof record.durationMs === 'number')
      replica.spans.push({ replica: replica.identity, key: record.key, start: at - record.durationMs, end: at });
  } else if (record.msg === 'manager started' && record.metrics !== undefined) {
    replica.metrics = record.metrics;
  } else if (record.informer !== undefined && record.msg?.startsWith('informer ') === true) {
    if (record.msg === 'informer watching' && replica.informerState.get(record.informer) === 'informer watching')
      replica.watchesEndedByServer++;
    if (record.msg !== 'informer synced') replica.informerState.set(record.informer, record.msg);
  } else if (record.msg === 'leading') {
    replica.leading = true;
  } else if (record.msg === 'stopped leading') {
    replica.leading = false;
  }
}

/**
 * The heap a replica uses now (`nodejs_heap_size_used_bytes` of its `/metrics`), with the full collections it has
 * run (major and incremental, of `nodejs_gc_duration_seconds_count`) when it says; undefined if it gives no heap.
 */
export async function heapUsed(replica: Replica): Promise<HeapSample | undefined> {
  if (replica.metrics === undefined || replica.exited) return undefined;
  try {
    const text = await (await fetch(replica.metrics, { signal: AbortSignal.timeout(5000) })).text();
    const match = /^nodejs_heap_size_used_bytes(?:\{[^}]*\})? (\S+)/m.exec(text);
    if (match === null) return undefined;
    const sample = { at: Date.now(), bytes: Number(match[1]), leading: replica.leading };
    const collections = [...text.matchAll(/^nodejs_gc_duration_seconds_count\{kind="(major|incremental)"\} (\S+)$/gm)];
    if (collections.length === 0) return sample;
    return { ...sample, fullCollections: collections.reduce((sum, [, , count]) => sum + Number(count), 0) };
  } catch {
    return undefined;
  }
}

/** A replica's caches as its `/metrics` digests them, by kind (`withCacheDigests`), or undefined if it does not say. */
export async function cacheDigests(
  replica: Replica,
): Promise<Map<string, { objects: number; digest: number }> | undefined> {
  if (replica.metrics === undefined || replica.exited) return undefined;
  try {
    const text = await (await fetch(replica.metrics, { signal: AbortSignal.timeout(5000) })).text();
    const found = new Map<string, { objects: number; digest: number }>();
    const pattern = new RegExp(`^(${CACHE_OBJECTS_METRIC}|${CACHE_DIGEST_METRIC})\\{([^}]*)\\} (\\S+)$`, 'gm');
    for (const [, metric, labels, value] of text.matchAll(pattern)) {
      const kind = /kind="([^"]*)"/.exec(labels!)?.[1] ?? '';
      const entry = found.get(kind) ?? { objects: Number.NaN, digest: Number.NaN };
      if (metric === CACHE_OBJECTS_METRIC) entry.objects = Number(value);
      else entry.digest = Number(value);
      found.set(kind, entry);
    }
    return found;
  } catch {
    return undefined;
  }
}

/** Stops a replica gracefully (stdin's end), then with SIGKILL after `graceMs`. */
export async function stopReplica(replica: Replica, graceMs = 10_000): Promise<void> {
  if (replica.exited) return;
  replica.child.stdin?.end();
  const timer = setTimeout(() => replica.child.kill('SIGKILL'), graceMs);
  await replica.exit;
  clearTimeout(timer);
}
