/**
 * `simulate`: a seeded property runner that plays random workloads and faults against a controller on a virtual
 * cluster, checks convergence and invariants, and shrinks a failure to a short trace.
 * @module
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type * as FastCheck from 'fast-check';
import { fastCheckPeer } from '../peers.js';
import type { VirtualClusterOptions } from '../virtual/index.js';
import { fingerprint, notTogether, printReplayPath, readReplayPath } from './replay-path.js';
import { runScenario, type RunSettings, type ScenarioRun } from './run-scenario.js';
import { describeStep, scenarioArbitrary, type Scenario } from './scenario.js';
import type { CacheUnderTest, FaultOptions, Invariants, Workload } from './types.js';
import type { ControllerContext, ControllerDefinition } from 'rxkube';

/** Options of {@link simulate}. */
export interface SimulateOptions {
  /** The fast-check seed. Omitted: a fresh one, printed on failure. Same seed (and path) => same runs, byte for byte. */
  readonly seed?: number;
  /**
   * With `seed`: replays exactly that counterexample (as printed on failure), without shrinking further. A printed
   * path ends with the fingerprint of its scenario (`6:0:4:2#1f0c9a3e`), so a path given with another seed or other
   * options (workload, faults, duration) is refused with a clear error instead of replaying something else.
   */
  readonly path?: string;
  /** How many random scenarios to try (default 10). */
  readonly runs?: number;
  /** Virtual ms during which workload steps and faults happen. */
  readonly duration: number;
  /** Quiet virtual ms after `duration` before the checks: the controller's time to converge (default 300 000). */
  readonly settle?: number;
  /** Where the workload steps come from: one workload or several. */
  // biome-ignore lint/suspicious/noExplicitAny: workloads of different object types run side by side
  readonly workload: Workload<any> | readonly Workload<any>[];
  /** Which faults to draw (default: all kinds, at most 20 per run); `false` for none. */
  readonly faults?: FaultOptions | false;
  /** What must hold at the end (default: the caches match the server). */
  readonly invariants?: Invariants;
  /**
   * The informers whose caches must hold exactly what the server holds at the end (`invariants.cachesMatchServer`),
   * taken from each run's context, e.g. `({ informers }) => [{ resource: POD, namespace: 'default', informer:
   * informers.for(POD, { namespace: 'default' }) }]`: the factory hands out the very informer the controller uses.
   */
  readonly caches?: (context: ControllerContext) => readonly CacheUnderTest[];
  /**
   * Objects stored before the controller starts in every run (a CRD the controller's kind needs, namespaces,
   * fixtures), as `cluster.seed` stores them: they are not workload steps, so shrinking never removes them.
   */
  readonly objects?: readonly KubernetesObject[];
  /**
   * Options of each run's virtual cluster, e.g. `{ ownerGC: true }` for the garbage collector or `{ namespaces }`;
   * its scheduler and seed are the run's.
   */
  readonly cluster?: Omit<VirtualClusterOptions, 'scheduler' | 'seed'>;
  /** Skip shrinking (report the first failing scenario as found). Default false. */
  readonly noShrink?: boolean;
  /** Where the failure text goes as well as into the report (e.g. `console.error`). Default: nowhere. */
  readonly log?: (text: string) => void;
}

/** A failing scenario, shrunk. */
export interface SimulationFailure {
  /** The fast-check seed of the failing `simulate` call (as `SimulationReport.seed`), not the scenario's own seed. */
  readonly seed: number;
  /**
   * The path to the counterexample: fast-check's, then `#` and the scenario's fingerprint.
   * `simulate(definition, { ...options, seed, path })` replays it.
   */
  readonly path: string;
  /** The shrunk scenario. */
  readonly scenario: Scenario;
  /** The shortened trace: its workload steps and faults, one line each, `<ms> <step>`. */
  readonly steps: readonly string[];
  /** The invariants the shrunk scenario broke, each with its reason, from one more run of it. */
  readonly violations: readonly string[];
  /** Everything the shrunk run did: steps, outcomes, faults, decisions. */
  readonly trace: readonly string[];
  /** How many shrinking steps fast-check took. */
  readonly shrinks: number;
  /** The seed, the shortened trace, the violations and how to reproduce, as printed. */
  readonly message: string;
}

/** The outcome of {@link simulate}. */
export interface SimulationReport {
  /** Whether every scenario passed; `failure` is absent exactly when this is true. */
  readonly ok: boolean;
  /**
   * The fast-check seed used (`options.seed`, or the one fast-check drew): pass it back as `seed` to run the same
   * scenarios.
   */
  readonly seed: number;
  /** How many scenarios ran (shrinking runs excluded). */
  readonly runs: number;
  /** The first failing scenario, shrunk (unless `noShrink` or `path`); absent when `ok`. */
  readonly failure?: SimulationFailure;
  /** The trace of the last scenario run when all passed (the failing one's is in `failure`). */
  readonly trace: readonly string[];
}

/**
 * Runs `definition`'s controller against a virtual cluster under random workloads and faults, `runs` times, and checks
 * after each run that it converged and that the invariants hold.
 *
 * Each run is one scenario: a seed (the cluster's and `random`'s), the user's workload steps and the drawn faults at
 * virtual times in `[0, duration)`; then `settle` quiet ms; then the checks: every cache `caches` names equals the
 * server (`cachesMatchServer`), `invariants.desired` holds, and every `invariants.checks` holds. The controller gets
 * a `ControllerContext` over the run's cluster, with its virtual clock and a seeded `random`; what it reports
 * (`context.reportError`) goes into the trace.
 *
 * # Guarantees
 * - Deterministic: each run is its own `TestScheduler.run()` with a cluster and `random` seeded from the scenario,
 *   so the same `seed` gives the same scenarios and byte-identical traces; `{ seed, path }` of a failure replays it,
 *   and only it (`runs` is 1; a replay that passes means the controller no longer fails there).
 * - `{ seed, path }` that do not belong together (a path printed for another seed, or for other options, or no path
 *   at all) throw a `TypeError` that says so, rather than replaying another scenario or passing.
 * - A failure is shrunk by fast-check (fewer steps and faults, earlier times, simpler values) and reported with its
 *   seed, its shortened trace (steps and faults), the violations and the line that reproduces it.
 * - Nothing of the controller's can hang a run: virtual time stops at `duration + settle`, and an instant at which
 *   more than 200 000 actions run (a timer re-armed at the same time forever) fails the run instead of spinning.
 * - A controller whose stream errors, or whose `start` throws, is a failure, not a crash.
 *
 * # Caveats
 * - The controller must take its time from `context.scheduler` and its chance from `context.random`: a
 *   `setTimeout`, a real Promise delay or `Math.random` inside it breaks determinism (and real time does not pass
 *   during a run).
 * - Call it outside `TestScheduler.run()` (runs cannot nest).
 * - Shrinking re-runs the controller many times: keep `duration`, `settle` and the step counts as small as the
 *   property allows.
 */
export function simulate(definition: ControllerDefinition, options: SimulateOptions): SimulationReport {
  const workloads = (
    Array.isArray(options.workload) ? options.workload : [options.workload]
  ) as readonly Workload<KubernetesObject>[];
  const duration = positive('duration', options.duration);
  const settle = options.settle === undefined ? 300_000 : nonNegative('settle', options.settle);
  const settings = {
    duration,
    settle,
    workloads,
    invariants: options.invariants ?? {},
    ...(options.caches ? { caches: options.caches } : {}),
    ...(options.objects ? { objects: options.objects } : {}),
    ...(options.cluster ? { cluster: options.cluster } : {}),
  };
  const arbitrary = scenarioArbitrary(duration, workloads, options.faults ?? {});
  const replay = options.path === undefined ? undefined : readReplayPath(options.path, options.seed);
  let last: ScenarioRun | undefined;
  let replayed: Scenario | undefined;
  const fc = fastCheckPeer();
  const property = fc.property(arbitrary, (scenario) => {
    if (replay !== undefined) {
      // Only the scenario the path leads to, and only if it is the one the path was printed for.
      if (replayed !== undefined) return;
      replayed = scenario;
      if (replay.fingerprint !== undefined && fingerprint(scenario) !== replay.fingerprint) return;
    }
    last = runChecked(definition, scenario, settings);
    if (last.violations.length > 0) throw new Error(last.violations.join('\n'));
  });
  let details: FastCheck.RunDetails<[Scenario]>;
  try {
    details = fc.check(property, {
      numRuns: options.runs ?? 10,
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...(replay !== undefined ? { path: replay.fastCheck } : {}),
      ...(options.noShrink || replay !== undefined ? { endOnFailure: true } : {}),
    });
  } catch (error) {
    // fast-check cannot follow the path from this seed: "Unable to replay, got wrong path".
    if (replay !== undefined && error instanceof Error && /replay/i.test(error.message)) {
      throw notTogether(
        options.seed!,
        replay.text,
        `the path does not lead anywhere from seed ${options.seed} (${error.message})`,
      );
    }
    throw error;
  }
  if (replay?.fingerprint !== undefined && (replayed === undefined || fingerprint(replayed) !== replay.fingerprint)) {
    throw notTogether(
      options.seed!,
      replay.text,
      replayed === undefined
        ? `the path leads to no scenario from seed ${options.seed}`
        : `the path leads from seed ${options.seed} to another scenario (scenario seed ${replayed.seed}, ${replayed.steps.length} steps) than the one it was printed for`,
    );
  }
  if (!details.failed || details.counterexample === null) {
    return { ok: true, seed: details.seed, runs: replay === undefined ? details.numRuns : 1, trace: last?.trace ?? [] };
  }
  const [scenario] = details.counterexample;
  // Run the counterexample once more: its trace, and a check that it fails the same way.
  const run = runChecked(definition, scenario, settings);
  const path = replay?.text ?? printReplayPath(details.counterexamplePath ?? '', scenario);
  const steps = scenario.steps.map((step) => `${step.at} ${describeStep(step)}`);
  const message = [
    `simulate: the controller failed after ${details.numRuns} run(s) (${details.numShrinks} shrinks); seed ${details.seed}, path "${path}"`,
    `scenario seed ${scenario.seed}; steps (${steps.length}):`,
    ...steps.map((line) => `  ${line}`),
    'violations:',
    ...run.violations.map((line) => `  ${line}`),
    `reproduce: simulate(controller, { ...options, seed: ${details.seed}, path: ${JSON.stringify(path)} })`,
  ].join('\n');
  options.log?.(message);
  return {
    ok: false,
    seed: details.seed,
    runs: details.numRuns,
    trace: run.trace,
    failure: {
      seed: details.seed,
      path,
      scenario,
      steps,
      violations: run.violations,
      trace: run.trace,
      shrinks: details.numShrinks,
      message,
    },
  };
}

/**
 * {@link simulate}, throwing an `Error` whose message is the failure's (seed, shortened trace, violations,
 * reproduction) when a scenario fails: the one-liner of a spec.
 *
 * # Guarantees
 * - Returns the report when every run passed; throws only for a failing scenario or invalid options.
 */
export function assertSimulation(definition: ControllerDefinition, options: SimulateOptions): SimulationReport {
  const report = simulate(definition, options);
  if (report.failure !== undefined) throw new Error(report.failure.message);
  return report;
}

/**
 * One run of `scenario`, and for crash safety (`invariants.crashSafe`) of a scenario with crashes, one more of the
 * same scenario without them: both must end in the same state.
 */
function runChecked(definition: ControllerDefinition, scenario: Scenario, settings: RunSettings): ScenarioRun {
  const run = runScenario(definition, scenario, settings);
  const crashFree = scenario.steps.filter((step) => !('fault' in step) || step.fault.fault !== 'crash');
  if (settings.invariants.crashSafe === undefined || crashFree.length === scenario.steps.length) return run;
  const twin = runScenario(definition, { ...scenario, steps: crashFree }, settings);
  if (twin.state === run.state) return run;
  return {
    ...run,
    violations: [
      ...run.violations,
      `crash safety does not hold: with its crashes the run ends in ${run.state}, without them in ${twin.state}`,
    ],
  };
}

function positive(name: string, value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new RangeError(`simulate: ${name} must be a finite number of ms > 0, got ${String(value)}`);
  return value;
}

function nonNegative(name: string, value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw new RangeError(`simulate: ${name} must be a finite number of ms >= 0, got ${String(value)}`);
  return value;
}
