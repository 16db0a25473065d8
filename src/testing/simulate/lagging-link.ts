/**
 * A stale view of a virtual cluster for one client or one informer, outside `simulate`: the controller faults'
 * `staleView` and `mergeEvents`, armed by the test.
 * @module
 */
import type { Transport } from '../../transport/index.js';
import type { WatchHealthHandler } from '../../watch/index.js';
import { seededRandom } from '../apiserver/index.js';
import type { VirtualCluster } from '../virtual/index.js';
import {
  ControllerFaultState,
  controllerView,
  type MergeEventsOptions,
  type StaleViewOptions,
} from './controller-view.js';

/**
 * A way to a virtual cluster that can be made to lag the truth: pass it where a connection goes (`resourceClient`,
 * `informer`, `listWatch`), and arm its faults at the current virtual time.
 */
export interface LaggingLink extends Transport {
  /** Where the health reports of the watches over it go: the cluster's. */
  readonly onHealth: WatchHealthHandler;
  /**
   * From now for `forMs`: watch events lag (by `lagMs`, or by `versions` with `watchLag: 'versions'`), reads and
   * lists are served `versions` resourceVersions back, and with `relist` open watches end with 410 Expired, so that
   * an informer relists back in time, as after an apiserver failover.
   */
  staleView(options: StaleViewOptions): void;
  /** From now for `forMs`: watch events are held and delivered merged, only each object's last state. */
  mergeEvents(options: MergeEventsOptions): void;
  /** A true view from now on; held watch events go out in order. */
  heal(): void;
}

/**
 * A stale view of `cluster` for one client or one informer, as Sieve's lagging apiserver serves one.
 *
 * # Guarantees
 * - Reads, lists and watches lag as armed; writes go to the truth, and conflict as the real server would, because
 *   their preconditions are checked against the truth.
 * - Watch events are delivered in order, late or merged, never lost: a lagging watch catches up when the view heals.
 * - Deterministic: the same cluster seed and the same calls at the same virtual times give the same deliveries.
 *
 * # Caveats
 * - The faults act on what goes through this link only: other clients of the cluster keep a true view.
 * - `simulate` draws these faults itself (`CONTROLLER_FAULT_KINDS`), for the controller's own connection; this is
 *   for tests that script one.
 */
export function laggingLink(cluster: VirtualCluster): LaggingLink {
  const state = new ControllerFaultState(cluster, seededRandom(cluster.randomSeed ^ 0x1a661e));
  const view = controllerView(
    cluster,
    state,
    () => undefined,
    (_write, outcome) => outcome,
  );
  return {
    ...view,
    staleView: (options) => state.staleView(options),
    mergeEvents: (options) => state.mergeEvents(options),
    heal: () => state.clear(),
  };
}
