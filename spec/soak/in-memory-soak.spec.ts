/**
 * The soak on the in-memory server, in virtual time: the PodSet controller, two writers churning PodSets and
 * incrementing counters through `mutate`, and drawn faults (restarts, compactions, dropped watches, a partition
 * that hangs the controller's requests), checked as `npm run soak` checks the real control plane: the cache equals
 * the server, every PodSet converged, no update lost. Seeded, so every run is the same run.
 */
import type { KubernetesObject, V1Pod } from '@kubernetes/client-node';
import { expect } from 'chai';
import type { Subscription } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { informer, informerFactory, resourceClient } from '../../src/index.js';
import { virtualCluster, type VirtualCluster } from '../../src/testing/index.js';
import { POD, PODSET, podSetCrd, type PodSet } from '../../examples/replica-set/podset.js';
import { replicaSet } from '../../examples/replica-set/replica-set.js';
import { podSet } from '../../examples/replica-set/scenarios.js';
import { cacheDrift, lostUpdates, unconverged, type CounterTally } from '../../soak/checks.js';
import { COUNTER_ANNOTATION, outcomeUnknown, seeded } from '../../soak/writer.js';

const NS = 'default';
const COUNTERS = ['counter-0', 'counter-1'];
type Fault = 'restart' | 'compaction' | 'watch-drop' | 'partition';
const FAULTS: readonly Fault[] = ['restart', 'compaction', 'watch-drop', 'partition'];

interface SoakRun {
  readonly drift: string[];
  readonly unconverged: string[];
  readonly lost: string[];
  readonly faults: Record<Fault, number>;
  readonly events: number;
  readonly podSets: number;
  readonly pods: number;
  readonly counters: { succeeded: number; unknown: number; value: number };
}

/** `events` writer events over `objects` PodSets, a fault every `faultEveryMs`, then time to converge. */
function soak(events: number, objects: number, faultEveryMs: number, seed: number): SoakRun {
  const scheduler = new TestScheduler((a, b) => {
    expect(a).to.deep.equal(b);
  });
  let result!: SoakRun;
  scheduler.run(() => {
    const random = seeded(seed);
    const cluster: VirtualCluster = virtualCluster({
      scheduler,
      seed,
      latency: () => 1 + Math.floor(random() * 5),
      watchLag: () => Math.floor(random() * 10),
    });
    cluster.seed([podSetCrd()]);
    const controllerLink = cluster.link({ userAgent: 'replica-set' });
    const writerLinks = [cluster.link({ userAgent: 'writer-0' }), cluster.link({ userAgent: 'writer-1' })];
    const writers = writerLinks.map((link) =>
      resourceClient<PodSet>(link, PODSET, { namespace: NS, scheduler, random, writeTimeout: 5_000 }),
    );
    cluster.seed(
      COUNTERS.map((name) => ({ ...podSet(name, 0), metadata: { name, namespace: NS } }) as KubernetesObject),
    );
    const subscriptions: Subscription[] = [];
    // A partition stalls the controller's open watches without a FIN. A stalled watch counts as dead only after its
    // timeoutSeconds + 30 s of silence (5.5 to 10.5 minutes by default), so the soak asks for 30 to 60 s watches,
    // as `npm run soak` lets the server end them, and the controller recovers within its ten minutes.
    const informers = informerFactory(controllerLink, { scheduler, random, minWatchTimeout: 30_000 });
    subscriptions.push(
      replicaSet(controllerLink, { scheduler, random, informers, print: () => undefined }).subscribe(),
    );
    const checker = informer<PodSet>(cluster.link({ userAgent: 'checker' }), PODSET, {
      namespace: NS,
      scheduler,
      random,
    });
    subscriptions.push(checker.events$.subscribe());

    const tallies = new Map<string, CounterTally>(COUNTERS.map((name) => [name, { succeeded: 0, unknown: 0 }]));
    const tally = (name: string, field: keyof CounterTally): void => {
      const prior = tallies.get(name)!;
      tallies.set(name, { ...prior, [field]: prior[field] + 1 });
    };
    // One event every 10 virtual ms, alternating writers: a counter increment or a create, update or delete.
    for (let i = 0; i < events; i++) {
      scheduler.schedule(() => {
        const client = writers[i % 2]!;
        if (random() < 0.3) {
          const name = COUNTERS[Math.floor(random() * COUNTERS.length)]!;
          client
            .mutate(name, (draft) => {
              const annotations = (draft.metadata!.annotations ??= {});
              annotations[COUNTER_ANNOTATION] = String(Number(annotations[COUNTER_ANNOTATION] ?? '0') + 1);
            })
            .subscribe({
              next: () => tally(name, 'succeeded'),
              error: (error: unknown) => outcomeUnknown(error) && tally(name, 'unknown'),
            });
          return;
        }
        const name = `ps-${Math.floor(random() * objects)}`;
        const replicas = Math.floor(random() * 3);
        const exists = cluster.list(PODSET, NS).some((p) => p.metadata?.name === name);
        const write = !exists
          ? client.create(podSet(name, replicas))
          : random() < 0.7
            ? client.mutate(name, (draft) => {
                draft.spec!.replicas = replicas;
              })
            : client.delete(name);
        write.subscribe({ error: () => undefined });
      }, i * 10);
    }
    const faults = Object.fromEntries(FAULTS.map((f) => [f, 0])) as Record<Fault, number>;
    const loadMs = events * 10;
    for (let at = faultEveryMs, n = 0; at < loadMs; at += faultEveryMs, n++) {
      const fault = FAULTS[n % FAULTS.length]!;
      scheduler.schedule(() => {
        faults[fault]++;
        if (fault === 'restart') cluster.faults.restart();
        else if (fault === 'compaction') cluster.faults.compact();
        else if (fault === 'watch-drop') cluster.faults.dropWatches({ mode: 'clean' });
        else {
          // The controller's requests hang, as through a stalled connection: only its write timeout frees them.
          controllerLink.faults.partition({ mode: 'hang' });
          scheduler.schedule(() => controllerLink.faults.heal(), 3_000);
        }
      }, at);
    }
    // After the load: ten virtual minutes to converge (the write timeout, backoffs, and the 5-minute expectations timeout), then the checks.
    scheduler.schedule(() => {
      const served = cluster.list(PODSET, NS) as PodSet[];
      const pods = (cluster.list(POD, NS) as V1Pod[]).filter((p) => p.metadata?.deletionTimestamp === undefined);
      const owned = new Map<string, number>();
      for (const pod of pods) {
        const owner = pod.metadata?.ownerReferences?.find((o) => o.controller === true)?.uid;
        if (owner !== undefined) owned.set(owner, (owned.get(owner) ?? 0) + 1);
      }
      const counters = new Map(
        served
          .filter((p) => COUNTERS.includes(p.metadata!.name!))
          .map((p) => [p.metadata!.name!, Number(p.metadata?.annotations?.[COUNTER_ANNOTATION] ?? '0')]),
      );
      const totals = [...tallies.values()].reduce(
        (a, t) => ({ succeeded: a.succeeded + t.succeeded, unknown: a.unknown + t.unknown }),
        { succeeded: 0, unknown: 0 },
      );
      result = {
        drift: cacheDrift(
          [...checker.current().entries()].map(([key, o]) => ({ key, resourceVersion: o.metadata!.resourceVersion! })),
          served.map((p) => ({ key: `${NS}/${p.metadata!.name}`, resourceVersion: p.metadata!.resourceVersion! })),
        ),
        unconverged: unconverged(
          served.map((p) => ({
            name: p.metadata!.name!,
            desired: p.spec?.replicas ?? 1,
            statusReplicas: p.status?.replicas,
            ownedPods: owned.get(p.metadata!.uid!) ?? 0,
          })),
        ),
        lost: lostUpdates(counters, tallies),
        faults,
        events,
        podSets: served.length,
        pods: pods.length,
        counters: { ...totals, value: [...counters.values()].reduce((a, b) => a + b, 0) },
      };
      for (const subscription of subscriptions) subscription.unsubscribe();
      cluster.close();
    }, loadMs + 600_000);
    scheduler.flush();
  });
  return result;
}

describe('soak: the PodSet controller on the in-memory server under drawn faults, in virtual time', function () {
  this.timeout(120_000);

  it('ends with the cache equal to the server, every PodSet converged and no counter increment lost', () => {
    const run = soak(1_000, 30, 1_000, 33);
    expect(run.drift, 'cache drift').to.deep.equal([]);
    expect(run.unconverged, 'unconverged PodSets').to.deep.equal([]);
    expect(run.lost, 'lost updates').to.deep.equal([]);
    for (const fault of FAULTS) expect(run.faults[fault], fault).to.be.greaterThan(0);
    expect(run.counters.succeeded).to.be.greaterThan(50);
    expect(run.podSets).to.be.greaterThan(COUNTERS.length);
    expect(run.pods).to.be.greaterThan(0);
  });
});
