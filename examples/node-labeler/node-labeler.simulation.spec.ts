/**
 * The node labeler under seeded simulation on a virtual cluster: random node workloads with faults, convergence
 * and invariants checked; and a planted bug caught and shrunk to a short trace.
 */
import { expect } from 'chai';
import type { V1Node } from '@kubernetes/client-node';
import * as fc from 'fast-check';
import { catchError, of, throwError, type Observable } from 'rxjs';
import {
  apiErrors,
  predicates,
  reconcile,
  toKeys,
  type ControllerContext,
  type ControllerDefinition,
  type ReconcileEvent,
} from '../../src/index.js';
import {
  simulate,
  type CacheUnderTest,
  type SimulationWorld,
  type Workload,
  type WorkloadStep,
} from '../../src/testing/index.js';
import { NODE, nodeLabeler } from './node-labeler.js';

const LABEL = 'rxkube.io/cloud-node';
/** Nodes that join with their providerID. */
const JOINED = ['n0', 'n1', 'n2', 'n3'];
/** Nodes that join without one and get it later, once, from "" to this value (as kube-apiserver allows). */
const LATE: Readonly<Record<string, string>> = {
  p0: 'demo://zone-c/p0',
  p1: 'metal://rack-2/p1',
  p2: 'demo://zone-c/p2',
};

/** The labeler as the user runs it, on the simulation's cluster, clock and chance. */
const labeler: ControllerDefinition = {
  name: 'nodes',
  start: ({ connection, informers, scheduler, random }) =>
    nodeLabeler(connection, {
      providerIdPrefix: 'demo://',
      nodes: informers.for<V1Node>(NODE),
      scheduler,
      random,
      print: () => undefined,
    }),
};
/** The Node informer both labelers watch through: the context's factory hands out the very same one. */
const caches = ({ informers }: ControllerContext): CacheUnderTest[] => [
  { resource: NODE, informer: informers.for(NODE) },
];

const node = (name: string, providerID?: string): V1Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name },
  spec: providerID === undefined ? {} : { providerID },
});
const anyName = fc.constantFrom(...JOINED, ...Object.keys(LATE));
/** Nodes join (with a providerID, or without one that comes later), get unrelated labels, and leave. */
const nodeStep: fc.Arbitrary<WorkloadStep<V1Node>> = fc.oneof(
  fc
    .record({
      name: fc.constantFrom(...JOINED),
      providerID: fc.constantFrom('demo://zone-a/x', 'demo://zone-b/y', 'metal://rack-1/z'),
    })
    .map(({ name, providerID }) => ({ op: 'create' as const, object: node(name, providerID) })),
  fc.constantFrom(...Object.keys(LATE)).map((name) => ({ op: 'create' as const, object: node(name) })),
  fc
    .constantFrom(...Object.keys(LATE))
    .map((name) => ({ op: 'update' as const, name, patch: { spec: { providerID: LATE[name] } } })),
  fc
    .record({ name: anyName, value: fc.constantFrom('a', 'b') })
    .map(({ name, value }) => ({ op: 'update' as const, name, patch: { metadata: { labels: { team: value } } } })),
  anyName.map((name) => ({ op: 'delete' as const, name })),
);

const nodes = (steps: number): Workload<V1Node> => ({
  resource: NODE,
  step: nodeStep,
  minSteps: steps,
  maxSteps: steps,
});

/** Every node that joined through the demo provider carries the label. */
function everyDemoNodeLabeled(world: SimulationWorld): true | string {
  const missing = (world.server(NODE) as V1Node[])
    .filter((node) => node.spec?.providerID?.startsWith('demo://') && node.metadata?.labels?.[LABEL] !== 'true')
    .map((node) => node.metadata?.name);
  return missing.length === 0 || `unlabeled demo nodes: ${missing.join(', ')}`;
}

/** No node that did not join through the demo provider carries the label. */
function noForeignNodeLabeled(world: SimulationWorld): true | string {
  const wrong = (world.server(NODE) as V1Node[])
    .filter((node) => !node.spec?.providerID?.startsWith('demo://') && node.metadata?.labels?.[LABEL] !== undefined)
    .map((node) => node.metadata?.name);
  return wrong.length === 0 || `labeled foreign nodes: ${wrong.join(', ')}`;
}

describe('the node-labeler example (simulation)', function () {
  this.timeout(120_000);

  it('converges under 1000 random steps with faults: every demo node labeled, no other, caches equal to the server', () => {
    const report = simulate(labeler, {
      seed: 12,
      runs: 1,
      duration: 3_600_000,
      settle: 300_000,
      workload: nodes(1000),
      faults: { max: 100, min: 100 },
      invariants: { desired: everyDemoNodeLabeled, checks: { 'no foreign node labeled': noForeignNodeLabeled } },
      caches,
    });
    expect(report.failure?.message).to.equal(undefined);
    expect(report.trace.filter((line) => /^\d+ (create|update|delete) /.test(line))).to.have.length(1000);
    expect(report.trace.filter((line) => /^\d+ fault /.test(line))).to.have.length(100);
  });

  it('gives the same trace, byte for byte, for the same seed', () => {
    const options = {
      seed: 7,
      runs: 1,
      duration: 600_000,
      settle: 120_000,
      workload: nodes(100),
      faults: { max: 20 },
      caches,
    } as const;
    const first = simulate(labeler, options);
    const second = simulate(labeler, options);
    expect(first.trace.length).to.be.greaterThan(100);
    expect(second.trace.join('\n')).to.equal(first.trace.join('\n'));
  });

  it('catches a planted bug (a labeler that forgets to requeue after a conflict) and shrinks it to a short trace', () => {
    const options = {
      seed: 3,
      runs: 20,
      duration: 600_000,
      settle: 120_000,
      workload: { ...nodes(0), maxSteps: 30 },
      faults: { kinds: ['conflict', 'dropWatches'], max: 5 },
      invariants: { desired: everyDemoNodeLabeled },
      caches,
    } as const;
    const report = simulate(forgetfulLabeler, options);
    expect(report.ok).to.equal(false);
    const failure = report.failure!;
    expect(failure.violations.join('\n')).to.match(/^desired state does not hold: unlabeled demo nodes: n\d$/);
    // The essence: a conflict armed on a node, then that node joins through the demo provider.
    expect(failure.steps.length).to.be.at.most(3);
    expect(failure.steps.some((step) => / fault conflict /.test(step))).to.equal(true);
    expect(failure.message).to.contain(`seed ${failure.seed}, path "${failure.path}"`);
    // The printed seed and path reproduce exactly that run.
    const again = simulate(forgetfulLabeler, { ...options, seed: failure.seed, path: failure.path });
    expect(again.failure?.trace.join('\n')).to.equal(failure.trace.join('\n'));
  });
});

/**
 * The planted bug: a labeler that writes the label with a guarded JSON Patch and, on a 409, gives up as if it had
 * succeeded, instead of asking to be requeued (or re-reading, as `mutate` does).
 */
const forgetfulLabeler: ControllerDefinition = { name: 'forgetful', start: (context) => forgetful(context) };

function forgetful(context: ControllerContext): Observable<ReconcileEvent> {
  const { scheduler } = context;
  const nodes = context.informers.for<V1Node>(NODE);
  const client = context.client<V1Node>(NODE);
  return nodes.events$.pipe(
    predicates.eventType('added'),
    toKeys(),
    reconcile(
      ({ object }) => {
        if (
          object === undefined ||
          !object.spec?.providerID?.startsWith('demo://') ||
          object.metadata?.labels?.[LABEL] === 'true'
        )
          return undefined;
        return client
          .patch(object, {
            type: 'json',
            body: [
              { op: 'test', path: '/metadata/resourceVersion', value: object.metadata?.resourceVersion },
              { op: 'add', path: `/metadata/labels`, value: { ...object.metadata?.labels, [LABEL]: 'true' } },
            ],
          })
          .pipe(
            catchError((error: unknown) => (apiErrors.isConflict(error) ? of(undefined) : throwError(() => error))),
          );
      },
      { lookup: nodes, gate: nodes.synced$, scheduler },
    ),
  );
}
