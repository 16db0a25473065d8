/**
 * The shapes of the virtual cluster: its options, its faults and the handle {@link virtualCluster} returns.
 * @module
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Observable, SchedulerLike } from 'rxjs';
import type {
  ConflictNextOptions, Faults, InMemoryServerOptions, RequestLog, ResponseHeaders, SeedOptions,
} from '../apiserver/index.js';
import type { ExchangeEvent } from './exchange.js';
import type { virtualCluster } from './cluster.js';
import type { HealthRoutingConnection, Transport, WatchHealthHandler, WatchHealthReport } from 'rxkube/extend';
import type { ResourceRef } from 'rxkube';

/** Options of {@link virtualCluster}. */
export interface VirtualClusterOptions extends Omit<InMemoryServerOptions, 'token'> {
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

/**
 * The faults of a virtual cluster: those of the HTTP test cluster, acting at the current virtual time.
 *
 * # Guarantees
 * - A fault set in one virtual frame acts on every request and stream served from that frame on; nothing is
 *   stored by a request a fault answers.
 *
 * # Caveats
 * - `restart` cuts every open exchange (requests and watches fail with `TransportError('ConnectionClosed')`);
 *   `dropWatches({ mode: 'abrupt' })` cuts watches the same way.
 */
export interface VirtualFaults extends Omit<Faults, 'conflictNext'> {
  /** The next update or delete of one object (by path, or by kind and key) answers 409 Conflict. */
  conflictNext(options: ConflictNextOptions | ConflictKeyOptions): void;
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
 * - Responses and watch chunks arrive as zero-delay actions of the scheduler, not synchronously.
 */
export interface VirtualCluster extends Transport, HealthRoutingConnection {
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
