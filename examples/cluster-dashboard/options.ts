/**
 * The dashboard's options, their defaults and their validation.
 * @module
 */

/** The port the page is served on when none is given. */
export const DEFAULT_DASHBOARD_PORT = 8090;

/** How often, at most, a new picture of the cluster is sent to the browsers, ms. */
export const DEFAULT_UPDATE_INTERVAL_MS = 250;

/** How many browsers may be connected at once; one more is answered 503. */
export const DEFAULT_MAX_CLIENTS = 32;

/** How many finished reconcile runs the page lists, newest first. */
export const DEFAULT_RECENT_RUNS = 30;

/** How many rows a list of the page shows at most (PodSets, waiting keys, Pods of one PodSet); the rest are counted. */
export const DEFAULT_LIST_LIMIT = 50;

/** How long the server keeps an idle event stream open without a frame before it sends a comment, ms. */
export const HEARTBEAT_MS = 15_000;

/** Options of `clusterDashboard`. */
export interface DashboardOptions {
  /** The title of the page: the manager's name. */
  readonly title: string;
  /** The TCP port on 127.0.0.1; `0` picks a free one (printed). Default {@link DEFAULT_DASHBOARD_PORT}. */
  readonly port?: number;
  /** At most one picture per this many ms, to every browser. Default {@link DEFAULT_UPDATE_INTERVAL_MS}. */
  readonly updateIntervalMs?: number;
  /** Browsers connected at once. Default {@link DEFAULT_MAX_CLIENTS}. */
  readonly maxClients?: number;
  /** Finished runs kept for the page. Default {@link DEFAULT_RECENT_RUNS}. */
  readonly recentRuns?: number;
  /** Rows per list. Default {@link DEFAULT_LIST_LIMIT}. */
  readonly listLimit?: number;
  /** Watch PodSets and Pods in this namespace only. Default: every namespace (as the controller). */
  readonly namespace?: string;
  /**
   * The manager's Lease (`namespace` and `name`), when leader election is on: the page shows who holds it. `false`
   * when leader election is off.
   */
  readonly lease: { readonly namespace: string; readonly name: string } | false;
  /** Where the dashboard's lines go (`dashboard on http://…`). Default `console.log`. */
  readonly print?: (line: string) => void;
}

/** The options with their defaults filled in. */
export interface DashboardSettings {
  readonly title: string;
  readonly port: number;
  readonly updateIntervalMs: number;
  readonly maxClients: number;
  readonly recentRuns: number;
  readonly listLimit: number;
  readonly namespace: string | undefined;
  readonly lease: { readonly namespace: string; readonly name: string } | false;
  readonly print: (line: string) => void;
}

/**
 * Fills in the defaults and checks every option, so a bad one is a clear error before anything starts.
 *
 * # Guarantees
 * - Throws a `RangeError` naming the option for a port that is not an integer in [0, 65535], an update interval
 *   that is not a number of ms in [10, 60000], and limits that are not integers >= 1; a `TypeError` for an empty
 *   title or namespace.
 */
export function resolveDashboardOptions(options: DashboardOptions): DashboardSettings {
  const port = options.port ?? DEFAULT_DASHBOARD_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new RangeError(`dashboard: port must be an integer in [0, 65535], got ${String(port)}`);
  const updateIntervalMs = options.updateIntervalMs ?? DEFAULT_UPDATE_INTERVAL_MS;
  if (typeof updateIntervalMs !== 'number' || !(updateIntervalMs >= 10 && updateIntervalMs <= 60_000)) {
    throw new RangeError(
      `dashboard: update interval must be a number of ms in [10, 60000], got ${String(updateIntervalMs)}`,
    );
  }
  const limit = (name: string, value: number | undefined, fallback: number): number => {
    const resolved = value ?? fallback;
    if (!Number.isInteger(resolved) || resolved < 1)
      throw new RangeError(`dashboard: ${name} must be an integer >= 1, got ${String(resolved)}`);
    return resolved;
  };
  if (typeof options.title !== 'string' || options.title === '')
    throw new TypeError(`dashboard: title must be a non-empty string, got ${JSON.stringify(options.title)}`);
  const { namespace } = options;
  if (namespace !== undefined && (typeof namespace !== 'string' || namespace === '')) {
    throw new TypeError(`dashboard: namespace must be a non-empty string when given, got ${JSON.stringify(namespace)}`);
  }
  return {
    title: options.title,
    port,
    updateIntervalMs,
    maxClients: limit('max clients', options.maxClients, DEFAULT_MAX_CLIENTS),
    recentRuns: limit('recent runs', options.recentRuns, DEFAULT_RECENT_RUNS),
    listLimit: limit('list limit', options.listLimit, DEFAULT_LIST_LIMIT),
    namespace,
    lease: options.lease,
    print: options.print ?? ((line) => console.log(line)),
  };
}
