/**
 * The controller's own way to the virtual cluster in a simulation, and the faults that live on it: a stale view
 * (lagging watches and lists, one relist back in time), merged and reordered watch events (unobserved states), and
 * a crash at a drawn write.
 * @module
 */
import { NEVER, Observable, type Subscription } from 'rxjs';
import type { QueryParams, Transport, TransportRequest, TransportResponse } from '../../transport/index.js';
import type { WatchHealthHandler } from '../../watch/index.js';
import type { VirtualCluster } from '../virtual/index.js';
import { objectPath, readAt } from './stale-read.js';
import { DelayLine, EventMerger, VersionGate } from './watch-delivery.js';

/**
 * How a crash meets the write it is drawn at: `notSent`, the crash comes before the write leaves; `sent`, the write
 * is stored and its answer seen, and nothing after it leaves; `answerLost`, the write is stored and its answer
 * never arrives.
 */
export type CrashMode = 'notSent' | 'sent' | 'answerLost';

/** How a stale view's watches lag: by virtual time, or by resourceVersions behind the truth. */
export type WatchLag = 'time' | 'versions';

/** A stale view of the controller's: the `staleView` fault's values (`runController`'s `controllerFaults.staleView`). */
export interface StaleViewOptions {
  /** How late each watch event arrives, virtual ms (with `watchLag` `time`). */
  readonly lagMs: number;
  /** How many resourceVersions behind the truth lists are served (and watches, with `watchLag` `versions`). */
  readonly versions: number;
  /** How long the view is stale, virtual ms. */
  readonly forMs: number;
  /** A failover first: open watches end with 410 Expired and the controller relists from the lagging view. */
  readonly relist: boolean;
  /**
   * `time` (the default): each watch event arrives `lagMs` late. `versions`: each watch event is held until the
   * truth is `versions` resourceVersions past it, or the view heals.
   */
  readonly watchLag?: WatchLag;
}

/** Merged watch events of the controller's: the `mergeEvents` fault's values (`controllerFaults.mergeEvents`). */
export interface MergeEventsOptions {
  /** How long events are held and merged, virtual ms. */
  readonly forMs: number;
  /** How far apart the watches deliver after the window, virtual ms. */
  readonly spreadMs: number;
}

/** A crash of the controller at one of its writes: the `crash` fault's values (`controllerFaults.crash`). */
export interface CrashOptions {
  /** Which write of the controller, counted from now (0: the next one; Lease writes do not count). */
  readonly write: number;
  /** Not sent, sent (stored and answered), or stored with its answer lost; see {@link CrashMode}. */
  readonly mode: CrashMode;
  /** Virtual ms from the crash to the restart. */
  readonly restartMs: number;
}

/** The faults armed on the controller's view, shared by every incarnation of the controller in one run. */
export class ControllerFaultState {
  /** While `now < until`, watches lag (by `lagMs`, or by `versions`) and lists are served `versions` back. */
  stale:
    | { readonly until: number; readonly lagMs: number; readonly versions: number; readonly watchLag: WatchLag }
    | undefined;
  /** While `now < until`, watch events are held, then delivered merged per object, each watch `spreadMs` apart. */
  merge: { readonly until: number; readonly spreadMs: number } | undefined;
  /** The crash armed: at the `write`-th write of the controller (0 is the next one). */
  crash: { write: number; readonly mode: CrashMode; readonly restartMs: number } | undefined;
  /** The open watches of the live incarnation: each ends with 410 Expired when called (a relist follows). */
  readonly expire = new Set<() => void>();
  /** Watches holding events until the truth moves on: each is called when it may have. */
  private readonly waiting = new Set<() => void>();
  private advancing: Subscription | undefined;

  constructor(
    private readonly cluster: VirtualCluster,
    readonly random: () => number,
  ) {}

  /**
   * Serves the controller a lagging view from now for `forMs` (until `endBy` at the latest); with `relist`, after a
   * failover: its open watches end with 410 Expired, so it relists from the lagging view, back in time.
   */
  staleView(options: StaleViewOptions, endBy = Number.POSITIVE_INFINITY): void {
    const until = Math.min(this.cluster.scheduler.now() + options.forMs, endBy);
    const watchLag = options.watchLag ?? 'time';
    this.stale = { until, lagMs: options.lagMs, versions: options.versions, watchLag };
    // Held events go out when the view heals, whatever the truth did meanwhile.
    if (watchLag === 'versions')
      this.cluster.scheduler.schedule(() => this.advance(), until - this.cluster.scheduler.now());
    if (options.relist) for (const expire of [...this.expire]) expire();
  }

  /** Merges the controller's watch events from now for `forMs` (until `endBy` at the latest). */
  mergeEvents(options: MergeEventsOptions, endBy = Number.POSITIVE_INFINITY): void {
    this.merge = { until: Math.min(this.cluster.scheduler.now() + options.forMs, endBy), spreadMs: options.spreadMs };
  }

  /** Arms a crash at the controller's `write`-th write from now. */
  crashAt(options: CrashOptions): void {
    this.crash = { write: options.write, mode: options.mode, restartMs: options.restartMs };
  }

  /** Every fault over: a true view from now on, no crash armed. */
  clear(): void {
    this.stale = this.merge = this.crash = undefined;
    this.advance();
  }

  /** How many resourceVersions a watch lags now (0: none). */
  versionsBehind(): number {
    const stale = this.stale;
    return stale !== undefined && stale.watchLag === 'versions' && this.cluster.scheduler.now() < stale.until
      ? stale.versions
      : 0;
  }

  /** The truth's resourceVersion, as a number. */
  truth(): number {
    return Number(this.cluster.resourceVersion());
  }

  /** Registers a watch that holds events for the truth to move on; returns its removal. */
  wait(check: () => void): () => void {
    this.waiting.add(check);
    // Every write the cluster answers may move the truth on.
    this.advancing ??= this.cluster.requestLog.records$.subscribe(() => this.advance());
    return () => {
      this.waiting.delete(check);
      if (this.waiting.size > 0) return;
      this.advancing?.unsubscribe();
      this.advancing = undefined;
    };
  }

  private advance(): void {
    for (const check of [...this.waiting]) check();
  }
}

/** What a crash reports to the run: the write it happened at and how. */
export interface CrashReport {
  readonly mode: CrashMode;
  /** `<METHOD> <path>` of the write. */
  readonly request: string;
  /** Virtual ms from the crash to the restart. */
  readonly restartMs: number;
}

/** One write of the controller, as the oracles see it. */
export interface ControllerWrite {
  /** Virtual ms it was sent at. */
  readonly at: number;
  readonly method: string;
  readonly path: string;
  /** Sent while the controller's view was stale or its events merged. */
  readonly stale: boolean;
  /** A delete carrying a resourceVersion precondition: the server refuses it if the controller read the past. */
  readonly preconditioned: boolean;
}

/** Writes that are not a controller's own reconcile writes: leader election renews its Lease all the time. */
const LEASES = /\/apis\/coordination\.k8s\.io\//;
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * One incarnation's connection to `cluster`: a `Transport` whose reads, watches and writes meet `state`'s faults.
 * After its crash it sends nothing and delivers nothing more, as a dead process; `onCrash` is called once, from a
 * zero-delay action (never from inside the controller's own callbacks).
 */
export function controllerView(
  cluster: VirtualCluster,
  state: ControllerFaultState,
  onCrash: (crash: CrashReport) => void,
  onWrite: (write: ControllerWrite, outcome: Observable<TransportResponse>) => Observable<TransportResponse>,
): Transport & { readonly onHealth: WatchHealthHandler } {
  const { scheduler } = cluster;
  let dead = false;
  const die = (crash: CrashReport): void => {
    if (dead) return;
    dead = true;
    for (const expire of [...state.expire]) state.expire.delete(expire);
    scheduler.schedule(() => onCrash(crash));
  };
  const staleQuery = (query: QueryParams): QueryParams => {
    const stale = state.stale;
    if (stale === undefined || scheduler.now() >= stale.until || query['continue'] !== undefined) return query;
    const current = Number(cluster.resourceVersion());
    const back = Math.max(1, current - stale.versions);
    return { ...query, resourceVersion: String(back), resourceVersionMatch: 'Exact' };
  };
  const watchChunks = (
    path: string,
    query: QueryParams,
    options?: Parameters<NonNullable<Transport['watchChunks']>>[2],
  ): Observable<readonly string[]> =>
    new Observable<readonly string[]>((subscriber) => {
      if (dead) return;
      const line = new DelayLine(scheduler, () => dead);
      const merger = new EventMerger();
      const gate = new VersionGate(state, (lines) => line.send(0, () => subscriber.next(lines)));
      let flushAt: number | undefined;
      const hold = (lines: readonly string[]): void => {
        merger.add(lines);
        if (flushAt !== undefined) return;
        const merge = state.merge!;
        flushAt = merge.until + Math.floor(state.random() * (merge.spreadMs + 1));
        scheduler.schedule(flush, flushAt - scheduler.now());
      };
      const deliver = (lines: readonly string[]): void => {
        if (gate.holding() || state.versionsBehind() > 0) gate.hold(lines);
        else line.send(lag(), () => subscriber.next(lines));
      };
      const flush = (): void => {
        flushAt = undefined;
        const lines = merger.take();
        if (lines.length > 0) deliver(lines);
      };
      const lag = (): number => {
        const stale = state.stale;
        return stale !== undefined && stale.watchLag === 'time' && scheduler.now() < stale.until ? stale.lagMs : 0;
      };
      const merging = (): boolean => state.merge !== undefined && scheduler.now() < state.merge.until;
      const finish = (end: () => void): void => {
        if (flushAt !== undefined) flush();
        gate.release(true);
        line.send(lag(), end);
      };
      let upstream: Subscription | undefined;
      const expire = (): void => {
        upstream?.unsubscribe();
        state.expire.delete(expire);
        finish(() => {
          subscriber.next([EXPIRED]);
          subscriber.complete();
        });
      };
      state.expire.add(expire);
      upstream = (cluster.watchChunks ?? ((p, q, o) => cluster.watch(p, q, o).pipe(chunked())))(
        path,
        query,
        options,
      ).subscribe({
        next: (lines) => {
          if (merging() || flushAt !== undefined) hold(lines);
          else deliver(lines);
        },
        error: (error: unknown) => finish(() => subscriber.error(error)),
        complete: () => finish(() => subscriber.complete()),
      });
      return () => {
        state.expire.delete(expire);
        upstream?.unsubscribe();
        line.cancel();
        gate.cancel();
      };
    });
  return {
    onHealth: cluster.onHealth,
    get: (path, query, options) => (dead ? NEVER : cluster.get(path, staleQuery(query), options)),
    watchChunks,
    watch: (path, query, options) =>
      watchChunks(path, query, options).pipe(
        (chunks) =>
          new Observable<string>((subscriber) =>
            chunks.subscribe({
              next: (lines) => {
                for (const text of lines) subscriber.next(text);
              },
              error: (error: unknown) => subscriber.error(error),
              complete: () => subscriber.complete(),
            }),
          ),
      ),
    request: (request: TransportRequest): Observable<TransportResponse> => {
      if (dead) return NEVER;
      if (request.method === 'GET' && !LEASES.test(request.path)) {
        // A read of one object is stale too: served as the cluster held it `versions` resourceVersions back.
        const stale = staleQuery({});
        const target = stale['resourceVersion'] === undefined ? undefined : objectPath(request.path);
        return target === undefined
          ? cluster.request(request)
          : readAt(cluster, target, String(stale['resourceVersion']));
      }
      if (!WRITES.has(request.method) || LEASES.test(request.path)) return cluster.request(request);
      const now = scheduler.now();
      const write: ControllerWrite = {
        at: now,
        method: request.method,
        path: request.path,
        stale:
          (state.stale !== undefined && now < state.stale.until) ||
          (state.merge !== undefined && now < state.merge.until),
        preconditioned: JSON.stringify(request.body ?? {}).includes('"resourceVersion"'),
      };
      const crash = state.crash;
      if (crash === undefined) return onWrite(write, cluster.request(request));
      if (crash.write > 0) {
        crash.write--;
        return onWrite(write, cluster.request(request));
      }
      state.crash = undefined;
      const report = { mode: crash.mode, request: `${request.method} ${request.path}`, restartMs: crash.restartMs };
      if (crash.mode === 'notSent') {
        die(report);
        return NEVER;
      }
      return new Observable<TransportResponse>((subscriber) =>
        onWrite(write, cluster.request(request)).subscribe({
          next: (response) => {
            // Nothing the controller sends from here on leaves the process.
            die(report);
            if (crash.mode === 'sent') subscriber.next(response);
          },
          error: () => die(report),
        }),
      );
    },
  };
}

/** The watch line of a 410 Expired: how an apiserver after a failover tells a watcher its resourceVersion is gone. */
const EXPIRED = JSON.stringify({
  type: 'ERROR',
  object: {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'too old resource version: the apiserver the watch was on failed over',
    reason: 'Expired',
    code: 410,
  },
});

function chunked() {
  return (lines: Observable<string>): Observable<readonly string[]> =>
    new Observable<readonly string[]>((subscriber) =>
      lines.subscribe({
        next: (text) => subscriber.next([text]),
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      }),
    );
}
