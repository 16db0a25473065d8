/**
 * The manager's vocabulary: its options and the events it emits.
 */
import type { Registry } from 'prom-client';
import type { Observable, SchedulerLike } from 'rxjs';
import type { EventRecorderOptions } from '../client/events/index.js';
import type { ControllerDefinition } from '../controller/context/index.js';
import type { ReconcileEvent } from '../controller/index.js';
import type { InformerFactoryOptions } from '../informer/index.js';
import type { LeaderElectionOptions } from '../leader/index.js';
import type { ShardState } from '../shards/index.js';
import type { Connection } from '../transport/index.js';
import type { WatchStatus } from '../watch/index.js';
import type { ManagerLogger } from './logging/index.js';

/** Leader election as the manager runs it: `leaderElection`'s options, with the Lease name defaulted. */
export interface ManagerLeaderElection
  extends Omit<LeaderElectionOptions, 'scheduler' | 'stop$' | 'onLost' | 'exit' | 'name' | 'namespace'> {
  /**
   * Namespace of the Lease. Default: the namespace of the pod's service account
   * (`/var/run/secrets/kubernetes.io/serviceaccount/namespace`), as controller-runtime; required outside a cluster.
   */
  readonly namespace?: string;
  /** Name of the Lease. Default: the manager's `name`. */
  readonly name?: string;
  /**
   * After leadership is lost: `'exit'` (default, as controller-runtime) exits the process with code 1;
   * `'standby'` closes the gate (aborting in-flight runs) and campaigns again once the lost term's release has
   * settled, caches kept warm; leadership lost during a graceful stop lets the stop finish as it would have.
   */
  readonly onLost?: 'exit' | 'standby';
}

/**
 * Sharding as the manager runs it: the controllers' keys split among the active replicas by hash range, each range
 * fenced by a Lease (see `shardLeases`, from `rxkube/extend`).
 */
export interface ManagerSharding {
  /**
   * Namespace of the Leases. Default: `leaderElection.namespace`, else the pod's service account namespace; required
   * outside a cluster.
   */
  readonly namespace?: string;
  /** Prefix of the Leases (`<name>-shard-<i>`, `<name>-member-<hash>`). Default: the manager's `name`. */
  readonly name?: string;
  /** How many hash ranges; more than the replicas, and the same on every replica. An integer 1–1024. Default 16. */
  readonly ranges?: number;
  /**
   * What is hashed (KEP-5866's fields): `'uid'` (default) spreads objects evenly; `'namespace'` keeps each namespace
   * on one replica, and maps a key to its range without any cache.
   */
  readonly hash?: 'uid' | 'namespace';
  /**
   * Where a sharded controller's primary is split: `'server'` (default) lists and watches only the ranges this
   * replica holds, with KEP-5866's `shardSelector` (filtered client-side by the same hash where the server does not
   * serve it), and lists again when they change, so its cache holds about 1/N of the objects; `'client'` caches
   * every object on every replica and only gates the runs. Owned and watched resources are never split: a child's
   * uid hashes elsewhere than its owner's.
   */
  readonly select?: 'server' | 'client';
  /** The controllers that are sharded, by name. Default: every controller. */
  readonly controllers?: readonly string[];
  /** As leader election's, for every range Lease and member Lease. Default 15 000. */
  readonly leaseDuration?: number;
  /** As leader election's. Default 10 000. */
  readonly renewDeadline?: number;
  /** As leader election's; also how often each replica lists the Leases and rebalances. Default 2 000. */
  readonly retryPeriod?: number;
  /** This replica's identity in the Leases. Default: `leaderElection.identity`, else `<hostname>_<random UUID>`. */
  readonly identity?: string;
}

/** Options of the probe server. */
export interface HealthOptions {
  /** The TCP port; `0` picks a free one (the chosen one is in the `started` event). */
  readonly port?: number;
  /**
   * Interface to bind. Default: all interfaces (the kubelet probes, and Prometheus scrapes, the pod IP). Tests and
   * local runs should pass `'127.0.0.1'`.
   */
  readonly host?: string;
  /**
   * Extra `/readyz` checks by name. A check passes unless it throws, rejects, or returns `false` (or a Promise of
   * `false`); one that has not settled within `checkTimeout` fails.
   */
  readonly readyChecks?: Readonly<Record<string, () => unknown>>;
  /** Extra `/healthz` checks by name, as `readyChecks`. */
  readonly healthChecks?: Readonly<Record<string, () => unknown>>;
  /** An informer failing (status error or backing off since its last `watching`) longer than this is unready, ms. Default 30 000. */
  readonly informerFailureThreshold?: number;
  /** Time limit of one custom check, ms. Default 5 000. */
  readonly checkTimeout?: number;
}

/** Options of the metrics. */
export interface MetricsOptions {
  /** The TCP port; `0` picks a free one (the chosen one is in the `started` event). */
  readonly port?: number;
  /**
   * Interface to bind. Default: all interfaces (the kubelet probes, and Prometheus scrapes, the pod IP). Tests and
   * local runs should pass `'127.0.0.1'`.
   */
  readonly host?: string;
  /**
   * The prom-client registry the manager registers its metrics in (and serves): pass one to serve metrics of your
   * own beside them. Default: a new registry per subscription. The manager's metrics leave it when it stops.
   */
  readonly registry?: Registry;
  /** Serve `/metrics` (default true); `false` keeps the metrics in the registry only. */
  readonly serve?: boolean;
  /** Node's process metrics (prom-client's default metrics: CPU, memory, heap, event loop lag, GC). Default true. */
  readonly processMetrics?: boolean;
}

/** Options of {@link manager}. Durations are milliseconds. */
export interface ManagerOptions {
  /** Where the cluster is: a client-node `KubeConfig`, or any `Transport`. */
  readonly connection: Connection;
  /** The manager's name: a DNS-1123 subdomain; the default Lease name and the default `reportingController` of events. */
  readonly name: string;
  /**
   * The controllers to run, over one shared cache; their names must be unique. Each gets a `ControllerContext` whose
   * `informers` are the manager's, whose `gate` is leadership (unless it opted out with `needLeaderElection: false`),
   * whose `stop$` is the manager's graceful stop, whose `recorder` is the manager's, and whose `reportError` logs.
   */
  readonly controllers: readonly ControllerDefinition[];
  /** Off by default, as in controller-runtime; an object turns it on. */
  readonly leaderElection?: ManagerLeaderElection | false;
  /**
   * Off by default; an object shards the controllers across every replica that runs this manager: each runs only the
   * keys of the hash ranges it holds (see {@link ManagerSharding}). A sharded controller needs no leadership.
   */
  readonly sharding?: ManagerSharding | false;
  /** Metrics served as `/metrics` on port 8080 by default; `false`: no metrics at all. */
  readonly metrics?: MetricsOptions | false;
  /** `/healthz` and `/readyz` on port 8081 by default; `false` serves none. */
  readonly health?: HealthOptions | false;
  /** How long in-flight reconciles may drain on a graceful stop, ms; the event flush shares it. Default 30 000. */
  readonly shutdownTimeout?: number;
  /** Where structured logs go. Default `jsonLogger()`: one JSON line per record on stderr, level `info` and up. */
  readonly logger?: ManagerLogger;
  /** Extra strings never to log (tokens, passwords), besides the connection's own credentials. */
  readonly redact?: readonly string[];
  /**
   * Graceful stop on SIGTERM/SIGINT (a second signal exits at once with code 1; after a signal, the process exits
   * with 0 after a clean drain, 1 otherwise). `false`: no signal handling.
   */
  readonly signals?:
    | {
        /** Signals as they arrive. Default: SIGTERM and SIGINT on `process` (listeners removed when the manager stops). */
        readonly source?: Observable<string>;
      }
    | false;
  /** Starts the graceful stop on its first value, as a signal would, without exiting the process afterwards. */
  readonly stop$?: Observable<unknown>;
  /**
   * The event recorder's options (`reportingController` defaults to the manager's name, `onWarning` to the
   * manager's log); `false`: no recorder.
   */
  readonly events?: Partial<EventRecorderOptions> | false;
  /**
   * Options of the shared informer factory (a scripted `source` in tests); `onWarning` defaults to the manager's log,
   * `onHealth` to nothing, since the manager logs every informer's status itself (`informer <state>` records).
   */
  readonly informers?: InformerFactoryOptions;
  /**
   * Every timer and time reading of the manager, its informers, elector, event recorder and controllers. Default
   * `monotonicScheduler`: its `now()` is monotonic, so a step of the system clock moves no lease expiry, renew
   * deadline, drain, readiness threshold, backoff or rate limit; its timers are `asyncScheduler`'s. A
   * `TestScheduler` runs the whole manager in virtual time.
   */
  readonly scheduler?: SchedulerLike;
  /**
   * Uniform samples in [0, 1): the jitter of the informers, the event recorder and the controllers' clients, and
   * `context.random`. Default `Math.random`; `informers.random` and `events.random` still override it.
   */
  readonly random?: () => number;
  /** How the process is exited (second signal, exit after a signal, lost leadership). Default `process.exit`. */
  readonly exit?: (code: number) => void;
}

/**
 * What the manager reports, in order:
 * `started`, then (any order) `informer`, `synced`, `ready`, `leading`, `controller`; on a graceful stop
 * `stopping`, `drained`, `stopped`, then completion. Every event carries `time`: the scheduler's `now()`, ms (with
 * the default scheduler, a monotonic reading on the epoch scale: `Date.now()` at process start plus the time elapsed
 * since, unmoved by clock steps).
 */
export type ManagerEvent =
  | {
      /** The scheduler's `now()`, ms. */
      readonly time: number;
      /** The servers are listening and the informers are starting. */
      readonly type: 'started';
      /** Where `/metrics` is served; absent when metrics are off. */
      readonly metrics?: {
        /** The interface it is bound to. */
        readonly host: string;
        /** The port it listens on (the one chosen, when `0` was asked for). */
        readonly port: number;
        /** `http://host:port` (IPv6 hosts in brackets). */
        readonly url: string;
      };
      /** Where `/healthz` and `/readyz` are served; absent when probes are off. */
      readonly health?: {
        /** The interface it is bound to. */
        readonly host: string;
        /** The port it listens on (the one chosen, when `0` was asked for). */
        readonly port: number;
        /** `http://host:port` (IPv6 hosts in brackets). */
        readonly url: string;
      };
    }
  | {
      /** The scheduler's `now()`, ms. */
      readonly time: number;
      /** Leadership changed. */
      readonly type: 'leading';
      /** Whether this process now leads. */
      readonly leading: boolean;
    }
  | {
      /** The scheduler's `now()`, ms. */
      readonly time: number;
      /** The hash ranges this replica holds changed (with `sharding`). */
      readonly type: 'shards';
      /** The ranges it runs, hands over and campaigns for, and the replicas it sees. */
      readonly state: ShardState;
    }
  | {
      /** The scheduler's `now()`, ms. */
      readonly time: number;
      /** An informer's connection status changed. */
      readonly type: 'informer';
      /** Which informer, e.g. `Pod v1 in default`. */
      readonly informer: string;
      /** Its new status. */
      readonly status: WatchStatus;
    }
  | {
      /** The scheduler's `now()`, ms. */
      readonly time: number;
      /** Every informer has synced. */
      readonly type: 'synced';
      /** The informers, labelled as in `informer` events. */
      readonly informers: readonly string[];
    }
  | {
      /** The scheduler's `now()`, ms. */
      readonly time: number;
      /** `/readyz` changed its answer. */
      readonly type: 'ready';
      /** Whether `/readyz` answers 200. */
      readonly ready: boolean;
      /** The failing checks while not ready; empty when ready. */
      readonly reasons: readonly string[];
    }
  | {
      /** The scheduler's `now()`, ms. */
      readonly time: number;
      /** One of a controller's reconcile events. */
      readonly type: 'controller';
      /** The controller's name. */
      readonly controller: string;
      /** The event as its reconcile operator emitted it. */
      readonly event: ReconcileEvent;
    }
  | {
      /** The scheduler's `now()`, ms. */
      readonly time: number;
      /** A graceful stop began: intake stopped, in-flight runs drain. */
      readonly type: 'stopping';
      /** Why: `signal SIGTERM`, `stop$`, or `controller <name> failed`. */
      readonly reason: string;
    }
  | {
      /** The scheduler's `now()`, ms. */
      readonly time: number;
      /** The drain ended. */
      readonly type: 'drained';
      /** True when every in-flight run finished within `shutdownTimeout` and nothing failed. */
      readonly clean: boolean;
      /** How many runs were cut short at the timeout. */
      readonly cancelled: number;
    }
  | {
      /** The scheduler's `now()`, ms. */
      readonly time: number;
      /** Everything stopped: events flushed, Lease released, servers closed. */
      readonly type: 'stopped';
      /** The `drained` event's `clean`: the process exits 1 instead of 0 when false. */
      readonly clean: boolean;
    };

/** The field every {@link ManagerEvent} carries. */
export type ManagerEventBase = Pick<ManagerEvent, 'time'>;

/** Where a server listens (the `host` and `port` of {@link HealthOptions} and {@link MetricsOptions}). */
export type ListenOptions = Pick<HealthOptions, 'host' | 'port'>;
/** A custom probe check: it passes unless it throws, rejects, or returns `false` (or a Promise of `false`). */
export type HealthCheck = () => unknown;
/** How the manager hears about process signals (its `signals` option). */
export type SignalOptions = Exclude<ManagerOptions['signals'], false | undefined>;
/** A server the manager started: where it listens (in its `started` event). */
export type ServerAddress = NonNullable<Extract<ManagerEvent, { readonly type: 'started' }>['metrics']>;
