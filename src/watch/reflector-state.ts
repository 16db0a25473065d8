/**
 * The reflector as a state machine: its state, the inputs that move it and the effects a move asks for.
 * `reflectorStep` (reflector-step.ts) is the one transition function; `Reflector` (reflector.ts) feeds it what the
 * server, the timers and the consumer did, and carries out its effects.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { WatchEvent, WatchFailure, WatchProblemReason } from './types.js';

/** Running totals of `problem` events per reason, for the life of one subscription. */
export type ProblemCounts = Readonly<Record<WatchProblemReason, number>>;

/** What the reflector remembers whatever it is doing. */
export interface ReflectorMemory {
  /** Consecutive failures: the exponent of the next backoff. Reset once a watch has stayed up for 2 minutes. */
  readonly attempt: number;
  /** 410 Expired answers in a row: the first relists at once, the next ones back off first. */
  readonly expiredStreak: number;
  /** Whether lists are asked as streaming lists; false for good once the server showed it does not serve them. */
  readonly streamingList: boolean;
  /** The running count of every kind of bad input. */
  readonly problemCounts: ProblemCounts;
}

/** What a backoff retries once it ends. */
export type Retry =
  /** Ask discovery again (an unknown kind, or discovery failed). */
  | { readonly to: 'resolve' }
  /** List from scratch (or stream the initial events again). */
  | { readonly to: 'relist' }
  /** Watch again from the last resourceVersion seen. */
  | { readonly to: 'watch'; readonly resourceVersion: string };

/**
 * What the reflector is doing, as kube-rs's `watcher::State` says it (`Empty`, `InitPage`, `InitialWatch`,
 * `Watching`; its `InitListed` lasts no time here, since a complete list opens its watch in the same step).
 * `resolving`, `listing`, `initialEvents` and `watching` each have exactly one request in flight, `backingOff` one
 * timer pending, `idle` and `failed` nothing.
 *
 * A resourceVersion to resume from exists only while watching: a relist forgets it, so that a failure during a list
 * lists again and never resumes from a version the list was meant to replace.
 */
export type ReflectorPhase<T extends KubernetesObject> =
  /** Not started. */
  | { readonly phase: 'idle' }
  /** A discovery request for the resource's plural and scope is in flight. */
  | { readonly phase: 'resolving' }
  /** List page `page` is in flight; the pages before it are held until the list is complete. */
  | {
      readonly phase: 'listing';
      readonly page: number;
      /** The continue token this page was asked with (none for page 1). */
      readonly continueToken: string | undefined;
      /** False for the one unpaginated list that follows an expired continue token. */
      readonly paginate: boolean;
      readonly pages: readonly (readonly T[])[];
    }
  /**
   * A streaming list's watch is in flight, still in its initial events. `objects` holds them by key until the
   * bookmark that ends them; the step updates it in place (see `reflectorStep`).
   */
  | { readonly phase: 'initialEvents'; readonly accepted: boolean; readonly objects: Map<string, T> }
  /** A watch from `resourceVersion` is in flight; `resourceVersion` follows every event and bookmark. */
  | {
      readonly phase: 'watching';
      readonly resourceVersion: string;
      /** Whether the server accepted this watch (and `watching` was announced). */
      readonly accepted: boolean;
      /** Whether this watch delivered any event or bookmark: a watch closed at once without one is a failure. */
      readonly sawEvent: boolean;
    }
  /** Waiting out a backoff, then `retry`. */
  | { readonly phase: 'backingOff'; readonly retry: Retry }
  /** Stopped for good; no input moves it. */
  | { readonly phase: 'failed' };

/** The whole state: the current phase and what is remembered across phases. */
export type ReflectorState<T extends KubernetesObject> = ReflectorMemory & ReflectorPhase<T>;

/** A bad input not counted yet: the step counts it and emits it as a `problem`. */
export interface ProblemReport {
  readonly reason: WatchProblemReason;
  readonly message: string;
  /** The key of the object concerned, when it has one. */
  readonly key?: string;
  /** How many bad inputs it stands for (default 1). */
  readonly n?: number;
}

/** What happened, as the driver tells the step. */
export type ReflectorInput<T extends KubernetesObject> =
  /** The subscription began; `discover` when the resource must first be resolved through discovery. */
  | { readonly type: 'start'; readonly discover: boolean }
  /** Discovery answered and the resource's collection path is known. */
  | { readonly type: 'resolved' }
  /** The options cannot work (a malformed apiVersion, a namespace on a cluster-scoped kind): no retry can help. */
  | { readonly type: 'invalid'; readonly message: string }
  /** The list page in flight arrived, its objects prepared; `problems` are the bad items found on it. */
  | {
      readonly type: 'listed';
      readonly objects: readonly T[];
      readonly continueToken: string | undefined;
      readonly resourceVersion: string;
      readonly problems: readonly ProblemReport[];
    }
  /** The request in flight failed, timed out or answered something unreadable. */
  | { readonly type: 'requestFailed'; readonly failure: WatchFailure }
  /** The server accepted the watch in flight (its headers, or its first line, arrived). */
  | { readonly type: 'accepted' }
  /**
   * A watch event, with `raw` as decoded and `object` prepared (stripped, transformed, frozen); `problems` says
   * whether the transform failed.
   */
  | {
      readonly type: 'object';
      readonly event: 'ADDED' | 'MODIFIED' | 'DELETED';
      readonly raw: KubernetesObject;
      readonly object: T;
      readonly problems: readonly ProblemReport[];
    }
  /** A watch bookmark. */
  | { readonly type: 'bookmark'; readonly resourceVersion: string; readonly initialEventsEnd: boolean }
  /** A watch line that cannot be applied. */
  | { readonly type: 'badLine'; readonly reason: 'MalformedLine' | 'MissingName'; readonly message: string }
  /** A watch ERROR event (a `Status` inside the stream). */
  | { readonly type: 'errorEvent'; readonly failure: WatchFailure }
  /** The server ended the watch cleanly after `openMs`. */
  | { readonly type: 'closed'; readonly openMs: number }
  /**
   * The watch sent no byte for `idleMs`: more than its timeoutSeconds + 30 s, or (`bound: 'idleTimeout'`) more than
   * `idleTimeout` after it had had a bookmark.
   */
  | { readonly type: 'dead'; readonly idleMs: number; readonly bound: 'timeoutSeconds' | 'idleTimeout' }
  /** The watch has stayed up for 2 minutes. */
  | { readonly type: 'healthy' }
  /** The backoff ended. */
  | { readonly type: 'retry' };

/**
 * What the step asks the driver to do, in order. A request, a backoff or a stop is always the last effect of a
 * step, so a request answered synchronously moves the machine only after everything before it was done.
 */
export type ReflectorEffect<T extends KubernetesObject> =
  /** Emit a status (and tell the health reporter), a problem or a watch delta. */
  | { readonly type: 'emit'; readonly event: WatchEvent<T> }
  /** Emit a complete list as one batch: `relistStarted`, its non-empty pages as one `listedPages`, `relistDone`. */
  | { readonly type: 'emitRelist'; readonly pages: readonly (readonly T[])[]; readonly resourceVersion: string }
  /** Ask discovery for the resource. */
  | { readonly type: 'resolve' }
  /** Ask for a list page (`limit` = pageSize when `paginate`). */
  | {
      readonly type: 'list';
      readonly page: number;
      readonly continueToken: string | undefined;
      readonly paginate: boolean;
    }
  /** Open a watch: from `resourceVersion`, or as a streaming list (no resourceVersion) when `streaming`. */
  | { readonly type: 'watch'; readonly resourceVersion: string | undefined; readonly streaming: boolean }
  /** Abort the watch in flight and its timers; the rest of its chunk is ignored. */
  | { readonly type: 'abortWatch' }
  /**
   * Wait before retrying: the driver draws the delay for the `attempt`-th failure in a row (or takes a 429's
   * `Retry-After`), announces it as status `backingOff` and sends `retry` when it ends.
   */
  | { readonly type: 'backOff'; readonly cause: WatchFailure; readonly attempt: number }
  /** Stop for good and error the stream with a `ListWatchError` for `cause` (status `failed` was emitted). */
  | { readonly type: 'stop'; readonly cause: WatchFailure };
