/**
 * One controller, three places: a `ControllerDefinition` written once against its `ControllerContext` runs
 * unchanged under the manager, alone with `startController`, and in tests with `runController` and `simulate`; and
 * `startController`'s own guarantees.
 */
import { expect } from 'chai';
import * as fc from 'fast-check';
import type { KubernetesObject, V1ConfigMap } from '@kubernetes/client-node';
import { concat, EMPTY, map, NEVER, timer, type Subscription } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import {
  controller,
  manager,
  startController,
  type ControllerDefinition,
  type ReconcileEvent,
} from '../../../src/index.js';
import { runController, simulate, virtualCluster, type VirtualCluster } from '../../../src/testing/index.js';

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const EVENT = { apiVersion: 'events.k8s.io/v1', kind: 'Event' } as const;
const configMap = (name: string): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
});

/** Labels every ConfigMap `stamped=true` and records an Event saying so: only what its context gives it. */
const stamper: ControllerDefinition = {
  name: 'stamper',
  start: (context) => {
    const client = context.client<V1ConfigMap>(CONFIG_MAP, { namespace: 'default', fieldManager: 'stamper' });
    return controller<V1ConfigMap>({
      context,
      for: { resource: CONFIG_MAP, options: { namespace: 'default' } },
      reconcile: ({ object, signal }) =>
        object === undefined || object.metadata?.labels?.stamped === 'true'
          ? undefined
          : client
              .mutate(object, (draft) => void ((draft.metadata!.labels ??= {}).stamped = 'true'), { signal })
              .pipe(
                map((written) => {
                  context.recorder?.event(written, { type: 'Normal', reason: 'Stamped', action: 'Stamp' });
                }),
              ),
    });
  },
};

/** Runs `body` in virtual time; the cluster is closed after the flush. */
function inVirtualTime(body: (cluster: VirtualCluster, scheduler: TestScheduler) => void): void {
  const scheduler = new TestScheduler((actual, expected) => void expect(actual).to.deep.equal(expected));
  scheduler.run(({ flush }) => {
    const cluster = virtualCluster({ scheduler, seed: 3 });
    body(cluster, scheduler);
    flush();
    cluster.close();
  });
}

const stamped = (cluster: VirtualCluster): string[] =>
  cluster
    .list(CONFIG_MAP, 'default')
    .filter((c) => c.metadata?.labels?.stamped === 'true')
    .map((c) => c.metadata!.name!)
    .sort();
const reasons = (cluster: VirtualCluster): string[] =>
  (cluster.list(EVENT, 'default') as Array<KubernetesObject & { reason?: string }>).map((e) => e.reason!);

describe('one controller, three places', () => {
  it('runs the same definition alone with startController: informers, client and recorder from its context', () => {
    let cluster!: VirtualCluster;
    inVirtualTime((c, scheduler) => {
      cluster = c;
      cluster.seed([configMap('a'), configMap('b')]);
      startController(stamper, { connection: cluster, scheduler, stop$: timer(5000, scheduler) }).subscribe();
    });
    expect(stamped(cluster)).to.deep.equal(['a', 'b']);
    expect(reasons(cluster)).to.deep.equal(['Stamped', 'Stamped']);
  });

  it('runs the same definition under the manager, which gives it its shared informers, leadership and recorder', () => {
    let cluster!: VirtualCluster;
    inVirtualTime((c, scheduler) => {
      cluster = c;
      cluster.seed([configMap('a'), configMap('b')]);
      manager({
        connection: cluster,
        name: 'stamping',
        controllers: [stamper],
        scheduler,
        random: () => 0.5,
        leaderElection: { namespace: 'default', identity: 'me' },
        metrics: false,
        health: false,
        signals: false,
        logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
        stop$: timer(20_000, scheduler),
      }).subscribe();
    });
    expect(stamped(cluster)).to.deep.equal(['a', 'b']);
    expect(reasons(cluster)).to.deep.equal(['Stamped', 'Stamped']);
  });

  it('runs the same definition under runController, and under simulate with random workloads and faults', () => {
    let cluster!: VirtualCluster;
    const scheduler = new TestScheduler((actual, expected) => void expect(actual).to.deep.equal(expected));
    scheduler.run(() => {
      cluster = runController(stamper, { scheduler, until: 5000, objects: [configMap('a'), configMap('b')] }).cluster;
    });
    expect(stamped(cluster)).to.deep.equal(['a', 'b']);
    expect(reasons(cluster)).to.deep.equal(['Stamped', 'Stamped']);
    const report = simulate(stamper, {
      seed: 4,
      runs: 3,
      duration: 60_000,
      settle: 60_000,
      workload: {
        resource: CONFIG_MAP,
        step: fc.constantFrom('a', 'b', 'c').map((name) => ({ op: 'create' as const, object: configMap(name) })),
        maxSteps: 5,
      },
      faults: { kinds: ['conflict', 'dropWatches'], max: 3 },
      invariants: {
        desired: (world) =>
          world.server(CONFIG_MAP, 'default').every((c) => c.metadata?.labels?.stamped === 'true') || 'unstamped',
      },
      caches: ({ informers }) => [
        { resource: CONFIG_MAP, namespace: 'default', informer: informers.for(CONFIG_MAP, { namespace: 'default' }) },
      ],
    });
    expect(report.failure?.message).to.equal(undefined);
  });
});

describe('startController', () => {
  it('completes after stop$ once the runs in flight have drained and its Events are written', () => {
    const log: string[] = [];
    let cluster!: VirtualCluster;
    inVirtualTime((c, scheduler) => {
      cluster = c;
      cluster.seed([configMap('a')]);
      // Answers take 50 ms, so the Event is still being written when the controller has drained.
      cluster.faults.latency(50);
      startController(stamper, { connection: cluster, scheduler, stop$: timer(120, scheduler) }).subscribe({
        next: (event: ReconcileEvent) => log.push(`${scheduler.now()} ${event.type}`),
        complete: () => log.push(`${scheduler.now()} complete, ${reasons(cluster).length} Event`),
      });
    });
    // Drained at 120 ms: the Event its run's write asked for is written at 150 ms, then the stream completes. The
    // echo of its own label write does not run it again (own-write filtering).
    expect(log).to.deep.equal(['50 started', '100 succeeded', '150 complete, 1 Event']);
  });

  it('hands an Event the recorder refuses to onError, and gives the controller an open gate and its own name', () => {
    const reported: string[] = [];
    let name = '';
    inVirtualTime((cluster, scheduler) => {
      const refused: ControllerDefinition = {
        name: 'refuser',
        start: (context) => {
          name = context.name;
          context.recorder?.event(
            { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', namespace: 'default' },
            { type: 'Sideways' as 'Normal', reason: 'Odd', action: 'Look' },
          );
          return context.gate.pipe(map(() => undefined as never));
        },
      };
      startController(refused, { connection: cluster, scheduler, onError: (error) => reported.push(error.message) })
        .subscribe()
        .unsubscribe();
    });
    expect(name).to.equal('refuser');
    expect(reported).to.have.length(1);
    expect(reported[0]).to.match(/^event rejected: .*Sideways/);
  });

  it('runs context.reconcile(fn) without options, with the host\u2019s gate, stop and scheduler', () => {
    const log: string[] = [];
    inVirtualTime((cluster, scheduler) => {
      const keysOnly: ControllerDefinition = {
        name: 'keys-only',
        start: (context) =>
          concat(timer(10, context.scheduler).pipe(map(() => 'default/a')), NEVER).pipe(
            context.reconcile(({ key }) => void log.push(`${scheduler.now()} ran ${key}`)),
          ),
      };
      startController(keysOnly, {
        connection: cluster,
        scheduler,
        stop$: timer(20, scheduler),
        events: false,
      }).subscribe({
        next: (event: ReconcileEvent) => log.push(`${event.time} ${event.type}`),
        error: (error: unknown) => log.push(`error ${String(error)}`),
        complete: () => log.push(`${scheduler.now()} complete`),
      });
    });
    expect(log).to.deep.equal(['10 started', '10 ran default/a', '10 succeeded', '20 complete']);
  });

  it('stops at once on unsubscribe, and builds a fresh context for each subscription', () => {
    let starts = 0;
    const subscriptions: Subscription[] = [];
    inVirtualTime((cluster, scheduler) => {
      const counted: ControllerDefinition = {
        name: 'counted',
        start: () => {
          starts += 1;
          return NEVER;
        },
      };
      const run$ = startController(counted, { connection: cluster, scheduler });
      subscriptions.push(run$.subscribe(), run$.subscribe());
      for (const subscription of subscriptions) subscription.unsubscribe();
    });
    expect(starts).to.equal(2);
    expect(subscriptions.every((s) => s.closed)).to.equal(true);
  });

  it('refuses bad input when it is called, naming what is wrong', () => {
    const cluster = virtualCluster({ scheduler: new TestScheduler(() => undefined) });
    const idle: ControllerDefinition = { name: 'idle', start: () => EMPTY };
    expect(() => startController(idle, {} as never)).to.throw(
      TypeError,
      'startController: options.connection (a KubeConfig or a Transport) is required',
    );
    expect(() => startController({ name: 'x' } as never, { connection: cluster })).to.throw(
      TypeError,
      /^startController: the controller must be \{ name, start\(context\) \}/,
    );
    expect(() => startController({ name: '', start: () => EMPTY }, { connection: cluster })).to.throw(
      TypeError,
      /the controller's name must be a non-empty string/,
    );
    expect(() =>
      startController({ name: 'not a qualified name', start: () => EMPTY }, { connection: cluster }),
    ).to.throw(
      TypeError,
      /^startController: the controller's name "not a qualified name" is the reportingController of its Events, and .*; give it a qualified name/,
    );
    expect(() =>
      startController({ name: 'not a qualified name', start: () => EMPTY }, { connection: cluster, events: false }),
    ).to.not.throw();
    expect(() => startController(idle, { connection: cluster, drainTimeout: -1 })).to.throw(
      RangeError,
      'startController: drainTimeout must be a finite number of ms >= 0, got -1',
    );
    cluster.close();
  });
});
