import { expect } from 'chai';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { map, NEVER, of, Subject, timer, VirtualTimeScheduler } from 'rxjs';
import { controllerContext } from '../../src/controller/context/index.js';
import {
  HIGH_PRIORITY,
  LOW_PRIORITY,
  reconcile,
  type ReconcileOptions,
  type ReconcileTrigger,
} from '../../src/controller/index.js';
import { ControllerMetrics, createManagerMetrics, type ManagerMetrics } from '../../src/manager/metrics/index.js';
import { settleLater } from '../controller/helpers.js';
import { histogramCount, metricValue } from './scrape.js';

/**
 * One controller's metrics as a real `reconcile` operator's metrics hook, as the manager passes them, on a virtual
 * clock that the spec moves by hand so that it can scrape (asynchronously) between steps.
 */
function instrumented(fn: Parameters<typeof reconcile>[0], options: ReconcileOptions) {
  const scheduler = new VirtualTimeScheduler();
  const metrics: ManagerMetrics = createManagerMetrics(new Registry(), false);
  const controller = new ControllerMetrics(metrics, 'stuck');
  const triggers = new Subject<string>();
  triggers.pipe(reconcile(fn, { ...options, scheduler, metrics: controller })).subscribe();
  return {
    scheduler,
    trigger: (key: string) => triggers.next(key),
    /** Runs every action due up to `ms` and leaves the clock at `ms`. */
    advanceTo: (ms: number) => {
      scheduler.schedule(() => undefined, ms - scheduler.now());
      scheduler.maxFrames = ms;
      scheduler.flush();
    },
    /** The stuck-worker gauges, as `/metrics` serves them. */
    gauges: async () => {
      const families = new Map(
        parsePrometheusTextFormat(await metrics.scrape()).map((family) => [family.name, family]),
      );
      const queue = { name: 'stuck', controller: 'stuck' };
      return {
        activeWorkers: metricValue(families, 'controller_runtime_active_workers', { controller: 'stuck' }),
        unfinishedWorkSeconds: metricValue(families, 'workqueue_unfinished_work_seconds', queue),
        longestRunningSeconds: metricValue(families, 'workqueue_longest_running_processor_seconds', queue),
        depth: metricValue(families, 'workqueue_depth', queue),
      };
    },
  };
}

describe('ControllerMetrics: the stuck-worker gauges', () => {
  it('counts a Promise that outlived its timeout as an active worker until it settles', async () => {
    let calls = 0;
    const stuck = instrumented(
      () => (calls++ === 0 ? settleLater(stuck.scheduler, 10_000, { value: undefined }) : undefined),
      { timeout: 1_000 },
    );
    stuck.trigger('a');
    stuck.advanceTo(500);
    stuck.trigger('b'); // waits: the only slot is held by a
    stuck.advanceTo(5_000);
    // The run of a failed at its deadline (1 s) but still holds its key and the controller's only slot.
    expect(await stuck.gauges()).to.deep.equal({
      activeWorkers: 1,
      unfinishedWorkSeconds: 5,
      longestRunningSeconds: 5,
      depth: 1,
    });
    stuck.advanceTo(10_000);
    // Settled at 10 s: a's slot went to b, which ran at once; a's retry ran after it.
    expect(await stuck.gauges()).to.deep.equal({
      activeWorkers: 0,
      unfinishedWorkSeconds: 0,
      longestRunningSeconds: 0,
      depth: 0,
    });
    expect(calls).to.equal(3);
  });
});

describe("ControllerMetrics: the operator's own queue", () => {
  /** A controller's context as the manager builds it: its `reconcile` reports to the controller's metrics. */
  function context() {
    const scheduler = new VirtualTimeScheduler();
    const metrics: ManagerMetrics = createManagerMetrics(new Registry(), false);
    const context = controllerContext({
      name: 'c',
      connection: new KubeConfig(),
      informers: undefined as never,
      scheduler,
      random: Math.random,
      reportError: () => undefined,
      gate: of(true),
      leader$: of(true),
      stop$: NEVER,
      drainTimeout: 1000,
      recorder: undefined,
      onWarning: () => undefined,
      metrics: new ControllerMetrics(metrics, 'c'),
    });
    const queue = async () => {
      const families = new Map(
        parsePrometheusTextFormat(await metrics.scrape()).map((family) => [family.name, family]),
      );
      const labels = { name: 'c', controller: 'c' };
      return {
        depth: metricValue(families, 'workqueue_depth', labels),
        adds: metricValue(families, 'workqueue_adds_total', labels),
      };
    };
    return { scheduler, context, queue };
  }

  it('counts no add and no depth for a trigger the operator rejects', async () => {
    const { scheduler, context: c, queue } = context();
    const triggers = new Subject<ReconcileTrigger>();
    const rejected: unknown[] = [];
    triggers
      .pipe(c.reconcile(() => undefined, {}))
      .subscribe((event) => event.type === 'rejected' && rejected.push(event.trigger));
    triggers.next({ key: 'a', reason: 5 as never });
    scheduler.flush();
    expect(rejected).to.have.length(1);
    expect(await queue()).to.deep.equal({ depth: 0, adds: 0 });
  });

  it('counts the operators of one controller apart: the same key in two of them is two adds, and no depth is left', async () => {
    const { scheduler, context: c, queue } = context();
    const triggers = new Subject<string>();
    triggers.pipe(c.reconcile(() => timer(10, scheduler), {})).subscribe();
    triggers.pipe(c.reconcile(() => timer(20, scheduler), {})).subscribe();
    triggers.next('a');
    scheduler.flush();
    expect(await queue()).to.deep.equal({ depth: 0, adds: 2 });
  });
});

describe('ControllerMetrics: priorities', () => {
  function prioritized() {
    const scheduler = new VirtualTimeScheduler();
    const metrics: ManagerMetrics = createManagerMetrics(new Registry(), false);
    const triggers = new Subject<ReconcileTrigger>();
    triggers
      .pipe(reconcile(() => timer(10, scheduler), { scheduler, metrics: new ControllerMetrics(metrics, 'p') }))
      .subscribe();
    const depth = async (priority: string) => {
      const families = new Map(
        parsePrometheusTextFormat(await metrics.scrape()).map((family) => [family.name, family]),
      );
      return metricValue(families, 'workqueue_depth', { name: 'p', controller: 'p', priority });
    };
    const waits = (priority: string) =>
      histogramCount(metrics.registry, 'workqueue_queue_duration_by_priority_seconds', { name: 'p', priority });
    return { scheduler, triggers, depth, waits };
  }

  it("labels the depth by priority, as controller-runtime's priority queue does, and the queue waits by the run's priority", async () => {
    const { scheduler, triggers, depth, waits } = prioritized();
    expect(await depth('0')).to.equal(0); // the normal priority has a sample before anything ran
    triggers.next({ key: 'a' });
    triggers.next({ key: 'b', priority: LOW_PRIORITY });
    triggers.next({ key: 'c', priority: HIGH_PRIORITY });
    triggers.next({ key: 'a', priority: HIGH_PRIORITY }); // a runs: its next run is in the depth, at its priority
    expect([await depth('0'), await depth('-100'), await depth('100')]).to.deep.equal([0, 1, 2]);
    scheduler.flush();
    expect([await depth('0'), await depth('-100'), await depth('100')]).to.deep.equal([0, 0, 0]);
    expect([await waits('0'), await waits('-100'), await waits('100')]).to.deep.equal([1, 1, 2]);
  });

  it('labels at most 25 distinct priorities, and the rest under exceeded_cardinality_limit', async () => {
    const { scheduler, triggers, depth, waits } = prioritized();
    for (let priority = 1; priority <= 30; priority += 1) triggers.next({ key: `k${priority}`, priority });
    // k1 started at once; 0 and 1 to 24 take the 25 labels, so k25 to k30 wait over the limit.
    expect(await depth('24')).to.equal(1);
    expect(await depth('exceeded_cardinality_limit')).to.equal(6);
    scheduler.flush();
    expect(await waits('exceeded_cardinality_limit')).to.equal(6);
  });
});

describe('ControllerMetrics: read-your-own-writes', () => {
  it('counts a run that starts on a stale cache, and a key that waits for its caches in the depth meanwhile', async () => {
    const scheduler = new VirtualTimeScheduler();
    const metrics: ManagerMetrics = createManagerMetrics(new Registry(), false);
    const triggers = new Subject<string>();
    const staleAfter = (ms: number) => timer(ms, scheduler).pipe(map(() => ({ waitedMs: ms, behind: [] })));
    triggers
      .pipe(
        reconcile(() => undefined, {
          scheduler,
          metrics: new ControllerMetrics(metrics, 'c'),
          readiness: { wait: (key) => (key === 'a' ? staleAfter(100) : undefined) },
        }),
      )
      .subscribe();
    const scrape = async () => {
      const families = new Map(
        parsePrometheusTextFormat(await metrics.scrape()).map((family) => [family.name, family]),
      );
      return {
        staleReads: metricValue(families, 'controller_runtime_reconcile_stale_reads_total', { controller: 'c' }),
        depth: metricValue(families, 'workqueue_depth', { name: 'c', controller: 'c' }),
      };
    };
    triggers.next('a');
    triggers.next('b');
    scheduler.maxFrames = 50;
    scheduler.flush();
    expect(await scrape()).to.deep.equal({ staleReads: 0, depth: 1 });
    scheduler.maxFrames = Number.POSITIVE_INFINITY;
    scheduler.flush();
    expect(await scrape()).to.deep.equal({ staleReads: 1, depth: 0 });
  });
});
