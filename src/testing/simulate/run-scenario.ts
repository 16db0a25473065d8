/**
 * One simulated run: a scenario played against a controller on a fresh virtual cluster, in its own
 * `TestScheduler.run()`, then checked.
 * @module
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Observable } from 'rxjs';
import { resourceClient } from '../../client/index.js';
import { messageOf } from '../../error-messages/index.js';
import { objectKey } from '../../objects/index.js';
import { ApiError } from '../../transport/index.js';
import {
  virtualCluster,
  type ConflictKeyOptions,
  type VirtualCluster,
  type VirtualClusterOptions,
} from '../virtual/index.js';
import { seededRandom } from '../apiserver/index.js';
import { hostRestartable } from './controller-host.js';
import { ControllerFaultState } from './controller-view.js';
import { GuardedTestScheduler } from './guarded-scheduler.js';
import {
  deletedPaths,
  idempotenceViolation,
  staleDeleteViolations,
  writeRecorder,
  writeViolations,
  type RecordedWrite,
} from './oracles.js';
import { describeStep, type Scenario, type ScenarioStep } from './scenario.js';
import type { CacheUnderTest, Check, FaultStep, Invariants, SimulationWorld, Workload } from './types.js';
import type { ControllerContext, ControllerDefinition, ReconcileEvent } from 'rxkube';

/** What one run of a scenario produced. */
export interface ScenarioRun {
  /** Every line of the run: steps, their outcomes, faults and the controller's decisions, each with its time. */
  readonly trace: readonly string[];
  /** The invariants that did not hold, each with its reason; empty when the run passed. */
  readonly violations: readonly string[];
  /** Every ReconcileEvent the controller emitted during the run, in order (what the invariants saw as `events`). */
  readonly events: readonly ReconcileEvent[];
  /** `invariants.crashSafe` of the final state, as JSON, when it is set. */
  readonly state?: string;
  /** The paths the controller deleted (the server carried the delete out). */
  readonly deleted: ReadonlySet<string>;
}

/** How a scenario is run. */
export interface RunSettings {
  /** Virtual ms during which the scenario's steps happen (the steps' `at` are in `[0, duration)`). */
  readonly duration: number;
  /** Quiet virtual ms after `duration` before the checks; virtual time stops at `duration + settle`. */
  readonly settle: number;
  /** The workloads the scenario's steps refer to, by index (`ScenarioStep.workload`). */
  readonly workloads: readonly Workload<KubernetesObject>[];
  /** What is checked at `duration + settle`. */
  readonly invariants: Invariants;
  /** The informers whose caches `invariants.cachesMatchServer` compares with the server, from the run's context. */
  readonly caches?: (context: ControllerContext) => readonly CacheUnderTest[];
  /** Objects stored before the controller starts (CRDs, namespaces, fixtures), as `cluster.seed` stores them. */
  readonly objects?: readonly KubernetesObject[];
  /** Options of each run's virtual cluster (the scheduler and the seed are the run's). */
  readonly cluster?: Omit<VirtualClusterOptions, 'scheduler' | 'seed'>;
}

/** One line per ReconcileEvent: `started n1#1`, `requeued n1 +30000`, `failed n1: <message>`, `retrying n1 +5`. */
export function describeEvent(event: ReconcileEvent): string {
  switch (event.type) {
    case 'started':
      return `started ${event.key}#${event.attempt}`;
    case 'succeeded':
      return `succeeded ${event.key}`;
    case 'requeued':
      return `requeued ${event.key} +${event.delayMs}`;
    case 'failed':
      return `failed ${event.key}${event.terminal ? ' terminal' : ''}: ${messageOf(event.error)}`;
    case 'retrying':
      return `retrying ${event.key} +${event.delayMs}`;
    case 'dropped':
      return `dropped ${event.key}`;
    case 'released':
      return `released ${event.key}`;
    case 'rejected':
      return `rejected: ${event.error.message}`;
  }
}

/**
 * Plays `scenario` against `definition`'s controller: workload steps and faults at their times, then `settle` quiet
 * ms, then the invariants. Deterministic: the same scenario gives the same trace, byte for byte.
 */
export function runScenario(definition: ControllerDefinition, scenario: Scenario, settings: RunSettings): ScenarioRun {
  const trace: string[] = [];
  const violations: string[] = [];
  const events: ReconcileEvent[] = [];
  const checkAt = settings.duration + settings.settle;
  const idempotentWithin = settings.invariants.idempotentWithin ?? 0;
  const end = checkAt + idempotentWithin;
  const writes: RecordedWrite[] = [];
  let state: string | undefined;
  const scheduler = new GuardedTestScheduler();
  try {
    scheduler.run(() => {
      // Bounds the flush: a controller that keeps a timer alive after it was stopped cannot hang the run.
      scheduler.maxFrames = end;
      const log = (line: string): void => void trace.push(`${scheduler.now()} ${line}`);
      const cluster = virtualCluster({ ...settings.cluster, scheduler, seed: scenario.seed });
      if (settings.objects !== undefined && settings.objects.length > 0) cluster.seed(settings.objects);
      const view = new ControllerFaultState(cluster, seededRandom(scenario.seed ^ 0x3e1ee7));
      let caches: readonly CacheUnderTest[] | undefined;
      // Each incarnation is a fresh manager over the same cluster: nothing of the one before survives but its writes.
      const controller = hostRestartable(definition, {
        cluster,
        state: view,
        random: (incarnation) => seededRandom((scenario.seed ^ 0x5eed) + (incarnation - 1) * 0x9e37),
        onError: (error) => log(`controller reported: ${messageOf(error)}`),
        onWrite: writeRecorder(writes, log),
        onCrash: (crash) => log(`controller crashed at ${crash.request} (${crash.mode})`),
        onRestart: (incarnation) => log(`controller restarted (incarnation ${incarnation})`),
        observer: {
          next: (event) => {
            events.push(event);
            log(describeEvent(event));
          },
          error: (error: unknown) => {
            log(`controller errored: ${messageOf(error)}`);
            violations.push(`the controller's stream errored at ${scheduler.now()} ms: ${messageOf(error)}`);
          },
          complete: () => log('controller completed'),
        },
        onStartError: (error) => violations.push(`the controller could not be started: ${messageOf(error)}`),
        onStarted: (context) => {
          try {
            caches = context === undefined ? [] : (settings.caches?.(context) ?? []);
          } catch (error) {
            violations.push(`the controller could not be started: ${messageOf(error)}`);
          }
        },
      });
      controller.start();
      for (const step of scenario.steps)
        scheduler.schedule(() => perform(step, scenario, { cluster, view }, settings, log), step.at);
      scheduler.schedule(() => {
        log('check');
        if (caches !== undefined) {
          const seen = { events, trace, now: scheduler.now() };
          violations.push(...check(cluster, caches, settings, seen));
          violations.push(...writeViolations(settings.invariants, writes, scheduler.now()));
          const { crashSafe } = settings.invariants;
          if (crashSafe !== undefined) state = crashSafeState(crashSafe, cluster, seen);
        }
        if (idempotentWithin === 0) return;
        // A fresh manager over the final state, with every fault over: whatever it writes, it did not need to.
        controller.stop();
        view.clear();
        const before = writes.length;
        log('idempotence: a fresh controller over the final state');
        controller.start();
        scheduler.schedule(() => {
          log('idempotence check');
          violations.push(...idempotenceViolation(writes.slice(before), idempotentWithin));
        }, idempotentWithin);
      }, checkAt);
      scheduler.schedule(() => {
        controller.stop();
        cluster.close();
      }, end);
    });
  } catch (error) {
    // Virtual time stuck, or an error thrown from a scheduled action: the run fails with it rather than hanging.
    trace.push(`${scheduler.now()} run stopped: ${messageOf(error)}`);
    violations.push(`the run stopped at ${scheduler.now()} ms: ${messageOf(error)}`);
  }
  if (settings.invariants.noStaleDeletes && writes.some((write) => write.stale && write.method === 'DELETE')) {
    // The same scenario with a true view: what it deletes too was not deleted because of a stale read.
    const honest = scenario.steps.filter(
      (step) => !('fault' in step) || (step.fault.fault !== 'staleView' && step.fault.fault !== 'mergeEvents'),
    );
    const twin = runScenario(definition, { ...scenario, steps: honest }, settings);
    violations.push(...staleDeleteViolations(settings.invariants, writes, twin.deleted));
  }
  return { trace, violations, events, deleted: deletedPaths(writes), ...(state !== undefined ? { state } : {}) };
}

/** What `crashSafe` makes of the final state, as JSON (a throw is a state too: it must throw alike without crashes). */
function crashSafeState(
  crashSafe: (world: SimulationWorld) => unknown,
  cluster: VirtualCluster,
  seen: Omit<SimulationWorld, 'server'>,
): string {
  try {
    return (
      JSON.stringify(crashSafe({ ...seen, server: (resource, namespace) => cluster.list(resource, namespace) })) ??
      'undefined'
    );
  } catch (error) {
    return `threw ${messageOf(error)}`;
  }
}

/** Where faults land: the cluster's own, and the controller's view of it. */
interface FaultTargets {
  readonly cluster: VirtualCluster;
  readonly view: ControllerFaultState;
}

function perform(
  step: ScenarioStep,
  scenario: Scenario,
  targets: FaultTargets,
  settings: RunSettings,
  log: (line: string) => void,
): void {
  log(describeStep(step));
  const { cluster } = targets;
  if ('fault' in step) {
    injectFault(step.fault, scenario, targets, settings, log);
    return;
  }
  const workload = settings.workloads[step.workload]!;
  const client = resourceClient<KubernetesObject>(cluster, workload.resource, { scheduler: cluster.scheduler });
  const { step: work } = step;
  const scoped = work.op === 'create' ? client : work.namespace ? client.inNamespace(work.namespace) : client;
  const request$: Observable<unknown> =
    work.op === 'create'
      ? scoped.create(work.object)
      : work.op === 'update'
        ? scoped.patch(work.name, { type: 'merge', body: work.patch })
        : scoped.delete(work.name);
  request$.subscribe({
    next: () => log(`  -> ok ${work.op}`),
    error: (error: unknown) =>
      log(`  -> ${error instanceof ApiError ? `${error.code} ${error.reason}` : messageOf(error)} ${work.op}`),
  });
}

function injectFault(
  fault: FaultStep,
  scenario: Scenario,
  { cluster, view }: FaultTargets,
  settings: RunSettings,
  log: (line: string) => void,
): void {
  const { faults } = cluster;
  switch (fault.fault) {
    case 'dropWatches':
      faults.dropWatches({ mode: fault.mode });
      return;
    case 'compact':
      faults.compact();
      return;
    case 'conflict': {
      // The target is picked among the objects the scenario's workload steps name, stored yet or not, so a conflict
      // can be armed before the object exists, and shrinking the pick keeps it meaningful.
      const targets = targetsOf(scenario, settings);
      if (targets.length === 0) {
        log('  -> no object to conflict on');
        return;
      }
      const target = targets[fault.pick % targets.length]!;
      faults.conflictNext(target);
      log(`  -> the next write to ${target.namespace ? `${target.namespace}/` : ''}${target.name} conflicts`);
      return;
    }
    case 'failWrites':
      faults.failWrites({ status: fault.status, count: fault.count });
      return;
    case 'latency':
      faults.latency(fault.ms);
      cluster.scheduler.schedule(() => {
        log('latency back to 0');
        faults.latency(0);
      }, fault.forMs);
      return;
    case 'stallWatches':
      faults.stallWatches(fault.ms);
      return;
    case 'malformedLine':
      faults.injectMalformedLine();
      return;
    case 'restart':
      faults.restart();
      return;
    // The controller's view heals when the faults stop, at `duration`: the settle is the time to converge.
    case 'staleView':
      view.staleView(fault, settings.duration);
      return;
    case 'mergeEvents':
      view.mergeEvents(fault, settings.duration);
      return;
    case 'crash':
      view.crashAt(fault);
      return;
  }
}

/** The objects a scenario's workload steps name, by resource, namespace and name, each once, sorted. */
function targetsOf(scenario: Scenario, settings: RunSettings): ConflictKeyOptions[] {
  const targets = new Map<string, ConflictKeyOptions>();
  for (const step of scenario.steps) {
    if ('fault' in step) continue;
    const { resource } = settings.workloads[step.workload]!;
    const work = step.step;
    const name = work.op === 'create' ? work.object.metadata?.name : work.name;
    const namespace = work.op === 'create' ? work.object.metadata?.namespace : work.namespace;
    if (name === undefined) continue;
    const id = JSON.stringify([resource.apiVersion, resource.kind, namespace ?? '', name]);
    targets.set(id, { resource, name, ...(namespace ? { namespace } : {}) });
  }
  return [...targets].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, target]) => target);
}

/** Every invariant that does not hold, with its reason. */
function check(
  cluster: VirtualCluster,
  caches: readonly CacheUnderTest[],
  settings: RunSettings,
  seen: Omit<SimulationWorld, 'server'>,
): string[] {
  const world: SimulationWorld = { ...seen, server: (resource, namespace) => cluster.list(resource, namespace) };
  const violations: string[] = [];
  const { invariants } = settings;
  if (invariants.cachesMatchServer !== false) {
    for (const cache of caches) {
      const difference = cacheDifference(cache, cluster);
      if (difference !== undefined) violations.push(difference);
    }
  }
  const run = (name: string, invariant: Check | undefined): void => {
    if (invariant === undefined) return;
    let verdict: boolean | string | void;
    try {
      verdict = invariant(world);
    } catch (error) {
      verdict = `threw ${messageOf(error)}`;
    }
    if (verdict === false) violations.push(`${name} does not hold`);
    else if (typeof verdict === 'string') violations.push(`${name} does not hold: ${verdict}`);
  };
  run('desired state', invariants.desired);
  for (const [name, invariant] of Object.entries(invariants.checks ?? {})) run(name, invariant);
  return violations;
}

/** How an informer's cache differs from the server, or `undefined` when it holds the same objects at the same versions. */
export function cacheDifference(cache: CacheUnderTest, cluster: VirtualCluster): string | undefined {
  const server = new Map(
    cluster
      .list(cache.resource, cache.namespace)
      .map((object) => [objectKey(object), object.metadata?.resourceVersion]),
  );
  const cached = new Map(
    cache.informer
      .current()
      .list()
      .map((object) => [objectKey(object), object.metadata?.resourceVersion]),
  );
  const problems: string[] = [];
  for (const [key, version] of server) {
    if (!cached.has(key)) problems.push(`missing ${key} (server rv ${version})`);
    else if (cached.get(key) !== version)
      problems.push(`stale ${key} (cache rv ${cached.get(key)}, server rv ${version})`);
  }
  for (const [key, version] of cached) if (!server.has(key)) problems.push(`extra ${key} (cache rv ${version})`);
  if (problems.length === 0) return undefined;
  const { apiVersion, kind } = cache.resource;
  return `the cache of ${apiVersion}/${kind} differs from the server: ${problems.join(', ')}`;
}
