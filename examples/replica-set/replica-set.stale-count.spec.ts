/**
 * The replica-set example's planted bug of the stale-state class (Sieve, OSDI '22): Pods created from a stale count,
 * without expectations. Its marble specs pass with the bug (`replica-set.marbles.spec.ts` runs them against it); a
 * seeded simulation with a lagging apiserver (`staleView`) catches it, shrinks it to a few steps and replays it.
 */
import { expect } from 'chai';
import type { V1Pod } from '@kubernetes/client-node';
import * as fc from 'fast-check';
import type { ControllerDefinition } from '../../src/index.js';
import {
  simulate,
  type SimulateOptions,
  type SimulationWorld,
  type Workload,
  type WorkloadStep,
} from '../../src/testing/index.js';
import { POD, PODSET, podSetCrd, type PodSet } from './podset.js';
import { replicaSetController } from './replica-set.js';
import { STALE_COUNT_BUG } from './spec-helpers.js';

const web = (replicas: number): PodSet => ({
  apiVersion: PODSET.apiVersion,
  kind: PODSET.kind,
  metadata: { name: 'web', namespace: 'default' },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } },
  },
});

/** A PodSet of 1 to 3 made, and touched (each touch a sync); never scaled down, so no Pod ever needs deleting. */
const podSets: Workload<PodSet> = {
  resource: PODSET,
  maxSteps: 10,
  step: fc.oneof(
    fc.integer({ min: 1, max: 3 }).map((replicas): WorkloadStep<PodSet> => ({ op: 'create', object: web(replicas) })),
    fc.constantFrom('a', 'b').map(
      (touch): WorkloadStep<PodSet> => ({
        op: 'update',
        name: 'web',
        namespace: 'default',
        patch: { metadata: { labels: { touch } } },
      }),
    ),
  ),
};

/** The PodSet has as many Pods as it asks for. */
function replicasMatch(world: SimulationWorld): true | string {
  const podSet = world.server(PODSET, 'default')[0] as PodSet | undefined;
  if (podSet === undefined) return true;
  const own = (world.server(POD, 'default') as V1Pod[]).filter(
    (pod) => pod.metadata?.ownerReferences?.[0]?.uid === podSet.metadata?.uid,
  );
  return own.length === podSet.spec?.replicas || `${own.length} pod(s) for ${podSet.spec?.replicas} replica(s)`;
}

/**
 * No surplus Pod: the workload never scales down, so a Pod the controller deletes is one it should not have created.
 * A relist back in time (a failover to a lagging apiserver) hides Pods that expectations had already seen: there
 * the example, as kube-controller-manager, creates a surplus Pod too and deletes it once its view catches up, so
 * those runs are left to `replicasMatch`.
 */
function noSurplusPod(world: SimulationWorld): true | string {
  if (world.trace.some((line) => / fault staleView .*relist=true/.test(line))) return true;
  const deletes = world.trace.filter((line) => / write DELETE \/api\/v1\/namespaces\/default\/pods\//.test(line));
  return deletes.length === 0 || `created a surplus and deleted it: ${deletes[0]}`;
}

const options: SimulateOptions = {
  seed: 1,
  runs: 100,
  duration: 60_000,
  settle: 360_000,
  workload: podSets,
  objects: [podSetCrd()],
  faults: { kinds: ['staleView'], min: 1, max: 1 },
  invariants: { desired: replicasMatch, checks: { 'no surplus pod': noSurplusPod } },
};
const example = replicaSetController({ print: () => undefined });
const planted: ControllerDefinition = replicaSetController({ ...STALE_COUNT_BUG, print: () => undefined });

describe('the replica-set example: stale state (planted bug)', function () {
  this.timeout(180_000);

  it('keeps its Pod count under a lagging apiserver, with its expectations', () => {
    expect(simulate(example, options).failure?.message).to.equal(undefined);
  });

  it('passes the planted bug when the view is true, as its marble specs do', () => {
    expect(simulate(planted, { ...options, runs: 20, faults: false }).failure?.message).to.equal(undefined);
  });

  it('catches Pods created from a stale count without expectations, shrunk to a few steps, and replays it exactly', () => {
    const report = simulate(planted, options);
    const failure = report.failure!;
    expect(failure.violations).to.have.length(1);
    expect(failure.violations[0]).to.match(/^no surplus pod does not hold: created a surplus and deleted it: /);
    // A PodSet, and a view lagging longer than read-your-own-writes waits (5 s).
    expect(failure.steps.length).to.be.at.most(3);
    const lags = failure.steps.map((step) => Number(/ fault staleView lagMs=(\d+)/.exec(step)?.[1] ?? 0));
    expect(Math.max(...lags)).to.be.greaterThan(5_000);
    const again = simulate(planted, { ...options, seed: failure.seed, path: failure.path });
    expect(again.failure!.trace.join('\n')).to.equal(failure.trace.join('\n'));
  });
});
