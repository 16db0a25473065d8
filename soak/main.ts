/**
 * `npm run soak`: the soak against a real kube-apiserver and etcd started by the project's launcher.
 *
 * Options (defaults: the full soak of issue 33): `--events 1000000`, `--objects 100000`, `--fault-rate 1` (faults
 * per minute), `--duration 40` (minutes, a bound), `--checkpoints 10`, `--seed 33`, `--write-concurrency 32`
 * (writes in flight per writer), `--expectations-timeout 15` (the controller's, s), `--min-request-timeout 60`
 * (kube-apiserver's, s: it ends the replicas' watches), `--workers 16` (each replica's PodSets synced at once),
 * `--out soak/results` (where the report's JSON and the heap plot go), `--keep-logs` (keep the replicas' logs of a
 * clean run too; those of a run with an unclean checkpoint are always kept, and their directory named). Exits 0
 * when the soak passed, 1 otherwise.
 * @module
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startControlPlane } from '../src/testing/index.js';
import type { HeapTrend } from './checks.js';
import { heapPlot } from './plot.js';
import { FULL_SOAK, runSoak, soakControlPlaneOptions } from './soak.js';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: String(FULL_SOAK.events) },
    objects: { type: 'string', default: String(FULL_SOAK.objects) },
    'fault-rate': { type: 'string', default: String(FULL_SOAK.faultRate) },
    duration: { type: 'string', default: String(FULL_SOAK.durationMs / 60_000) },
    checkpoints: { type: 'string', default: String(FULL_SOAK.checkpoints) },
    seed: { type: 'string', default: String(FULL_SOAK.seed) },
    'write-concurrency': { type: 'string', default: String(FULL_SOAK.writeConcurrency) },
    'expectations-timeout': { type: 'string', default: String(FULL_SOAK.expectationsTimeoutMs / 1000) },
    'min-request-timeout': { type: 'string', default: String(FULL_SOAK.minRequestTimeoutS) },
    workers: { type: 'string', default: String(FULL_SOAK.controllerWorkers) },
    out: { type: 'string', default: 'soak/results' },
    'keep-logs': { type: 'boolean', default: false },
  },
  strict: true,
});

const positive = (name: string, text: string): number => {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) {
    process.stderr.write(`soak: --${name} must be a number > 0, got ${JSON.stringify(text)}\n`);
    process.exit(2);
  }
  return value;
};
const options = {
  ...FULL_SOAK,
  events: Math.round(positive('events', values.events)),
  objects: Math.round(positive('objects', values.objects)),
  faultRate: positive('fault-rate', values['fault-rate']),
  durationMs: positive('duration', values.duration) * 60_000,
  checkpoints: Math.round(positive('checkpoints', values.checkpoints)),
  seed: Math.round(positive('seed', values.seed)),
  writeConcurrency: Math.round(positive('write-concurrency', values['write-concurrency'])),
  expectationsTimeoutMs: positive('expectations-timeout', values['expectations-timeout']) * 1000,
  minRequestTimeoutS: Math.round(positive('min-request-timeout', values['min-request-timeout'])),
  controllerWorkers: Math.round(positive('workers', values.workers)),
  keepLogs: values['keep-logs'],
  log: (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`),
};

/** The heap fit in one phrase: its slope, the leader step if the readings had both roles, and the verdict. */
function heapSummary(heap: HeapTrend): string {
  const step = heap.leaderStep === 0 ? '' : `, leading +${(heap.leaderStep / 2 ** 20).toFixed(1)} MiB`;
  return `${Math.round(heap.slopePerMinute)} ± ${Math.round(heap.standardError)} B/min${step} (${heap.flat ? 'flat' : 'NOT flat'})`;
}

const controlPlane = await startControlPlane(soakControlPlaneOptions(options));
options.log(`control plane ${controlPlane.url} ready in ${controlPlane.startMs} ms`);
let passed = false;
try {
  const report = await runSoak(controlPlane, options).catch((error: unknown) => {
    // A soak that cannot go on (kube-apiserver gone for good, the server unreadable at a checkpoint) has failed:
    // said in one line, not as an unhandled rejection.
    options.log(`soak failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    return undefined;
  });
  if (report !== undefined) {
    mkdirSync(values.out, { recursive: true });
    writeFileSync(join(values.out, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(values.out, 'heap.svg'), heapPlot(report.heapSamples, report.heap, report.heapTroughs));
    options.log(
      `done: ${report.events} events (${report.failedEvents} failed) in ${Math.round(report.durationMs / 1000)} s; ` +
        `faults ${JSON.stringify(report.faults)}; counters ${JSON.stringify(report.counters)}; ` +
        `heap slope ${report.heap === undefined ? 'n/a' : heapSummary(report.heap)}; ` +
        `${report.passed ? 'PASSED' : 'FAILED'}`,
    );
    passed = report.passed;
  }
} finally {
  await controlPlane.stop();
}
process.exit(passed ? 0 : 1);
