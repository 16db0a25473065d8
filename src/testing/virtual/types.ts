/**
 * The shapes of the virtual cluster: its options, its faults and the handle {@link virtualCluster} returns.
 * @module
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Observable, SchedulerLike } from 'rxjs';
import type {
  ConflictNextOptions,
  Faults,
  InMemoryServerOptions,
  RequestLog,
  ResponseHeaders,
  SeedOptions,
} from '../apiserver/index.js';
import type { ExchangeEvent } from './exchange.js';
import type { virtualCluster } from './cluster.js';
import type { HealthRoutingConnection, Transport, WatchHealthHandler, WatchHealthReport } from 'rxkube/extend';
import type { ResourceRef } from 'rxkube';

/** What a {@link VirtualDelay} and a network fault see of a request. */
export interface VirtualRequestInfo {
  /** The HTTP method, upper-case. */
  readonly method: string;
  /** The path, without the query. */
  readonly path: string;
  /** The query parameters (the first value of each). */
  readonly query: Readonly<Record<string, string>>;
  /** True for a watch (`watch=true`). */
  readonly watch: boolean;
}

/**
 * A delay in virtual milliseconds: a number, or a function of the request that may draw from `random`, the
 * cluster's delay generator (seeded by the cluster's `seed`, apart from the server's own choices, so drawing a
 * delay never changes a uid or a generated name). A negative or non-finite result counts as 0.
 */
export type VirtualDelay = number | ((request: VirtualRequestInfo, random: () => number) => number);

/**
 * The network of one client: how long its requests wait before the server serves them, and how long the watch
 * events sent to it are on their way. Both are read per request, so a function may change its answer over time.
 */
export interface VirtualNetworkOptions {
  /**
   * How long each request waits before the server serves it (default 0). The request log stamps it when it
   * arrives; what it writes is stored, and its answer arrives, once it is served. Adds to the `latency` fault.
   */
  readonly latency?: VirtualDelay;
  /**
   * How long each watch event is on its way to the client after the server wrote it (default 0): with a lag, a
   * write is answered before the writer's informer holds it, the window client-go's expectations exist for.
   * Read for each chunk the watch sends; the chunks of one watch never overtake each other.
   */
  readonly watchLag?: VirtualDelay;
}

/** Options of {@link virtualCluster}. */
export interface VirtualClusterOptions extends Omit<InMemoryServerOptions, 'token'>, VirtualNetworkOptions {
  /**
   * Every server-side timer (watch timeouts, bookmarks, graceful deletion, latency, stalls) and every timestamp
   * (creationTimestamp, deletionTimestamp, managedFields time) come from it: a `TestScheduler` inside `run()`, a
   * `VirtualTimeScheduler`, or `asyncScheduler` for real time.
   */
  readonly scheduler: SchedulerLike;
  /** Seeds uids, generateName suffixes and every other server choice (default 0). */
  readonly seed?: number;
  /**
   * Also receives the health reports of the watches over this cluster that were given no handler of their own
   * (they are collected in `health` either way); a test's place to fail on them or print them. Default: none.
   */
  readonly onHealth?: WatchHealthHandler;
}

/** A conflict aimed at an object by its kind and key instead of its path. */
export interface ConflictKeyOptions {
  /** The object's kind and apiVersion (a kind the cluster serves, else a RangeError). */
  readonly resource: ResourceRef;
  /** The namespace of a namespaced object (default `default`). */
  readonly namespace?: string;
  /** The object's name. */
  readonly name: string;
  /** How many writes to it conflict (default 1). */
  readonly count?: number;
}

/** Which requests a network fault takes: those of `method` whose path starts with (or matches) `path`. */
export interface NetworkFaultOptions {
  /** How many matching requests it takes (default 1). */
  readonly count?: number;
  /** Only this HTTP method (any case). */
  readonly method?: string;
  /** Only paths starting with this string, or (RegExp) whose path and query match. */
  readonly path?: string | RegExp;
}

/** Options of {@link VirtualFaults.warnNext}. */
export interface WarnNextOptions extends NetworkFaultOptions {
  /** The warning's text: what a client's `onWarning` is handed. */
  readonly text: string;
}

/** Options of {@link NetworkFaults.partition}. */
export interface PartitionOptions {
  /** `refuse`: requests fail with `TransportError('NetworkError')`; `hang`: they never answer (default `refuse`). */
  readonly mode?: 'refuse' | 'hang';
}

/**
 * Faults of the network between a client and the server, where the server cannot see them: requests that never
 * arrive, answers that never come back.
 *
 * # Guarantees
 * - A fault acts on requests sent from the frame it is set in on, in the order they are sent; requests already on
 *   their way, and open watches, are left alone (`restart` and `dropWatches` cut those).
 * - A refused or hung request never reaches the server: nothing is stored and the request log does not show it.
 * - An answer that is lost was served: what the request wrote is stored, and the request log shows its status.
 * - Seeded: faults act in the order of the requests, never by chance.
 *
 * # Caveats
 * - A refused request fails after its `latency`, as a connection attempt takes time; a hung one ends only when the
 *   client gives up (unsubscribes), or with `TransportError('ConnectionClosed')` at `restart` or `close`.
 */
export interface NetworkFaults {
  /** The next matching requests fail with `TransportError('NetworkError')` without reaching the server. */
  refuseNext(options?: NetworkFaultOptions): void;
  /** The next matching requests never reach the server and never answer: stuck requests. */
  hangNext(options?: NetworkFaultOptions): void;
  /**
   * The next matching requests are served, but their answers are lost on the way back: the client gets
   * `TransportError('ConnectionClosed')` when the answer would have arrived.
   */
  loseAnswerNext(options?: NetworkFaultOptions): void;
  /** From now on every request is refused or hangs (see {@link PartitionOptions}), until {@link NetworkFaults.heal}. */
  partition(options?: PartitionOptions): void;
  /** Ends a partition and drops the armed network faults. */
  heal(): void;
}

/**
 * The faults of a virtual cluster: those of the HTTP test cluster, acting at the current virtual time, and the
 * network faults of every client of it.
 *
 * # Guarantees
 * - A fault set in one virtual frame acts on every request and stream served from that frame on; nothing is
 *   stored by a request a fault answers.
 * - The network faults set here act on the requests of every link (the cluster's own included), before those of
 *   the link; `clear()` drops them too, and ends a partition.
 *
 * # Caveats
 * - `restart` cuts every open exchange (requests and watches fail with `TransportError('ConnectionClosed')`);
 *   `dropWatches({ mode: 'abrupt' })` cuts watches the same way.
 */
export interface VirtualFaults extends Omit<Faults, 'conflictNext'>, NetworkFaults {
  /** The next update or delete of one object (by path, or by kind and key) answers 409 Conflict. */
  conflictNext(options: ConflictNextOptions | ConflictKeyOptions): void;
  /**
   * The answers to the next matching requests carry the API warning `text` (`Warning: 299 - "<text>"`, after any the
   * server wrote), refusals included, as an admission webhook or a deprecated API version adds one. `clear()` drops
   * the armed ones.
   */
  warnNext(options: WarnNextOptions): void;
}

/** Options of {@link VirtualCluster.link}. */
export interface VirtualLinkOptions extends VirtualNetworkOptions {
  /**
   * The User-Agent of its requests: what the request log shows as `userAgent`, and the field manager of its writes
   * that name none. Default: the one the HTTP transport sends.
   */
  readonly userAgent?: string;
}

/**
 * One client's own way to a virtual cluster: a `Transport` (from `rxkube/extend`) to the same server (same objects, same server
 * faults), with its own latency, watch lag and network faults: a replica that a test can cut off alone.
 *
 * # Guarantees
 * - The Transport contract of the cluster itself (see {@link VirtualCluster}).
 * - Its network faults act on its own requests only; the cluster's act on every link's.
 * - The health reports of the watches over it land in the cluster's `health`.
 */
export interface VirtualLink extends Transport, HealthRoutingConnection {
  /** The User-Agent its requests carry. */
  readonly userAgent: string;
  /** The faults of its own network. */
  readonly faults: NetworkFaults;
}

/**
 * An in-process cluster. It IS a `Transport`, hence a `Connection`: pass it wherever a KubeConfig goes
 * (`informer`, `informerFactory`, `listWatch`, `resourceClient`, `eventRecorder`, `leaderElection`, `manager`).
 *
 * # Guarantees
 * - The Transport contract of the HTTP transport: cold, one request per subscription, unsubscribing aborts it;
 *   non-2xx answers error with the `ApiError` the HTTP transport decodes from the same Status body.
 * - Same seed, same options and the same requests at the same virtual times give byte-identical responses.
 * - No sockets and no real time: with a virtual scheduler nothing happens outside its flush.
 *
 * - `watchChunks` is implemented: what the server core wrote to a watch before the consumer read it (a burst of
 *   writes in one synchronous run, the lines a stall held back) arrives as one array, so an informer applies it as
 *   one store batch, as it does a network chunk over HTTP.
 * - It routes health (`HealthRoutingConnection`): the health reports of informers and watches over it that were
 *   given no `onHealth` land in `health` (and `options.onHealth`), never on stderr, so a test's output stays its own.
 *
 * # Caveats
 * - Responses and watch chunks arrive as zero-delay actions of the scheduler (after the `latency` and `watchLag`
 *   options when set), not synchronously.
 */
export interface VirtualCluster extends VirtualLink {
  /** The scheduler every server timer and timestamp runs on (`options.scheduler`). */
  readonly scheduler: SchedulerLike;
  /**
   * The seed of the server's randomness (`options.seed`, default 0). Named so because `seed(objects)` is the
   * method a TestCluster already has under that name.
   */
  readonly randomSeed: number;
  /** Fault injection at the current virtual time (see {@link VirtualFaults}). */
  readonly faults: VirtualFaults;
  /**
   * A new client of this cluster with its own network (see {@link VirtualLink}): latency and watch lag default to
   * the cluster's options.
   */
  link(options?: VirtualLinkOptions): VirtualLink;
  /**
   * Every health report of the watches over this cluster that were given no handler of their own, in order (a
   * refused request, an unknown kind, a recovery): where a test looks for them.
   */
  readonly health: readonly WatchHealthReport[];
  /** The default health handler of those watches: appends to `health`, then calls `options.onHealth`. */
  readonly onHealth: WatchHealthHandler;
  /** As `TestCluster.seed`: creates objects without a request; returns the resourceVersion after. */
  seed(objects: readonly KubernetesObject[], options?: SeedOptions): string;
  /** As `TestCluster.update`: replaces objects without a request; returns the resourceVersion after. */
  update(objects: readonly KubernetesObject[], options?: SeedOptions): string;
  /** The latest committed resourceVersion. */
  resourceVersion(): string;
  /** How many watches are open. */
  openWatches(): number;
  /**
   * Every request the cluster was asked, with its answer's status (see {@link RequestLog}), times on the cluster's
   * clock: what a test counts its controller's requests with. Bounded by `requestLogSize` (default 10000).
   */
  readonly requestLog: RequestLog;
  /** Every stored object of a resource (of one namespace when given), sorted by namespace/name, as deep copies. */
  list(resource: ResourceRef, namespace?: string): KubernetesObject[];
  /**
   * One raw exchange: status, headers and body text whatever the status (2xx or not), for tests that assert on
   * exact bytes. A watch request answers with its whole stream once the stream ends.
   */
  exchange(request: RawExchangeRequest): Observable<RawExchangeResponse>;
  /**
   * One raw exchange as it arrives: a whole `response`, or a streamed `head`, its `chunk`s and `end` (watches).
   * Unsubscribing cuts it.
   */
  exchangeStream(request: RawExchangeRequest): Observable<ExchangeEvent>;
  /** Ends every open watch and request, cancels every server timer; later requests fail with a TransportError. */
  close(): void;
}

/** A raw request of {@link VirtualCluster.exchange}. */
export interface RawExchangeRequest {
  /** The HTTP method (any case). */
  readonly method: string;
  /** Path, optionally with a query string. */
  readonly path: string;
  /** Request headers (any case). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The body as sent (JSON, YAML or protobuf bytes); none when omitted. */
  readonly body?: string | Uint8Array;
}

/** A raw answer of {@link VirtualCluster.exchange}. */
export interface RawExchangeResponse {
  /** The HTTP status, whatever it is. */
  readonly status: number;
  /** Response headers, lower-case names. */
  readonly headers: ResponseHeaders;
  /** The body as UTF-8 text (for a watch, every chunk of the stream). */
  readonly text: string;
}
