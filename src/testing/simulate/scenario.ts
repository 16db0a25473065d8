/**
 * Scenarios: the steps of one simulated run (workload steps and faults at virtual times), their fast-check
 * arbitrary, and their one-line descriptions.
 * @module
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type * as FastCheck from 'fast-check';
import { fastCheckPeer } from '../peers.js';
import {
  CONTROLLER_FAULT_KINDS,
  FAULT_KINDS,
  type FaultKind,
  type FaultOptions,
  type FaultStep,
  type Workload,
  type WorkloadStep,
} from './types.js';

/** One step of a scenario: a workload step (of workload `workload`) or a fault, at virtual time `at`. */
export type ScenarioStep =
  | {
      /** When the step happens, virtual ms since the start of the run, in `[0, duration)`. */
      readonly at: number;
      /** The index of the workload the step belongs to, in the run's workloads (the order `simulate` was given them). */
      readonly workload: number;
      /** The request to send: its outcome (`ok`, or an error code) goes into the trace, never fails the run by itself. */
      readonly step: WorkloadStep<KubernetesObject>;
    }
  | {
      /**
       * When the fault is injected, virtual ms since the start of the run, in `[0, duration)`; after any workload step
       * at the same time.
       */
      readonly at: number;
      /** The fault to inject. */
      readonly fault: FaultStep;
    };

/** One simulated run: the seed of the cluster and of `random`, and its steps in time order. */
export interface Scenario {
  /** Seeds the virtual cluster's randomness and, derived from it, the controller's `random` (drawn by fast-check). */
  readonly seed: number;
  /** The steps, sorted by `at`; at equal times workload steps come before faults, otherwise in drawing order. */
  readonly steps: readonly ScenarioStep[];
}

/** The arbitrary of one fault of `kind`. */
function faultArbitrary(kind: FaultKind): FastCheck.Arbitrary<FaultStep> {
  const fc = fastCheckPeer();
  switch (kind) {
    case 'dropWatches':
      return fc.constantFrom('clean' as const, 'abrupt' as const).map((mode) => ({ fault: 'dropWatches', mode }));
    case 'compact':
      return fc.constant({ fault: 'compact' });
    case 'conflict':
      return fc.nat({ max: 1000 }).map((pick) => ({ fault: 'conflict', pick }));
    case 'failWrites':
      return fc
        .record({ status: fc.constantFrom(500 as const, 429 as const), count: fc.integer({ min: 1, max: 3 }) })
        .map(({ status, count }) => ({ fault: 'failWrites', status, count }));
    case 'latency':
      return fc
        .record({ ms: fc.integer({ min: 1, max: 500 }), forMs: fc.integer({ min: 1, max: 60_000 }) })
        .map(({ ms, forMs }) => ({ fault: 'latency', ms, forMs }));
    case 'stallWatches':
      return fc.integer({ min: 1, max: 60_000 }).map((ms) => ({ fault: 'stallWatches', ms }));
    case 'malformedLine':
      return fc.constant({ fault: 'malformedLine' });
    case 'restart':
      return fc.constant({ fault: 'restart' });
    case 'staleView':
      return fc
        .record({
          lagMs: fc.integer({ min: 1, max: 30_000 }),
          versions: fc.integer({ min: 1, max: 10 }),
          forMs: fc.integer({ min: 1, max: 60_000 }),
          relist: fc.boolean(),
          watchLag: fc.constantFrom('time' as const, 'versions' as const),
        })
        .map((view) => ({ fault: 'staleView', ...view }));
    case 'crash':
      return fc
        .record({
          write: fc.integer({ min: 0, max: 3 }),
          mode: fc.constantFrom('sent' as const, 'notSent' as const, 'answerLost' as const),
          restartMs: fc.integer({ min: 0, max: 10_000 }),
        })
        .map((crash) => ({ fault: 'crash', ...crash }));
    case 'mergeEvents':
      return fc
        .record({ forMs: fc.integer({ min: 1, max: 30_000 }), spreadMs: fc.integer({ min: 0, max: 1_000 }) })
        .map((merge) => ({ fault: 'mergeEvents', ...merge }));
  }
}

/**
 * The arbitrary of scenarios of `duration` ms: workload steps and faults at uniform times in [0, duration),
 * sorted by time (a workload step before a fault at the same time).
 *
 * Shrinking removes steps and faults, moves them earlier and simplifies each, so a failing scenario shrinks to the
 * few steps that matter.
 */
export function scenarioArbitrary(
  duration: number,
  workloads: readonly Workload<KubernetesObject>[],
  faults: FaultOptions | false,
): FastCheck.Arbitrary<Scenario> {
  const fc = fastCheckPeer();
  const time = fc.integer({ min: 0, max: Math.max(0, duration - 1) });
  const workloadSteps = workloads.map((workload, index) =>
    fc.array(
      fc.record({ at: time, step: workload.step }).map(({ at, step }): ScenarioStep => ({ at, workload: index, step })),
      { minLength: workload.minSteps ?? 0, maxLength: workload.maxSteps ?? 50 },
    ),
  );
  const kinds = faults === false ? [] : (faults.kinds ?? FAULT_KINDS);
  for (const kind of kinds)
    if (!FAULT_KINDS.includes(kind) && !CONTROLLER_FAULT_KINDS.includes(kind))
      throw new TypeError(
        `simulate: unknown fault kind ${JSON.stringify(kind)}; known: ${[...FAULT_KINDS, ...CONTROLLER_FAULT_KINDS].join(', ')}`,
      );
  const faultSteps =
    kinds.length === 0 || faults === false
      ? fc.constant([] as ScenarioStep[])
      : fc.array(
          fc
            .record({ at: time, fault: fc.oneof(...kinds.map(faultArbitrary)) })
            .map(({ at, fault }): ScenarioStep => ({ at, fault })),
          { minLength: faults.min ?? 0, maxLength: faults.max ?? 20 },
        );
  return fc.record({
    seed: fc.nat(),
    steps: fc.tuple(faultSteps, ...workloadSteps).map((groups) => sortSteps(groups.flat())),
  });
}

/** Steps in time order; a workload step first at equal times; otherwise in drawing order (stable). */
function sortSteps(steps: ScenarioStep[]): ScenarioStep[] {
  return steps
    .map((step, index) => ({ step, index }))
    .sort((a, b) => a.step.at - b.step.at || rank(a.step) - rank(b.step) || a.index - b.index)
    .map(({ step }) => step);
}

const rank = (step: ScenarioStep): number => ('fault' in step ? 1 : 0);

/** One line for a step: `create n1 {…}`, `update n1 {"metadata":…}`, `delete n1`, `fault conflict #3`. */
export function describeStep(step: ScenarioStep): string {
  if ('fault' in step) {
    const { fault, ...rest } = step.fault;
    const details = Object.entries(rest)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(' ');
    return `fault ${fault}${details ? ` ${details}` : ''}`;
  }
  const { step: work } = step;
  switch (work.op) {
    case 'create':
      return `create ${nameOf(work.object)} ${clip(JSON.stringify(work.object))}`;
    case 'update':
      return `update ${qualified(work.name, work.namespace)} ${clip(JSON.stringify(work.patch))}`;
    case 'delete':
      return `delete ${qualified(work.name, work.namespace)}`;
  }
}

function nameOf(object: KubernetesObject): string {
  return qualified(object.metadata?.name ?? '?', object.metadata?.namespace);
}

function qualified(name: string, namespace: string | undefined): string {
  return namespace ? `${namespace}/${name}` : name;
}

function clip(text: string): string {
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}
