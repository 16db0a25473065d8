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

/** How a crash meets the write it is drawn at. */
export type CrashMode = 'notSent' | 'sent' | 'answerLost';

/** The faults armed on the controller's view, shared by every incarnation of the controller in one run. */
export class ControllerFaultState {
  /** While `now < until`, watches arrive `lagMs` late and lists are served `versions` resourceVersions back. */
  stale: { readonly until: number; readonly lagMs: number; readonly versions: number } | undefined;
  /** While `now < until`, watch events are held, then delivered merged per object, each watch `spreadMs` apart. */
  merge: { readonly until: number; readonly spreadMs: number } | undefined;
  /** The crash armed: at the `write`-th write of the controller (0 is the next one). */
  crash: { write: number; readonly mode: CrashMode; readonly restartMs: number } | undefined;
  /** The open watches of the live incarnation: each ends with 410 Expired when called (a relist follows). */
  readonly expire = new Set<() => void>();

  constructor(readonly random: () => number) {}
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
      let flushAt: number | undefined;
      const hold = (lines: readonly string[]): void => {
        merger.add(lines);
        if (flushAt !== undefined) return;
        const merge = state.merge!;
        flushAt = merge.until + Math.floor(state.random() * (merge.spreadMs + 1));
        scheduler.schedule(flush, flushAt - scheduler.now());
      };
      const flush = (): void => {
        flushAt = undefined;
        const lines = merger.take();
        if (lines.length > 0) line.send(lag(), () => subscriber.next(lines));
      };
      const lag = (): number => {
        const stale = state.stale;
        return stale !== undefined && scheduler.now() < stale.until ? stale.lagMs : 0;
      };
      const merging = (): boolean => state.merge !== undefined && scheduler.now() < state.merge.until;
      const finish = (end: () => void): void => {
        if (flushAt !== undefined) flush();
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
          else line.send(lag(), () => subscriber.next(lines));
        },
        error: (error: unknown) => finish(() => subscriber.error(error)),
        complete: () => finish(() => subscriber.complete()),
      });
      return () => {
        state.expire.delete(expire);
        upstream?.unsubscribe();
        line.cancel();
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

/**
 * Deliveries of one watch, each `lag` ms after it arrived, never overtaking an earlier one; with no lag and nothing
 * waiting, delivered at once (the fault-free path costs nothing).
 */
class DelayLine {
  private last = Number.NEGATIVE_INFINITY;
  private readonly waiting = new Set<Subscription>();

  constructor(
    private readonly scheduler: VirtualCluster['scheduler'],
    private readonly dead: () => boolean,
  ) {}

  send(lag: number, deliver: () => void): void {
    const now = this.scheduler.now();
    const at = Math.max(now + lag, this.last);
    if (at <= now && this.waiting.size === 0) {
      if (!this.dead()) deliver();
      return;
    }
    this.last = at;
    const action = this.scheduler.schedule(() => {
      this.waiting.delete(action);
      if (!this.dead()) deliver();
    }, at - now);
    this.waiting.add(action);
  }

  cancel(): void {
    for (const action of this.waiting) action.unsubscribe();
    this.waiting.clear();
  }
}

/** A watch event line as far as merging needs it. */
interface WatchLine {
  readonly type: string;
  readonly object?: { readonly metadata?: { readonly namespace?: string; readonly name?: string } };
}

/**
 * Watch lines held while events are merged: per object only the last state survives, as a slow consumer or a relist
 * sees it; an object added and deleted inside the window is never seen. Lines keep resourceVersion order.
 */
class EventMerger {
  private readonly byObject = new Map<string, { first: string; last: string; text: string; order: number }>();
  private readonly others: { text: string; order: number }[] = [];
  private order = 0;

  add(lines: readonly string[]): void {
    for (const text of lines) {
      const order = this.order++;
      let parsed: WatchLine | undefined;
      try {
        parsed = JSON.parse(text) as WatchLine;
      } catch {
        parsed = undefined;
      }
      const metadata = parsed?.object?.metadata;
      const type = parsed?.type;
      if (metadata?.name === undefined || (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED')) {
        // Bookmarks, errors and bad lines pass in their place: they are not states of an object.
        this.others.push({ text, order });
        continue;
      }
      const key = `${metadata.namespace ?? ''}/${metadata.name}`;
      const held = this.byObject.get(key);
      // Re-inserted so that the map keeps the order of each object's last event.
      this.byObject.delete(key);
      this.byObject.set(key, { first: held?.first ?? type, last: type, text, order });
    }
  }

  take(): string[] {
    const kept: { text: string; order: number }[] = [...this.others];
    for (const { first, last, text, order } of this.byObject.values()) {
      if (first === 'ADDED' && last === 'DELETED') continue;
      const added = first === 'ADDED' && last === 'MODIFIED';
      kept.push({ text: added ? JSON.stringify({ ...(JSON.parse(text) as object), type: 'ADDED' }) : text, order });
    }
    this.byObject.clear();
    this.others.length = 0;
    return kept.sort((a, b) => a.order - b.order).map(({ text }) => text);
  }
}
