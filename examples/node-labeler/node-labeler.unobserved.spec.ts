/**
 * A planted bug of the unobserved-states class (Sieve, OSDI '22): a node labeler that relies on seeing every
 * deletion. The node labeler's ordinary specs do not exercise it; simulation with merged watch events catches it,
 * shrinks it to a few steps and replays it exactly.
 */
import { expect } from 'chai';
import type { V1Node } from '@kubernetes/client-node';
import * as fc from 'fast-check';
import { EMPTY, map, tap, type Observable } from 'rxjs';
import {
  reconcile,
  toKeys,
  type ControllerContext,
  type ControllerDefinition,
  type ReconcileEvent,
} from '../../src/index.js';
import { simulate, type SimulationWorld, type Workload, type WorkloadStep } from '../../src/testing/index.js';
import { NODE } from './node-labeler.js';

const LABEL = 'rxkube.io/cloud-node';
const node = (name: string, providerID: string): V1Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name },
  spec: { providerID },
});
/** Nodes join through the demo provider and leave; a name comes back as another machine. */
const nodes: Workload<V1Node> = {
  resource: NODE,
  maxSteps: 8,
  step: fc.oneof(
    fc
      .record({ name: fc.constantFrom('n0', 'n1'), providerID: fc.constantFrom('demo://a/x', 'demo://b/y') })
      .map(({ name, providerID }): WorkloadStep<V1Node> => ({ op: 'create', object: node(name, providerID) })),
    fc.constantFrom('n0', 'n1').map((name): WorkloadStep<V1Node> => ({ op: 'delete', name })),
  ),
};

/** Every node that joined through the demo provider carries the label. */
function everyDemoNodeLabeled(world: SimulationWorld): true | string {
  const missing = (world.server(NODE) as V1Node[])
    .filter((n) => n.spec?.providerID?.startsWith('demo://') && n.metadata?.labels?.[LABEL] !== 'true')
    .map((n) => n.metadata?.name);
  return missing.length === 0 || `unlabeled demo nodes: ${missing.join(', ')}`;
}

/**
 * The planted bug: to write each label once, the labeler remembers the names of the nodes it labeled, and forgets
 * a name when it sees that node's deletion. A node deleted and joined again while its events were merged is never
 * seen deleted: the new machine under the old name is taken for labeled.
 */
function rememberingLabeler(context: ControllerContext): Observable<ReconcileEvent> {
  const { scheduler } = context;
  const nodes = context.informers.for<V1Node>(NODE);
  const client = context.client<V1Node>(NODE);
  const labeled = new Set<string>();
  return nodes.events$.pipe(
    tap((event) => {
      if (event.type === 'deleted') labeled.delete(event.key);
    }),
    toKeys(),
    reconcile(
      ({ key, object }) => {
        if (object === undefined || labeled.has(key) || !object.spec?.providerID?.startsWith('demo://')) return EMPTY;
        return client
          .patch(object.metadata!.name!, { type: 'merge', body: { metadata: { labels: { [LABEL]: 'true' } } } })
          .pipe(map(() => void labeled.add(key)));
      },
      { lookup: nodes, gate: nodes.synced$, scheduler },
    ),
  );
}
const remembering: ControllerDefinition = { name: 'remembering', start: rememberingLabeler };
const options = {
  seed: 11,
  runs: 100,
  duration: 20_000,
  settle: 5_000,
  workload: nodes,
  faults: { kinds: ['mergeEvents' as const], min: 1, max: 3 },
  invariants: { desired: everyDemoNodeLabeled },
};

describe('the node-labeler example: unobserved states (planted bug)', function () {
  this.timeout(120_000);

  it('passes when every deletion is seen, as in the ordinary specs', () => {
    expect(simulate(remembering, { ...options, runs: 20, faults: false }).failure?.message).to.equal(undefined);
  });

  it('catches a labeler that relies on seeing each deletion, shrunk to a few steps, and replays it exactly', () => {
    const report = simulate(remembering, options);
    const failure = report.failure!;
    expect(failure.violations).to.have.length(1);
    expect(failure.violations[0]).to.match(/^desired state does not hold: unlabeled demo nodes: n\d$/);
    expect(failure.steps.length).to.be.at.most(5);
    expect(failure.steps.some((step) => / fault mergeEvents /.test(step))).to.equal(true);
    const again = simulate(remembering, { ...options, seed: failure.seed, path: failure.path });
    expect(again.failure!.trace.join('\n')).to.equal(failure.trace.join('\n'));
  });
});
