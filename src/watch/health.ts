/**
 * What a watch tells its user about its health without being asked: the `onHealth` option of `listWatch`,
 * `informer` and `informerFactory`, its default, and the bookkeeping that says each cause once.
 */
import { joinApiVersion } from '../objects/index.js';
import type { ResolvedResource } from '../resources/index.js';
import type { Connection } from '../transport/index.js';
import type { ResourceRef, WatchStatus } from './types.js';
import type { WatchFailure } from 'rxkube';

/**
 * One piece of news about a watch's health, for people and for routing:
 * - `failing`: a list, watch or discovery request failed with `cause` and will be retried; said once per distinct
 *   cause (its HTTP status, reason and Node error code) until the watch recovers.
 * - `recovered`: the server accepted the watch again after the `causes` said before.
 * - `stopped`: the watch stopped for good on `cause` (a failure no retry can fix, or `failFast`); the Observable
 *   errors with a `ListWatchError` next.
 *
 * Routine events are not news: a 410 Expired (the reflector relists) and a streaming list the server does not serve
 * (it falls back to list and watch) are never reported.
 */
export type WatchHealthReport =
  | {
      /** A request failed and will be retried. */
      readonly type: 'failing';
      /** Which watch: `ConfigMap v1 in default app=web` (kind, apiVersion, namespace and selectors when set). */
      readonly watch: string;
      /** Why it failed. */
      readonly cause: WatchFailure;
      /** One line for people: the watch, the cause, and what happens next. */
      readonly message: string;
    }
  | {
      /** The server accepted the watch again. */
      readonly type: 'recovered';
      /** Which watch, as in `failing`. */
      readonly watch: string;
      /** The causes reported since the watch was last healthy, in order. */
      readonly causes: readonly WatchFailure[];
      /** One line for people. */
      readonly message: string;
    }
  | {
      /** The watch stopped for good. */
      readonly type: 'stopped';
      /** Which watch, as in `failing`. */
      readonly watch: string;
      /** Why it stopped. */
      readonly cause: WatchFailure;
      /** One line for people. */
      readonly message: string;
    };

/** Receives the health reports of the watches it was given to (see {@link WatchHealthReport}). */
export type WatchHealthHandler = (report: WatchHealthReport) => void;

/** The process warning type of {@link printWatchHealth}. */
export const WATCH_HEALTH_WARNING = 'KubernetesWatchHealth';

/**
 * The default {@link WatchHealthHandler} of a watch over a KubeConfig: each report as a process warning of type
 * `KubernetesWatchHealth`, so it is printed on stderr at once (`node --no-warnings` silences it, and
 * `process.on('warning')` receives it). The watch already says each cause once, so nothing is deduplicated here.
 */
export const printWatchHealth: WatchHealthHandler = (report) => {
  process.emitWarning(report.message, { type: WATCH_HEALTH_WARNING });
};

/** Refuses an `onHealth` option that is not a function, naming `where` it was given. */
export function checkHealthHandler(where: string, handler: unknown): void {
  if (handler !== undefined && typeof handler !== 'function')
    throw new TypeError(`${where}: onHealth must be a function`);
}

/**
 * A connection that routes the health reports of the watches over it: its `onHealth` is their default handler.
 * A virtual cluster is one (it collects them for the test); a KubeConfig is not.
 */
export interface HealthRoutingConnection {
  /** The default handler of every watch over this connection that was given none. */
  readonly onHealth: WatchHealthHandler;
}

/**
 * The default health handler of watches over these connections (a watch's `transport` option, then its
 * connection): the first one's own `onHealth` (see {@link HealthRoutingConnection}), else {@link printWatchHealth}.
 */
export function defaultHealthHandler(...connections: ReadonlyArray<Connection | undefined>): WatchHealthHandler {
  for (const connection of connections) {
    const own = (connection as Partial<HealthRoutingConnection> | undefined)?.onHealth;
    if (typeof own === 'function') return own;
  }
  return printWatchHealth;
}

/**
 * Hands `report` to `handler`; a handler that throws is reported as a process warning (type
 * `KubernetesWatchHealthHandlerError`), never to the watch. Never throws.
 */
export function deliverHealth(handler: WatchHealthHandler, report: WatchHealthReport): void {
  try {
    handler(report);
  } catch (error) {
    process.emitWarning(error instanceof Error ? error : new Error(String(error)), {
      type: 'KubernetesWatchHealthHandlerError',
    });
  }
}

/**
 * What makes two failures the same cause: the HTTP status, the reason and, for a network failure, the Node.js error
 * code (a refused connection, a DNS failure and a TLS failure are all `NetworkError`). The message is left out, so a
 * 503 whose text changes on every attempt is still one cause.
 */
export function watchFailureKey(cause: WatchFailure): string {
  return `${cause.code ?? ''} ${cause.reason} ${cause.errorCode ?? ''}`;
}

/** `401 Unauthorized: the message`, or `NetworkError: connect ECONNREFUSED …` without a code. */
export function describeFailure(cause: WatchFailure): string {
  return `${cause.code === undefined ? '' : `${cause.code} `}${cause.reason}: ${cause.message}`;
}

/** Whether a failure is routine, never news: a 410 Expired (relisted) or an unsupported streaming list (fallen back). */
function isRoutine(cause: WatchFailure): boolean {
  return cause.code === 410 || cause.reason === 'Expired' || cause.reason === 'StreamingListUnsupported';
}

/**
 * Turns one watch's statuses into {@link WatchHealthReport}s: the first `error` of each distinct cause since the
 * watch was last healthy, the `failed` that stops it, and the `watching` that ends a reported outage.
 *
 * # Guarantees
 * - A cause is reported on the status that says it first, so on the first failure, never after a backoff.
 * - Each distinct cause ({@link watchFailureKey}) once per outage; routine failures never; `recovered` only after
 *   something was reported.
 */
export class HealthReporter {
  private readonly reported = new Map<string, WatchFailure>();

  constructor(
    /** The watch's name in reports. */
    private readonly watch: string,
    private readonly handler: WatchHealthHandler,
  ) {}

  observe(status: WatchStatus): void {
    switch (status.state) {
      case 'error': {
        const { cause } = status;
        const key = watchFailureKey(cause);
        if (isRoutine(cause) || this.reported.has(key)) return;
        this.reported.set(key, cause);
        this.send({
          type: 'failing',
          watch: this.watch,
          cause,
          message: `${this.watch}: ${describeFailure(cause)} (retrying with backoff)`,
        });
        return;
      }
      case 'failed':
        this.reported.clear();
        this.send({
          type: 'stopped',
          watch: this.watch,
          cause: status.cause,
          message: `${this.watch}: ${describeFailure(status.cause)} (stopped: retrying cannot fix this)`,
        });
        return;
      case 'watching': {
        if (this.reported.size === 0) return;
        const causes = [...this.reported.values()];
        this.reported.clear();
        const what = causes
          .map((cause) => (cause.code === undefined ? cause.reason : `${cause.code} ${cause.reason}`))
          .join(', ');
        this.send({
          type: 'recovered',
          watch: this.watch,
          causes,
          message: `${this.watch}: recovered, watching again after ${what}`,
        });
        return;
      }
      default:
        return;
    }
  }

  private send(report: WatchHealthReport): void {
    deliverHealth(this.handler, report);
  }
}

/** What names a watch: its resource and the options that select what it sees. */
export interface WatchScope {
  readonly namespace?: string | undefined;
  readonly labelSelector?: string | undefined;
  readonly fieldSelector?: string | undefined;
}

/**
 * How watches are named in reports, logs and metric labels: `Pod v1`, then `in <namespace>` and the selectors when
 * set (`Widget example.com/v1 in default app=web`).
 */
export function describeWatch(resource: ResourceRef | ResolvedResource, scope?: WatchScope): string {
  const apiVersion = isResolved(resource) ? joinApiVersion(resource.group, resource.version) : resource.apiVersion;
  const parts = [`${resource.kind} ${apiVersion}`];
  if (scope?.namespace) parts.push(`in ${scope.namespace}`);
  if (scope?.labelSelector) parts.push(scope.labelSelector);
  if (scope?.fieldSelector) parts.push(scope.fieldSelector);
  return parts.join(' ');
}

/** Whether `resource` is already resolved (it has its plural and scope). */
export function isResolved(resource: ResourceRef | ResolvedResource): resource is ResolvedResource {
  return 'plural' in resource && 'namespaced' in resource;
}
