/**
 * The vocabulary of read-your-own-writes: what a controller remembers of each write it sent, and where it reads.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Observable, SchedulerLike } from 'rxjs';
import type { ResourceRef } from '../../resources/index.js';

/** One write a controller sent, as the server answered it. */
export interface OwnWrite {
  /** The kind written (the client's). */
  readonly resource: ResourceRef;
  /** The object's key: `namespace/name`, or `name` for a cluster-scoped object. */
  readonly key: string;
  /** The object's namespace; `undefined` when cluster-scoped. */
  readonly namespace: string | undefined;
  /** The resourceVersion the server answered with; `undefined` for a delete answered with a `Status`. */
  readonly resourceVersion: string | undefined;
  /**
   * The resourceVersion the write was conditioned on (see `ClientWrite.base`): `null` for a create, `undefined` when
   * the write was not conditioned.
   */
  readonly base: string | null | undefined;
  /** The object's uid, when the answer says it. */
  readonly uid: string | undefined;
  /** True for a delete. */
  readonly deleted: boolean;
  /**
   * True for a delete the server answered with the object still there, marked `deletionTimestamp` (finalizers, or a
   * grace period): the object goes later.
   */
  readonly deleting: boolean;
  /** The labels of the object as answered (to tell which label-selected caches can hold it). */
  readonly labels: Readonly<Record<string, string>> | undefined;
  /** The key of the reconcile run that sent it (tied by the run's `signal`); `undefined` when none is known. */
  readonly runKey: string | undefined;
  /** When it was answered, on the ledger's scheduler, ms. */
  readonly at: number;
  /** Its place in the ledger's order of answers: 1, 2, 3, … */
  readonly seq: number;
}

/** The cache view read-your-own-writes needs of an informer: its latest snapshot, and when it changes. */
export interface ReadCache {
  /** The latest snapshot: its `resourceVersion` and its objects by key. */
  current(): {
    /** The last resourceVersion the cache has reached; `''` before its first list. */
    readonly resourceVersion: string;
    /** The object stored under `key`. */
    get(key: string): KubernetesObject | undefined;
  };
  /** Emits whenever the cache changes (an informer's `store$`). */
  readonly store$: Observable<unknown>;
}

/**
 * A cache a controller reads, and what it holds: an informer of `resource`, in `namespace` (all when omitted), of the
 * objects `labelSelector` selects (all when omitted). A write is waited for in every cache that can hold it.
 */
export interface ReadSource {
  /** The kind the informer watches. */
  readonly resource: ResourceRef;
  /** The informer. */
  readonly informer: ReadCache;
  /** The informer's namespace; omitted: every namespace. */
  readonly namespace?: string | undefined;
  /** The informer's label selector, in text form; omitted: every object. */
  readonly labelSelector?: string | undefined;
}

/** Options of `ownWrites`. */
export interface OwnWritesOptions {
  /** Times writes are answered at (`at`), and ages them. Default `monotonicScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * How long a write is remembered after its answer, ms: for recognising its echo, and for the next run of its key
   * to wait for. Default 60 000 (far beyond the default wait of 5 s).
   */
  readonly retain?: number;
}

/** Options of `readYourWrites`. */
export interface ReadYourWritesOptions {
  /**
   * How long a run waits at most for its caches to catch up, ms; then it starts anyway and the stale read is
   * reported. Default 5 000. `Infinity`: no bound (a broken watch then holds the key until it recovers).
   */
  readonly maxWait?: number;
  /** The bound's timer. Default: the ledger's scheduler. */
  readonly scheduler?: SchedulerLike;
  /**
   * The kind the reconcile keys name (the `for` kind): a run of key `K` then also waits for the last write to the
   * object `K` itself, whichever run (or code outside any run) sent it.
   */
  readonly primary?: ResourceRef;
}
