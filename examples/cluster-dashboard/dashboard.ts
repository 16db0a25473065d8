/**
 * The cluster dashboard: a live web page about the cluster and the controllers of a manager, run as one more
 * controller of that manager. It reads the manager's shared informers through derived views, the controllers'
 * queues through the reconcile operator's metrics hook, and leadership from its context; it sends the browsers
 * sampled pictures over Server-Sent Events.
 *
 * ```
 * views' snapshots ─┐
 * queue hooks ──────┤ merge ─ throttleTime(interval) ─ read + serialize once ─ shareReplay(1) ─┬─ latestWhenWritable ─ browser 1
 * leadership, … ────┘                                                                         └─ latestWhenWritable ─ browser 2
 * ```
 * @module
 */
import {
  BehaviorSubject,
  filter,
  merge,
  Observable,
  shareReplay,
  Subject,
  Subscription,
  switchMap,
  take,
  tap,
} from 'rxjs';
import { wallClockNow, type ControllerDefinition, type ReconcileEvent, type WatchStatus } from '../../src/index.js';
import { messageOf } from '../shared/health.js';
import { clusterViews } from './cluster-views.js';
import { resolveDashboardOptions, type DashboardOptions } from './options.js';
import { pictures } from './pictures.js';
import { observeController, ReconcileWatch } from './reconcile-watch.js';
import { LEADER_HISTORY, readDashboardState, type DashboardState, type LeaderState } from './state.js';
import { startDashboardServer, type DashboardServer } from './server.js';

/** The dashboard's name as a controller of its manager (its logs' `controller` field). */
export const DASHBOARD_CONTROLLER = 'dashboard';

/** A dashboard, and how to put it under a manager. */
export interface ClusterDashboard {
  /**
   * `definition` as it is, but for its queue and runs shown on the page: its reconcile operators report to the
   * dashboard through their metrics hook too. The controller's code is not changed.
   */
  observe(definition: ControllerDefinition): ControllerDefinition;
  /**
   * The dashboard as a controller of the same manager: it serves the page while it runs, and needs no leadership
   * (a standby replica serves it too, saying it does not lead). It emits no events.
   */
  readonly controller: ControllerDefinition;
  /** Emits the server once it listens (for benchmarks and tests: its `stats()`); replays it. */
  readonly server$: Observable<DashboardServer>;
}

/**
 * A dashboard with `options`; checks them at once (see `resolveDashboardOptions`).
 *
 * # Guarantees
 * - Listens on 127.0.0.1 only, and prints `<title>: dashboard on http://127.0.0.1:<port>/` once it does; a port in
 *   use fails the controller (so the manager stops, saying why).
 * - Costs nothing per cluster event while no browser is connected beyond the queue hook's O(1) bookkeeping: the
 *   views run while a browser is connected (a view is built from the current snapshots when it starts).
 * - At most one picture per `updateIntervalMs`, read and serialized once for every browser; the first goes out at
 *   once, a change after a quiet spell too, later ones at the end of the interval (`throttleTime` leading and
 *   trailing), so the page lags the cluster by at most one interval plus the write.
 * - A browser that reads slowly gets the latest picture when its socket drains, never a queue of old ones (see
 *   `latestWhenWritable`); one that reconnects gets the whole picture at once.
 * - On the manager's stop the page says so, the stream stays up while the observed controllers drain, and the
 *   server closes when they have ended; then the dashboard completes.
 */
export function clusterDashboard(options: DashboardOptions): ClusterDashboard {
  const settings = resolveDashboardOptions(options);
  const watches$ = new BehaviorSubject<readonly ReconcileWatch[]>([]);
  const running$ = new BehaviorSubject(0);
  const server$ = new Subject<DashboardServer>();
  const served$ = server$.pipe(shareReplay(1));
  served$.subscribe();

  const observe = (definition: ControllerDefinition): ControllerDefinition => ({
    ...definition,
    start: (context) => {
      const watch = new ReconcileWatch(definition.name, () => wallClockNow(context.scheduler), settings.recentRuns);
      watches$.next([...watches$.value.filter((known) => known.controller !== definition.name), watch]);
      running$.next(running$.value + 1);
      return observeController(definition, watch, () => running$.next(running$.value - 1)).start(context);
    },
  });

  const controller: ControllerDefinition = {
    name: DASHBOARD_CONTROLLER,
    needLeaderElection: false,
    start: (context) =>
      new Observable<ReconcileEvent>((subscriber) => {
        const { scheduler } = context;
        const cluster = clusterViews(context.informers, settings);
        const subscription = new Subscription();
        // Everything but the views: always on, and cheap (a flag, a Map write, a Subject emission).
        const changes = new Subject<void>();
        const statuses = new Map<string, WatchStatus>();
        const history: Array<LeaderState['history'][number]> = [];
        let leading = false;
        let stopping = false;
        let clients = 0;
        let server: DashboardServer | undefined;
        let closed = false;

        // A process starts not leading: the history lists changes from there (a standby replica's stays empty).
        subscription.add(
          context.leader$.subscribe((now) => {
            if (now !== leading) {
              history.unshift({ leading: now, at: wallClockNow(scheduler) });
              if (history.length > LEADER_HISTORY) history.length = LEADER_HISTORY;
            }
            leading = now;
            changes.next();
          }),
        );
        for (const { name, informer } of cluster.informers) {
          subscription.add(
            informer.status$.subscribe((status) => {
              statuses.set(name, status);
              changes.next();
            }),
          );
        }
        subscription.add(
          watches$.pipe(switchMap((watches) => merge(...watches.map((watch) => watch.changed$)))).subscribe(changes),
        );

        const read = (): DashboardState =>
          readDashboardState(
            {
              title: settings.title,
              views: cluster,
              watches: watches$.value,
              leader: {
                enabled: settings.lease !== false,
                lease: settings.lease === false ? undefined : `${settings.lease.namespace}/${settings.lease.name}`,
                leading,
                history,
              },
              statuses,
              stopping,
              clients,
              listLimit: settings.listLimit,
              recentRuns: settings.recentRuns,
            },
            wallClockNow(scheduler),
          );

        // The views run while a browser is connected (or `GET /state` asks).
        const frames$ = pictures(
          {
            live: [
              ...cluster.kinds.map(({ perNamespace }) => perNamespace.store$),
              cluster.podPhases.store$,
              cluster.podSetPods.store$,
              ...(cluster.lease === undefined ? [] : [cluster.lease.store$]),
            ],
            changes,
          },
          read,
          settings.updateIntervalMs,
          scheduler,
        );

        const close = (): void => {
          if (closed) return;
          closed = true;
          subscription.unsubscribe();
          const closing = server?.close() ?? Promise.resolve();
          void closing.then(() => subscriber.complete());
        };

        startDashboardServer({ port: settings.port, maxClients: settings.maxClients, frames$, scheduler }).then(
          (started) => {
            if (closed || subscriber.closed) {
              void started.close();
              return;
            }
            server = started;
            settings.print(`${settings.title}: dashboard on ${started.url}`);
            subscription.add(
              started.clients$.subscribe((count) => {
                clients = count;
                changes.next();
              }),
            );
            server$.next(started);
          },
          (error: unknown) => {
            subscriber.error(
              new Error(`dashboard: could not listen on 127.0.0.1:${settings.port}: ${messageOf(error)}`, {
                cause: error,
              }),
            );
          },
        );

        // The manager's graceful stop: say so, keep serving while the observed controllers drain, then close.
        subscription.add(
          context.stop$
            .pipe(
              take(1),
              tap(() => {
                stopping = true;
                changes.next();
              }),
              switchMap(() =>
                running$.pipe(
                  filter((count) => count <= 0),
                  take(1),
                ),
              ),
            )
            .subscribe(() => close()),
        );

        return () => {
          closed = true;
          subscription.unsubscribe();
          void server?.close();
        };
      }),
  };

  return { observe, controller, server$: served$ };
}
