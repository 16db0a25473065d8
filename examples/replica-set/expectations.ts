/**
 * Expectations, as kube-controller-manager's ReplicaSet controller keeps them (`UIDTrackingControllerExpectations`
 * over `ControllerExpectations`, `pkg/controller/controller_utils.go`): how many Pod creations and which Pod
 * deletions a PodSet still waits to see in the informer's cache before it may count its Pods again.
 * @module
 */

/** kube-controller-manager's `ExpectationsTimeout`: expectations older than this no longer hold a PodSet back. */
export const EXPECTATIONS_TIMEOUT_MS = 5 * 60_000;

/** What one PodSet is waiting for, as {@link Expectations.get} reports it. */
export interface PendingExpectations {
  /** Creations not observed yet (0 or less: none). */
  readonly add: number;
  /** Deletions not observed yet (0 or less: none). */
  readonly del: number;
  /** The `namespace/name` of every Pod whose deletion is still expected. */
  readonly deleting: readonly string[];
  /** When they were set, on the clock the expectations were given. */
  readonly since: number;
  /** The uid of the PodSet they were set for; absent when none was given. */
  readonly uid?: string;
}

interface Entry {
  add: number;
  del: number;
  readonly deleting: Set<string>;
  readonly since: number;
  readonly uid: string | undefined;
}

/**
 * The expectations of every PodSet, by PodSet key (`namespace/name`).
 *
 * A sync that creates N Pods first expects N creations; each Pod `added` event of that PodSet lowers the count by
 * one. A sync that deletes Pods first expects the deletion of exactly those Pods (by key); a `deleted` event, or an
 * update that sets `deletionTimestamp`, of one of them lowers it, and only once per Pod. Until the counts reach
 * zero, or {@link EXPECTATIONS_TIMEOUT_MS} has passed since they were set, the PodSet must not create or delete
 * again: its informer's cache does not show its own writes yet, and counting Pods from it would create or delete
 * too many.
 *
 * # Guarantees
 * - `satisfied(key)` is true when nothing was ever expected for the key, when every expected creation and deletion
 *   was observed, or when the expectations have expired.
 * - Setting expectations replaces the previous ones for that key (`SetExpectations`), as kube-controller-manager.
 * - A deletion is observed at most once per expected Pod: the update that sets `deletionTimestamp` and the final
 *   `deleted` event of one Pod lower the count once in all. Deletions of Pods that were not expected change
 *   nothing.
 * - Observing more creations than expected (a create whose answer was lost but which landed) leaves the count at or
 *   below zero: satisfied.
 * - Time comes only from `now`, so the timeout runs in virtual time under a `TestScheduler`.
 *
 * - Expectations set for one PodSet (`uid`) are not another's: `forgetOther(key, uid)` drops those of a PodSet
 *   deleted and created again under the same name, whose delete and re-creation one sync saw at once.
 *
 * # Caveats
 * - Keys are PodSet keys: a PodSet deleted and created again under the same name must have its entry `delete`d when
 *   the first one is seen gone, or dropped by `forgetOther` when the new one is seen first (the sync does both), as
 *   kube-controller-manager's `DeleteExpectations` in `deleteRS`, which `updateRS` calls on a uid change.
 * - Not shared between processes: a new leader starts with no expectations and trusts its freshly synced cache.
 * - With read-your-own-writes on (the example's default), a sync starts only once the Pod cache shows its last
 *   sync's creations and deletions, so expectations rarely hold one back; they still do when the cache lags longer
 *   than read-your-own-writes waits (5 s), for up to {@link EXPECTATIONS_TIMEOUT_MS}. The guide says why both.
 */
export class Expectations {
  readonly #entries = new Map<string, Entry>();

  constructor(
    /** The clock, ms (a scheduler's `now()`). */
    private readonly now: () => number,
    /** How long expectations hold a PodSet back at most, ms. */
    readonly timeoutMs: number = EXPECTATIONS_TIMEOUT_MS,
  ) {
    if (!(timeoutMs > 0))
      throw new RangeError(`Expectations: timeoutMs must be a number of ms > 0, got ${String(timeoutMs)}`);
  }

  /**
   * Expects `count` creations for `key` (`ExpectCreations`), replacing what was expected; `uid`: the PodSet's, for
   * {@link forgetOther}.
   */
  expectCreations(key: string, count: number, uid?: string): void {
    this.#entries.set(key, { add: count, del: 0, deleting: new Set(), since: this.now(), uid });
  }

  /**
   * Expects the deletion of exactly these Pods (`namespace/name`) for `key` (`ExpectDeletions`), replacing what was
   * expected; `uid`: the PodSet's, for {@link forgetOther}.
   */
  expectDeletions(key: string, podKeys: readonly string[], uid?: string): void {
    const deleting = new Set(podKeys);
    this.#entries.set(key, { add: 0, del: deleting.size, deleting, since: this.now(), uid });
  }

  /** One creation for `key` was observed, or will never be (a create that failed or was skipped): `CreationObserved`. */
  creationObserved(key: string): void {
    const entry = this.#entries.get(key);
    if (entry !== undefined) entry.add -= 1;
  }

  /**
   * The deletion of Pod `podKey` was observed, or will never be (a delete that failed): `DeletionObserved`. Counts
   * only for a Pod whose deletion `key` expects, and only once.
   */
  deletionObserved(key: string, podKey: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined || !entry.deleting.delete(podKey)) return;
    entry.del -= 1;
  }

  /** Whether `key` may create and delete Pods now (`SatisfiedExpectations`). */
  satisfied(key: string): boolean {
    const entry = this.#entries.get(key);
    return entry === undefined || fulfilled(entry) || this.now() - entry.since > this.timeoutMs;
  }

  /** How long until the unsatisfied expectations of `key` expire, ms; `undefined` when they do not hold it back. */
  expiresIn(key: string): number | undefined {
    if (this.satisfied(key)) return undefined;
    const entry = this.#entries.get(key)!;
    // Expired means strictly older than the timeout, as `isExpired` compares.
    return entry.since + this.timeoutMs + 1 - this.now();
  }

  /** What `key` waits for, or `undefined` when nothing was set. */
  get(key: string): PendingExpectations | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    const { add, del, since, uid } = entry;
    return { add, del, deleting: [...entry.deleting], since, ...(uid === undefined ? {} : { uid }) };
  }

  /** Forgets `key` (`DeleteExpectations`): its PodSet is gone. */
  delete(key: string): void {
    this.#entries.delete(key);
  }

  /**
   * Forgets `key` when its expectations were set for a PodSet other than `uid`: that one was deleted and this one
   * created under its name, and what it expected (its own Pods' creations and deletions) will never be observed for
   * this one. Expectations set without a uid are kept.
   */
  forgetOther(key: string, uid: string): void {
    const entry = this.#entries.get(key);
    if (entry?.uid !== undefined && entry.uid !== uid) this.#entries.delete(key);
  }

  /** How many PodSets have expectations recorded. */
  get size(): number {
    return this.#entries.size;
  }
}

function fulfilled(entry: Entry): boolean {
  return entry.add <= 0 && entry.del <= 0;
}
