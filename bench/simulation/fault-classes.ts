/**
 * Simulated runs per second of the node labeler under `simulate`'s scenarios: today's cluster faults, the three
 * controller faults alone (stale views, crashes, merged events), then every fault class. The same scenarios'
 * workload steps in both, drawn from one seed; the cost is compared per scenario step.
 * Target (issue 30): the controller faults together cost no more than 2× today's simulation time per step.
 *
 * Run: `npm run bench -- simulation` (or `node --import tsx bench/simulation/fault-classes.ts`); writes
 * `bench/results/simulation-faults.md`.
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { V1Node } from '@kubernetes/client-node';
import * as fc from 'fast-check';
import type { ControllerDefinition } from '../../src/index.js';
import {
  CONTROLLER_FAULT_KINDS,
  FAULT_KINDS,
  runScenario,
  scenarioArbitrary,
  type FaultKind,
  type Workload,
  type WorkloadStep,
} from '../../src/testing/index.js';
import { NODE, nodeLabeler } from '../../examples/node-labeler/node-labeler.js';

const RUNS = 40;
const DURATION = 600_000;
const SETTLE = 120_000;
const STEPS = 100;

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
const names = fc.constantFrom('n0', 'n1', 'n2', 'n3', 'p0', 'p1');
const workload: Workload<V1Node> = {
  resource: NODE,
  minSteps: STEPS,
  maxSteps: STEPS,
  step: fc.oneof(
    fc.record({ name: names, providerID: fc.constantFrom('demo://a/x', 'metal://b/y', '') }).map(
      ({ name, providerID }): WorkloadStep<V1Node> => ({
        op: 'create',
        object: { apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: providerID ? { providerID } : {} },
      }),
    ),
    fc.record({ name: names, value: fc.constantFrom('a', 'b') }).map(
      ({ name, value }): WorkloadStep<V1Node> => ({
        op: 'update',
        name,
        patch: { metadata: { labels: { team: value } } },
      }),
    ),
    names.map((name): WorkloadStep<V1Node> => ({ op: 'delete', name })),
  ),
};

interface Measure {
  readonly label: string;
  readonly wallMs: number;
  readonly steps: number;
  readonly traceLines: number;
}

function measure(label: string, kinds: readonly FaultKind[]): Measure {
  const scenarios = fc.sample(scenarioArbitrary(DURATION, [workload], { kinds, min: 20, max: 20 }), {
    numRuns: RUNS,
    seed: 42,
  });
  const settings = { duration: DURATION, settle: SETTLE, workloads: [workload], invariants: {} };
  // Warm up on the first two.
  for (const scenario of scenarios.slice(0, 2)) runScenario(labeler, scenario, settings);
  let steps = 0;
  let traceLines = 0;
  const started = performance.now();
  for (const scenario of scenarios) {
    steps += scenario.steps.length;
    traceLines += runScenario(labeler, scenario, settings).trace.length;
  }
  return { label, wallMs: performance.now() - started, steps, traceLines };
}

const today = measure("today's cluster faults", FAULT_KINDS);
const controller = measure('the three controller faults alone', CONTROLLER_FAULT_KINDS);
const every = measure('every fault class', [...FAULT_KINDS, ...CONTROLLER_FAULT_KINDS]);
const perStep = (m: Measure): number => m.wallMs / m.steps;
const ratio = perStep(every) / perStep(today);
const alone = perStep(controller) / perStep(today);
for (const m of [today, controller, every])
  console.log(
    `${m.label}: ${((RUNS * 1000) / m.wallMs).toFixed(1)} runs/s, ${(perStep(m) * 1000).toFixed(1)} µs per step, ${m.traceLines} trace lines`,
  );
console.log(`every fault class / today, per step: ${ratio.toFixed(2)}× (target ≤ 2×)`);
console.log(`the controller faults alone / today, per step: ${alone.toFixed(2)}× (target ≤ 2×)`);
const [load] = loadavg();
writeFileSync(
  new URL('../results/simulation-faults.md', import.meta.url),
  `## simulation: every fault class

Command: \`npm run bench -- simulation\` (script \`bench/simulation/fault-classes.ts\`). The node labeler under
\`runScenario\`, ${RUNS} scenarios of ${STEPS} workload steps and 20 faults each (${DURATION / 60_000} virtual minutes, then
${SETTLE / 60_000} to settle), drawn from seed 42: with today's cluster faults, with the three controller faults alone (stale views, crashes
mid-reconcile, merged events), and with every fault class (the cluster's and the controller's). Load average at the end: ${load!.toFixed(1)} on
${cpus().length} cores.

| faults | runs/s | per scenario step | trace lines |
|---|---:|---:|---:|
${[today, controller, every]
  .map(
    (m) =>
      `| ${m.label} | ${((RUNS * 1000) / m.wallMs).toFixed(1)} | ${(perStep(m) * 1000).toFixed(1)} µs | ${m.traceLines} |`,
  )
  .join('\n')}

The three controller faults alone cost ${alone.toFixed(2)}× today's time per step; every fault class together
${ratio.toFixed(2)}×. Target (issue 30): at most 2×.
`,
);
if (ratio > 2 || alone > 2) process.exitCode = 1;
