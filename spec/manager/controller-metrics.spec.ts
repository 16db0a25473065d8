import { expect } from 'chai';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { Registry } from 'prom-client';
import { Subject, VirtualTimeScheduler } from 'rxjs';
import { reconcile, type ReconcileOptions } from '../../src/controller/index.js';
import { ControllerMetrics, createManagerMetrics, type ManagerMetrics } from '../../src/manager/metrics/index.js';
import { settleLater } from '../controller/helpers.js';
import { valueOf } from './scrape.js';

/**
 * One controller's metrics fed by a real `reconcile` operator, as the manager feeds them, on a virtual clock that
 * the spec moves by hand so that it can scrape (asynchronously) between steps.
 */
function instrumented(fn: Parameters<typeof reconcile>[0], options: ReconcileOptions) {
  const scheduler = new VirtualTimeScheduler();
  const metrics: ManagerMetrics = createManagerMetrics(new Registry(), false);
  const controller = new ControllerMetrics(metrics, scheduler, 'stuck');
  const triggers = new Subject<string>();
  triggers.pipe(reconcile(fn, { ...options, scheduler })).subscribe((event) => controller.event(event));
  controller.concurrency(options.concurrency ?? 1);
  return {
    scheduler,
    trigger: (key: string) => {
      controller.trigger(key);
      triggers.next(key);
    },
    /** Runs every action due up to `ms` and leaves the clock at `ms`. */
    advanceTo: (ms: number) => {
      scheduler.schedule(() => undefined, ms - scheduler.now());
      scheduler.maxFrames = ms;
      scheduler.flush();
    },
    /** The stuck-worker gauges, as `/metrics` serves them. */
    gauges: async () => {
      const families = new Map(parsePrometheusTextFormat(await metrics.scrape()).map((family) => [family.name, family]));
      const queue = { name: 'stuck', controller: 'stuck' };
      return {
        activeWorkers: valueOf(families, 'controller_runtime_active_workers', { controller: 'stuck' }),
        unfinishedWorkSeconds: valueOf(families, 'workqueue_unfinished_work_seconds', queue),
        longestRunningSeconds: valueOf(families, 'workqueue_longest_running_processor_seconds', queue),
        depth: valueOf(families, 'workqueue_depth', queue),
      };
    },
  };
}

describe('ControllerMetrics: the stuck-worker gauges', () => {
  it('counts a Promise that outlived its timeout as an active worker until it settles', async () => {
    let calls = 0;
    const stuck = instrumented(() => (calls++ === 0 ? settleLater(stuck.scheduler, 10_000, { value: undefined }) : undefined), { timeout: 1_000 });
    stuck.trigger('a');
    stuck.advanceTo(500);
    stuck.trigger('b'); // waits: the only slot is held by a
    stuck.advanceTo(5_000);
    // The run of a failed at its deadline (1 s) but still holds its key and the controller's only slot.
    expect(await stuck.gauges()).to.deep.equal({ activeWorkers: 1, unfinishedWorkSeconds: 5, longestRunningSeconds: 5, depth: 1 });
    stuck.advanceTo(10_000);
    // Settled at 10 s: a's slot went to b, which ran at once; a's retry ran after it.
    expect(await stuck.gauges()).to.deep.equal({ activeWorkers: 0, unfinishedWorkSeconds: 0, longestRunningSeconds: 0, depth: 0 });
    expect(calls).to.equal(3);
  });
});
