/**
 * The pod logger under seeded simulation on a virtual cluster: random pod workloads with faults; the cache equals
 * the server and every key's last run ended in a verdict (synced, or dropped for a pod that always fails).
 */
import { expect } from 'chai';
import type { V1Pod } from '@kubernetes/client-node';
import * as fc from 'fast-check';
import type { ControllerContext } from '../../src/index.js';
import {
  assertSimulation,
  type CacheUnderTest,
  type SimulationWorld,
  type WorkloadStep,
} from '../../src/testing/index.js';
import { FAIL_ANNOTATION, podLogger } from './pod-logger.js';

const POD = { apiVersion: 'v1', kind: 'Pod' };
const NAMES = ['p0', 'p1', 'p2', 'p3'];

/** The pod logger as the manager runs it; the simulation gives it its cluster, clock and chance. */
const logger = podLogger({ print: () => undefined });
/** The informer the logger watches through: the context's factory hands out the very same one. */
const caches = ({ informers }: ControllerContext): CacheUnderTest[] => [
  { resource: POD, informer: informers.for<V1Pod>(POD, { namespace: 'default' }), namespace: 'default' },
];

const name = fc.constantFrom(...NAMES);
const failing = fc.constantFrom(undefined, '1', '3', 'always');
const annotations = (fail: string | undefined): Record<string, string> =>
  fail === undefined ? {} : { [FAIL_ANNOTATION]: fail };
/** Pods come (some failing their first attempts, some always), change labels and annotations, and go. */
const podStep: fc.Arbitrary<WorkloadStep<V1Pod>> = fc.oneof(
  fc.record({ name, fail: failing }).map(({ name: n, fail }) => ({
    op: 'create' as const,
    object: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: n, namespace: 'default', annotations: annotations(fail) },
      spec: { containers: [{ name: 'app', image: 'demo:1' }] },
    },
  })),
  fc.record({ name, tier: fc.constantFrom('web', 'db') }).map(({ name: n, tier }) => ({
    op: 'update' as const,
    name: n,
    namespace: 'default',
    patch: { metadata: { labels: { tier } } },
  })),
  fc.record({ name, fail: failing }).map(({ name: n, fail }) => ({
    op: 'update' as const,
    name: n,
    namespace: 'default',
    patch: { metadata: { annotations: { [FAIL_ANNOTATION]: fail ?? null } } },
  })),
  name.map((n) => ({ op: 'delete' as const, name: n, namespace: 'default' })),
);

/** Every key the logger saw ended its last run with a verdict, and every pod on the server was seen. */
function everyKeySettled(world: SimulationWorld): true | string {
  const last = new Map<string, string>();
  for (const event of world.events) if (event.type !== 'rejected') last.set(event.key, event.type);
  const unsettled = [...last]
    .filter(([, type]) => type !== 'succeeded' && type !== 'dropped')
    .map(([key, type]) => `${key} (${type})`);
  const unseen = world
    .server(POD, 'default')
    .map((pod) => `default/${pod.metadata?.name}`)
    .filter((key) => !last.has(key));
  if (unsettled.length > 0) return `keys without a verdict: ${unsettled.join(', ')}`;
  return unseen.length === 0 || `pods never synced: ${unseen.join(', ')}`;
}

describe('the pod-logger example (simulation)', function () {
  this.timeout(120_000);

  it('keeps its cache equal to the server and settles every key under random pods and faults', () => {
    const report = assertSimulation(logger, {
      seed: 21,
      runs: 5,
      duration: 600_000,
      settle: 120_000,
      workload: { resource: POD, step: podStep, minSteps: 100, maxSteps: 200 },
      faults: { max: 30 },
      invariants: { desired: everyKeySettled },
      caches,
    });
    expect(report.runs).to.equal(5);
    expect(report.trace.some((line) => / fault /.test(line))).to.equal(true);
    expect(report.trace.filter((line) => / succeeded default\/p\d$/.test(line)).length).to.be.greaterThan(10);
  });
});
