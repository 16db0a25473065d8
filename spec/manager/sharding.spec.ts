/**
 * The manager's sharding, in virtual time on one virtual cluster: replicas of one manager split a controller's keys
 * by hash range, each range fenced by a Lease, and a key never runs on two replicas at once.
 */
import { expect } from 'chai';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { Subject, timer, map, type Subscription } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { Registry } from 'prom-client';
import { controller, manager, type ControllerDefinition, type Informer, type ManagerEvent } from '../../src/index.js';
import { virtualCluster, type VirtualCluster } from '../../src/testing/index.js';
import { recordingLogger } from '../../examples/shared/virtual-time.js';
import { silentLogger } from '../../src/manager/index.js';
import { ManagerShards } from '../../src/manager/sharding.js';

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const names = Array.from({ length: 24 }, (_, i) => `cm-${i}`);
const configMap = (name: string, namespace = 'default'): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
});

interface Span {
  readonly key: string;
  readonly who: string;
  readonly start: number;
  end: number;
}

/**
 * Reconciles every ConfigMap in 300 ms, recording each run as a span; runs end at once when aborted. With `caches`,
 * it builds its primary with `context.shards.informer` itself and keeps it there under `who`.
 */
function recorder(
  who: string,
  scheduler: TestScheduler,
  spans: Span[],
  caches?: Map<string, Informer<V1ConfigMap>>,
): ControllerDefinition {
  return {
    name: 'configmaps',
    start: (context) =>
      controller<V1ConfigMap>({
        context,
        for:
          caches === undefined
            ? { resource: CONFIG_MAP }
            : (() => {
                const primary = context.shards!.informer!<V1ConfigMap>(CONFIG_MAP);
                caches.set(who, primary);
                return primary;
              })(),
        reconcile: ({ key, signal }) => {
          const span: Span = { key, who, start: scheduler.now(), end: Number.POSITIVE_INFINITY };
          spans.push(span);
          signal.addEventListener('abort', () => {
            if (span.end === Number.POSITIVE_INFINITY) span.end = scheduler.now();
          });
          return timer(300, scheduler).pipe(
            map(() => {
              if (span.end === Number.POSITIVE_INFINITY) span.end = scheduler.now();
              return { requeueAfter: 2_000 };
            }),
          );
        },
      }),
  };
}

interface Replica {
  readonly events: ManagerEvent[];
  readonly stop$: Subject<void>;
  subscription: Subscription;
}

function startReplica(
  scheduler: TestScheduler,
  cluster: VirtualCluster,
  who: string,
  spans: Span[],
  hash: 'uid' | 'namespace' = 'uid',
  caches?: Map<string, Informer<V1ConfigMap>>,
  registry?: Registry,
): Replica {
  const events: ManagerEvent[] = [];
  const stop$ = new Subject<void>();
  const subscription = manager({
    connection: cluster.link({ latency: 5 }),
    name: 'cms',
    controllers: [recorder(who, scheduler, spans, caches)],
    sharding: { namespace: 'default', ranges: 8, identity: who, hash },
    metrics: registry === undefined ? false : { registry, serve: false, processMetrics: false },
    health: false,
    signals: false,
    events: false,
    logger: recordingLogger(scheduler),
    scheduler,
    random: () => 0.5,
    stop$,
  }).subscribe({ next: (event) => events.push(event) });
  return { events, stop$, subscription };
}

function expectNoOverlap(spans: readonly Span[]): void {
  const byKey = new Map<string, Span[]>();
  for (const span of spans) byKey.set(span.key, [...(byKey.get(span.key) ?? []), span]);
  for (const [key, list] of byKey) {
    const ordered = [...list].sort((a, b) => a.start - b.start);
    for (let i = 1; i < ordered.length; i++)
      expect(
        ordered[i]!.start,
        `${key}: ${ordered[i]!.who} started while ${ordered[i - 1]!.who} ran it`,
      ).to.be.at.least(ordered[i - 1]!.end);
  }
}

/** The ranges each replica last said it runs. */
function openRanges(replica: Replica): readonly number[] {
  const last = replica.events.filter((e) => e.type === 'shards').at(-1);
  return last?.type === 'shards' ? last.state.open : [];
}

function inVirtualTime(body: (cluster: VirtualCluster, scheduler: TestScheduler) => void, sharded = false): void {
  const scheduler = new TestScheduler((actual, expected) => void expect(actual).to.deep.equal(expected));
  scheduler.run(({ flush }) => {
    const cluster = virtualCluster({
      scheduler,
      seed: 7,
      ...(sharded ? { featureGates: { ShardedListAndWatch: true } } : {}),
    });
    body(cluster, scheduler);
    flush();
    cluster.close();
  });
}

describe('manager: sharding', () => {
  it('splits the ranges among three replicas and runs each ConfigMap on the replica that holds its range', () => {
    const spans: Span[] = [];
    inVirtualTime((cluster, scheduler) => {
      cluster.seed(names.map((name) => configMap(name)));
      const replicas = ['a', 'b', 'c'].map((who) => startReplica(scheduler, cluster, who, spans));
      scheduler.schedule(() => {
        const open = replicas.map(openRanges);
        expect(open.flat().sort((x, y) => x - y)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7]);
        for (const ranges of open) expect(ranges.length).to.be.within(2, 3);
        // In the last 10 s every key ran, and only on one replica.
        const recent = spans.filter((span) => span.start >= 50_000);
        expect(new Set(recent.map((span) => span.key)).size).to.equal(names.length);
        for (const key of new Set(recent.map((span) => span.key)))
          expect(new Set(recent.filter((s) => s.key === key).map((s) => s.who)).size, key).to.equal(1);
        expectNoOverlap(spans);
        for (const replica of replicas) replica.subscription.unsubscribe();
      }, 60_000);
    });
  });

  it('hands the ranges of a replica that stops gracefully to the others, and completes only once they are released', () => {
    const spans: Span[] = [];
    inVirtualTime((cluster, scheduler) => {
      cluster.seed(names.map((name) => configMap(name)));
      const replicas = ['a', 'b', 'c'].map((who) => startReplica(scheduler, cluster, who, spans));
      scheduler.schedule(() => replicas[0]!.stop$.next(), 30_000);
      scheduler.schedule(() => {
        const stopped = replicas[0]!.events.map((e) => e.type);
        expect(stopped.at(-1)).to.equal('stopped');
        expect(openRanges(replicas[0]!)).to.deep.equal([]);
        const open = [openRanges(replicas[1]!), openRanges(replicas[2]!)];
        expect(open.flat().sort((x, y) => x - y)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7]);
        expectNoOverlap(spans);
        for (const replica of replicas) replica.subscription.unsubscribe();
      }, 60_000);
    });
  });

  it('keeps every namespace on one replica when hashing namespaces', () => {
    const spans: Span[] = [];
    inVirtualTime((cluster, scheduler) => {
      const namespaces = ['red', 'green', 'blue', 'gold'];
      cluster.seed(namespaces.map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })));
      cluster.seed(namespaces.flatMap((namespace) => names.slice(0, 6).map((name) => configMap(name, namespace))));
      const replicas = ['a', 'b'].map((who) => startReplica(scheduler, cluster, who, spans, 'namespace'));
      scheduler.schedule(() => {
        const recent = spans.filter((span) => span.start >= 40_000);
        for (const namespace of ['red', 'green', 'blue', 'gold']) {
          const who = new Set(recent.filter((s) => s.key.startsWith(`${namespace}/`)).map((s) => s.who));
          expect(who.size, namespace).to.equal(1);
        }
        expectNoOverlap(spans);
        for (const replica of replicas) replica.subscription.unsubscribe();
      }, 50_000);
    });
  });

  it('caches only the ranges it holds where the server serves shardSelector, and lists a range before it runs it', () => {
    const spans: Span[] = [];
    const caches = new Map<string, Informer<V1ConfigMap>>();
    const many = Array.from({ length: 90 }, (_, i) => `cm-${i}`);
    inVirtualTime((cluster, scheduler) => {
      cluster.seed(many.map((name) => configMap(name)));
      const replicas = ['a', 'b', 'c'].map((who) => startReplica(scheduler, cluster, who, spans, 'uid', caches));
      scheduler.schedule(() => {
        const sizes = ['a', 'b', 'c'].map((who) => caches.get(who)!.current().size);
        // Disjoint and complete: every ConfigMap is cached by exactly one replica, each about a third.
        expect(sizes.reduce((sum, size) => sum + size, 0)).to.equal(many.length);
        for (const size of sizes) expect(size).to.be.within(10, 60);
        for (const who of ['a', 'b', 'c']) {
          const cached = new Set([...caches.get(who)!.current().keys()]);
          const ran = new Set(spans.filter((s) => s.who === who && s.start >= 50_000).map((s) => s.key));
          expect(
            [...ran].filter((key) => !cached.has(key)),
            who,
          ).to.deep.equal([]);
        }
        // The ConfigMap lists asked the server for the ranges held: shardRange(object.metadata.uid, …) || …
        const lists = cluster.requestLog
          .records()
          .filter((r) => r.resource === 'configmaps' && r.verb === 'list')
          .map((r) => r.query.shardSelector ?? '');
        expect(lists.length).to.be.greaterThan(3);
        for (const selector of lists) expect(selector).to.match(/^shardRange\(object\.metadata\.uid, /);
        expectNoOverlap(spans);
        for (const replica of replicas) replica.subscription.unsubscribe();
      }, 60_000);
    }, true);
  });

  it('counts the ranges held, the handovers and the objects cached per range in its metrics', async () => {
    const spans: Span[] = [];
    const registries = [new Registry(), new Registry()];
    let scraped: Array<Promise<string>> = [];
    let objectSamples:
      | Promise<{ values: Array<{ value: number; labels: Record<string, string | number> }> }>
      | undefined;
    inVirtualTime((cluster, scheduler) => {
      cluster.seed(names.map((name) => configMap(name)));
      const replicas = ['a', 'b'].map((who, i) =>
        startReplica(scheduler, cluster, who, spans, 'uid', undefined, registries[i]),
      );
      scheduler.schedule(() => {
        // prom-client reads the values when asked, before its first await: taken here, before the managers stop.
        scraped = registries.map((registry) => registry.metrics());
        objectSamples = registries[1]!.getSingleMetric('shard_objects_cached')!.get() as never;
        for (const replica of replicas) replica.subscription.unsubscribe();
      }, 40_000);
    }, true);
    const [first, second] = await Promise.all(scraped);
    expect(second).to.match(/shard_members\{name="cms"\} 2/);
    expect(second).to.match(/shard_ranges\{name="cms",state="open"\} 4/);
    expect(first).to.match(/shard_handovers_total\{name="cms",reason="rebalance"\} [1-9]/);
    const objects = (await objectSamples!).values;
    const open = objects.filter((sample) => sample.value > 0).map((sample) => Number(sample.labels.range));
    expect(objects.reduce((sum, sample) => sum + sample.value, 0)).to.be.within(1, names.length - 1);
    expect(open.length).to.be.at.most(4);
  });

  it('refuses bad sharding options when the manager is built', () => {
    const base = {
      connection: virtualCluster({ scheduler: new TestScheduler(() => {}) }),
      name: 'cms',
      controllers: [],
    };
    expect(() => manager({ ...base, sharding: { namespace: 'default', ranges: 0 } })).to.throw(
      RangeError,
      'sharding.ranges',
    );
    expect(() => manager({ ...base, sharding: { namespace: 'default', hash: 'name' as never } })).to.throw(
      RangeError,
      'sharding.hash',
    );
    expect(() => manager({ ...base, sharding: { namespace: 'default', controllers: ['nope'] } })).to.throw(
      RangeError,
      'names no controller: nope',
    );
    expect(() =>
      manager({ ...base, sharding: { namespace: 'default', leaseDuration: 5_000, renewDeadline: 6_000 } }),
    ).to.throw(RangeError, 'leaseDuration');
  });

  it('says on /readyz which ranges this replica holds, in a line that always passes', () => {
    let lines: string[] = [];
    inVirtualTime((cluster, scheduler) => {
      const shards = new ManagerShards(
        cluster,
        () => {},
        scheduler,
        {
          namespace: 'default',
          name: 'cms',
          ranges: 4,
          field: 'object.metadata.uid',
          controllers: undefined,
          leaseDuration: undefined,
          renewDeadline: undefined,
          retryPeriod: undefined,
          select: 'client',
        },
        'a',
        silentLogger(),
        undefined,
      );
      lines.push(shards.readyCheck().join(' '));
      const stop$ = new Subject<void>();
      const running = shards.start(cluster, {
        scheduler,
        random: () => 0.5,
        stop$,
        onWarning: () => {},
        onState: () => {},
        done: () => lines.push(`${shards.readyCheck().join(' ')}`),
      });
      scheduler.schedule(() => lines.push(shards.readyCheck().join(' ')), 10_000);
      scheduler.schedule(() => stop$.next(), 11_000);
      scheduler.schedule(() => running.unsubscribe(), 20_000);
    });
    lines = lines.map((line) => line.trimEnd());
    expect(lines).to.deep.equal([
      'shards cms ranges none of 4',
      'shards cms ranges 0,1,2,3 of 4',
      'shards cms ranges none of 4',
    ]);
  });
});
