/**
 * One informer's reflector metrics, derived from its `status$`, `problems$` and `store$`.
 */
import type { InformerProblem } from '../../informer/index.js';
import type { WatchStatus } from '../../watch/index.js';
import type { ManagerMetrics } from './definitions.js';

/**
 * Records one informer (named as in logs: `Pod v1 in default`) into the manager's metrics.
 *
 * # Guarantees
 * - `reflector_lists_total` counts lists started (the first page of each), `reflector_relists_total` those after
 *   the first, `reflector_watches_total` watches the server accepted, `reflector_errors_total` failed requests by
 *   reason (`Expired`, `Forbidden`, `NetworkError`, …), `reflector_problems_total` bad objects by reason.
 * - `reflector_last_resource_version` is the store's resourceVersion (or the watch's), when it is a number, as
 *   client-go's reflector metric was.
 */
export class ReflectorMetrics {
  private readonly labels: { readonly name: string };
  private lists = 0;

  constructor(
    private readonly metrics: ManagerMetrics,
    name: string,
  ) {
    this.labels = { name };
    for (const counter of [metrics.lists, metrics.relists, metrics.watches]) counter.inc(this.labels, 0);
  }

  status(status: WatchStatus): void {
    switch (status.state) {
      case 'listing':
        if (status.page !== 1) return;
        this.lists += 1;
        this.metrics.lists.inc(this.labels);
        if (this.lists > 1) this.metrics.relists.inc(this.labels);
        return;
      case 'watching':
        this.metrics.watches.inc(this.labels);
        this.resourceVersion(status.resourceVersion);
        return;
      case 'error':
      case 'failed':
        this.metrics.reflectorErrors.inc({ ...this.labels, reason: status.cause.reason });
        return;
      default:
        return;
    }
  }

  problem(problem: InformerProblem): void {
    this.metrics.problems.inc({ ...this.labels, reason: problem.reason });
  }

  resourceVersion(resourceVersion: string | undefined): void {
    if (resourceVersion === undefined || !/^\d+$/.test(resourceVersion)) return;
    this.metrics.lastResourceVersion.set(this.labels, Number(resourceVersion));
  }
}
