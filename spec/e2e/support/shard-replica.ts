/**
 * One replica of a sharded controller as its own process, for the e2e spec that kills replicas:
 * `node --import tsx shard-replica.ts '<json ShardReplicaConfig>'`.
 *
 * The manager shards one ConfigMap controller of a namespace over hash ranges, each fenced by a Lease. Every
 * reconcile takes `workMs`, then records its replica, start and end in the ConfigMap (annotation
 * `e2e.rxkube.dev/last-run`). One JSON line per happening on stdout: `started`, `run-start` and `run-end` (with
 * `key`, `at`; a run aborted because its range closed ends then too), `shards` (the ranges held), `exited`; in the
 * benchmark's `throughput` mode, `count` (runs ended so far) once a second instead of the run lines. SIGTERM, or the end of stdin (the spec is gone), stops the
 * manager gracefully: it hands its ranges over, then the process exits.
 */
import { KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { defer, finalize, map, type Observable, Subject, switchMap, timer } from 'rxjs';
import { controller, manager, resourceClient, type ControllerDefinition } from '../../../src/index.js';
import { LAST_RUN, type ShardReplicaConfig } from './shard-replica-config.js';

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

const emit = (event: string, fields: Record<string, unknown> = {}): void => {
  process.stdout.write(`${JSON.stringify({ event, at: Date.now(), ...fields })}\n`);
};

const config = JSON.parse(process.argv[2] ?? '{}') as ShardReplicaConfig;
const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(config.kubeconfig);
const configMaps = resourceClient<V1ConfigMap>(kubeConfig, CONFIG_MAP, { namespace: config.namespace });

let runs = 0;
const recordRun = (key: string): Observable<unknown> => {
  const start = Date.now();
  emit('run-start', { key });
  return timer(config.workMs).pipe(
    switchMap(() => {
      const end = Date.now();
      const name = key.slice(key.indexOf('/') + 1);
      return defer(() =>
        configMaps.patch(name, {
          type: 'merge',
          body: { metadata: { annotations: { [LAST_RUN]: `${config.identity} ${start} ${end}` } } },
        }),
      );
    }),
    // Also when the run is aborted (its range closed): the span ends when the run stops.
    finalize(() => emit('run-end', { key })),
  );
};
/** Work, then run again at once: a reconcile bound by its own time, not by the API. */
const workRun = (): Observable<{ requeueAfter: number }> =>
  timer(config.workMs).pipe(
    map(() => {
      runs += 1;
      return { requeueAfter: 0 };
    }),
  );
if (config.mode === 'throughput') setInterval(() => emit('count', { runs }), 1_000);

const recorder: ControllerDefinition = {
  name: config.name,
  start: (context) =>
    controller<V1ConfigMap>({
      context,
      for: { resource: CONFIG_MAP, options: { namespace: config.namespace } },
      concurrency: config.concurrency ?? 4,
      reconcile: ({ key, object }) => {
        if (object === undefined) return undefined;
        return config.mode === 'throughput' ? workRun() : recordRun(key);
      },
    }),
};

emit('started', { identity: config.identity, pid: process.pid });
const stop$ = new Subject<void>();
let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  stop$.next();
};
manager({
  connection: kubeConfig,
  name: config.name,
  controllers: [recorder],
  sharding: {
    namespace: config.namespace,
    ranges: config.ranges,
    identity: config.identity,
    leaseDuration: config.leaseDuration,
    renewDeadline: config.renewDeadline,
    retryPeriod: config.retryPeriod,
  },
  metrics: false,
  health: false,
  signals: false,
  stop$,
}).subscribe({
  next: (event) => {
    if (event.type === 'shards') emit('shards', { open: event.state.open, members: event.state.members });
  },
  error: (error: unknown) => {
    emit('failed', { error: String(error) });
    emit('exited', { code: 1 });
    process.exit(1);
  },
  complete: () => {
    emit('exited', { code: 0 });
    process.exit(0);
  },
});
process.once('SIGTERM', stop);
// The spec holds our stdin open: if it dies, even by SIGKILL, stdin ends and so do we.
process.stdin.resume().once('end', stop);
