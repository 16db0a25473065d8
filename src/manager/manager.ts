/**
 * `manager`: runs many controllers over one cache, with leader election, probes, metrics, structured logs and a
 * graceful stop on SIGTERM, as an Observable of what it does.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Observable } from 'rxjs';
import { eventRecorder } from '../client/events/index.js';
import { leaderElection } from '../leader/index.js';
import { resolveManagerOptions } from './options.js';
import { ManagerRun } from './run.js';
import { processSignals } from './signals.js';
import type { ManagerEvent, ManagerOptions } from './types.js';

/**
 * Runs `controllers` the way controller-runtime's manager does, as an `Observable<ManagerEvent>`: subscribing
 * runs it, unsubscribing stops it at once.
 *
 * ```ts
 * manager({ connection: kc, name: 'my-operator', controllers: [pods], leaderElection: { namespace: 'kube-system' } })
 *   .subscribe({ error: (error) => { console.error(error); process.exit(1); } });
 * ```
 *
 * # Guarantees
 * - **Shared caches, warm standby.** One informer factory serves every controller. Every controller is subscribed
 *   at once, so its informers list and watch before leadership is won; controllers that need leadership (the
 *   default) start runs only while this replica leads. Losing leadership closes their gate, which aborts the
 *   signal of every run in flight; then the process exits with 1 (`onLost: 'exit'`, the default) or the manager
 *   stays warm and campaigns again (`'standby'`) once the lost term's release has settled.
 * - **Monotonic time.** The default scheduler is `monotonicScheduler`: lease expiry, the renew deadline, the
 *   drain, readiness thresholds and every other duration are immune to steps of the system clock.
 * - **Probes.** `/healthz` (and `/livez`) answer 200 while the process runs. `/readyz` answers 200 once the manager
 *   has started, every informer has synced and none has been failing (error or backing off since its last
 *   `watching`) for longer than `informerFailureThreshold`, and every custom ready check passes; 500 with the
 *   failing checks otherwise, and from the start of a graceful stop on.
 * - **Metrics.** `/metrics` serves Prometheus text from a prom-client registry: controller-runtime's
 *   `controller_runtime_*`, client-go's `workqueue_*` (label `name`, and `controller`),
 *   `leader_election_master_status{name}`, reflector metrics (`reflector_lists_total`, `reflector_relists_total`,
 *   `reflector_watches_total`, `reflector_errors_total{reason}`, `reflector_problems_total{reason}`,
 *   `reflector_last_resource_version`) and Node's process metrics. A controller's are what the `reconcile`
 *   operators built with its `context.reconcile` report through their metrics hook (the queue's own adds, waits
 *   and outcomes; its depth, workers and unfinished work read when scraped); the informers' come from their streams.
 * - **Logs.** One JSON record per reconcile outcome (controller, key, reasons, attempt, durationMs, result, error
 *   with its stack) of those operators, per informer status change, per leadership change and per lifecycle step.
 *   Credentials and Secret data are redacted before any logger sees a record.
 * - **Graceful stop** on SIGTERM/SIGINT or `stop$`: readiness turns false, intake stops, in-flight runs drain for up
 *   to `shutdownTimeout` (then they are cancelled), the event recorder is flushed (within what is left of
 *   `shutdownTimeout`), the Lease is released (within `renewDeadline`), `stopped` is emitted and the Observable
 *   completes. After a signal, the process then exits with 0 if the drain was clean, 1 otherwise; a second
 *   signal exits with 1 at once. In standby, leadership lost during the stop does not end it early: the drain goes
 *   on and the stop ends, and exits, as it would have (there is just no Lease left to release).
 * - **Failures.** Bad options throw here. A controller that cannot be built, or a server that cannot listen,
 *   errors the manager; a controller that errors stops the manager gracefully, which then errors.
 *
 * # Caveats
 * - The whole shutdown can take `shutdownTimeout` plus `renewDeadline`: keep the pod's
 *   `terminationGracePeriodSeconds` above that.
 * - Servers bind all interfaces unless `host` is given; pass `host: '127.0.0.1'` in tests and local runs.
 * - `workqueue_depth` counts keys held while this replica does not lead: they are queued, deduplicated, waiting.
 */
export function manager(options: ManagerOptions): Observable<ManagerEvent> {
  const settings = resolveManagerOptions(options, processSignals);
  // Built once here so that bad recorder or election options throw now, not at subscription.
  if (settings.events !== undefined)
    eventRecorder(settings.connection, { reportingController: settings.name, ...settings.events });
  if (settings.leader !== undefined) {
    const { standby: _standby, ...election } = settings.leader;
    leaderElection(settings.connection, { ...election, identity: election.identity ?? 'validation' });
  }
  return new Observable<ManagerEvent>((subscriber) => {
    const run = new ManagerRun(settings, subscriber, `${hostname()}_${randomUUID()}`);
    run.start();
    return () => run.dispose();
  });
}
