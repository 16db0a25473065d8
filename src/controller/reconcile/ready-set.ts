/**
 * The ready keys of the reconcile queue and the order they start in: priority levels, fairness groups served
 * round-robin within a level, first come first served within a group, and an age list through which the oldest
 * key gets one start in every few once it is overdue. Internal; `KeyedQueue` owns one.
 */
import { Ring } from './structures.js';

/** Aging: after how long a ready key is overdue, and one start in how many then goes to the oldest ready key. */
export interface Aging {
  /** ms a key may wait ready before it is overdue. */
  readonly after: number;
  /** While a key is overdue, at least one start in every `every` takes the oldest ready key. */
  readonly every: number;
  /**
   * The slots the counted starts share (`concurrency - reserved.slots`; 1 when unbounded, or when absent). An aging
   * start owed while higher keys hold the turn may be put off, up to `(every - 1) · slots` passed-over takes in all,
   * and made up at the backlog's own turns: see {@link agingPassLimit}.
   */
  readonly slots?: number;
}

/** The fields of a key record the ready set reads; `KeyState` extends it. */
export interface ReadyEntry {
  readonly key: string;
  /** The priority of the key's pending run. */
  priority: number;
  /**
   * When the key entered the ready set (never earlier than the key that entered before it). The queue also keeps
   * a delayed key's due time here.
   */
  readyAt: number;
  /**
   * Where the key is linked while it is in the ready set with others, created the first time the record needs it
   * and reused after: a lone ready key, the common case, never needs one, so records stay small.
   */
  link: Link | undefined;
}

/** A key record's place in its group's FIFO and in the age list. */
export interface Link {
  readonly entry: ReadyEntry;
  /** The key's fairness group, computed once per record. */
  readonly group: string;
  /** The group it is linked in, while it is. */
  slot: Group | undefined;
  /** Neighbours in the group's FIFO. */
  prev: Link | undefined;
  next: Link | undefined;
  /** Neighbours in the age list (entry order). */
  older: Link | undefined;
  newer: Link | undefined;
}

/** Ready keys of one priority and one fairness group, FIFO. */
export interface Group {
  readonly name: string;
  readonly level: Level;
  head: Link | undefined;
  tail: Link | undefined;
  size: number;
  /** In its level's round-robin ring (possibly empty, dropped when the ring reaches it). */
  inRing: boolean;
}

/** Ready keys of one priority: their groups, and the round-robin order of the groups that have keys. */
interface Level {
  readonly priority: number;
  readonly groups: Map<string, Group>;
  readonly ring: Ring<Group>;
  size: number;
  /** In the level heap (possibly empty, dropped when it reaches the top). */
  inHeap: boolean;
}

/** Empty groups a level keeps for reuse, and empty levels the set keeps: beyond these, empty ones are dropped. */
const KEPT_EMPTY_GROUPS = 64;
const KEPT_EMPTY_LEVELS = 16;

/**
 * After how many takes that passed the oldest ready key over an aging start may take it early, when `every` lets
 * `every - 1` pass: about a quarter of the window sooner (none for `every` < 4). An early aging start is made only
 * when the turn is at the oldest key's own priority, so it displaces no key of a higher priority: under a steady
 * stream of high keys over an overdue backlog, the aging starts land on the backlog's own turns, and a high key waits
 * behind one only when high keys kept the turn for the whole window.
 */
export function agingMayStartEarly(every: number): number {
  return every - 1 - Math.floor(every / 4);
}

/**
 * How many takes may pass the oldest overdue key over before the next take must be it: `(every - 1) · slots`, so
 * that aging may put its starts off for one round of the slots. With one slot this is the window of `every`: one
 * start in every `every`. With `s` slots, a burst of up to `(every - 1) · s` higher keys (runs that ended together, or
 * triggers queued behind a pause of the thread) all start before the aging starts they passed over, which are then
 * made up at the turns of the backlog's own priority (each taking the oldest key cancels `every - 1` passes). The
 * share is the same in the long run; the bound on a key's wait grows by `(every - 1) · (s - 1)` takes, in time by
 * less than `every - 1` runs.
 */
export function agingPassLimit(every: number, slots = 1): number {
  return (every - 1) * (Number.isFinite(slots) && slots >= 1 ? Math.floor(slots) : 1);
}

/** The default fairness key: the namespace of a `namespace/name` key, `''` for a cluster-scoped `name`. */
export function namespaceOf(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

/**
 * The ready keys, and which starts next.
 *
 * # Guarantees
 * - `take` returns, unless it is an aging start, a key of the highest priority present; within that priority, the
 *   oldest key of the group whose turn it is: groups that have ready keys take turns round-robin, a group joins the
 *   end of the round when it gets a ready key while it had none.
 * - Aging: the age list holds every ready key in the order it entered (`readyAt` never decreases along it). A count
 *   of passes goes up by one for each take that passes the oldest key over (up to {@link agingPassLimit}) and down
 *   by `every - 1` for each take of it (not below 0). When the oldest ready key has waited `after` or more and the
 *   count is at the limit, `take` takes the oldest key, whatever the priorities. So while keys are overdue, the
 *   first `m` takes include at least `(m - limit) / every` takes of the key then ready longest. It may take it
 *   sooner, once the count is {@link agingMayStartEarly} or more, when the key whose turn it is has no higher
 *   priority than the oldest: the aging start then displaces no key of a higher priority. With one slot the limit
 *   is `every - 1`: one take in every `every`.
 * - Raising the priority of a ready key moves it to the end of its group's FIFO at the new priority (as
 *   controller-runtime does) and keeps its place in the age list.
 * - Every operation is O(1), but a take or add that changes which priorities are present, O(log P) for P distinct
 *   priorities present; nothing scans the keys. A lone ready key (the common case of a key started as soon as it
 *   is triggered) is not linked anywhere and costs no fairness lookup.
 * - What `fairness` throws, or a value that is not a string, puts the key in the group `''`, and is reported to
 *   `onError`.
 */
export class ReadySet<E extends ReadyEntry> {
  /** The only ready key, kept unlinked: it starts next whatever the order. */
  private lone: E | undefined;
  private count = 0;
  private readonly levels = new Map<number, Level>();
  /** A max-heap by priority of the levels that may have keys. */
  private readonly heap: Level[] = [];
  private oldest: Link | undefined;
  private newest: Link | undefined;
  /**
   * Takes that passed the oldest ready key over and are not yet made up: one per such take, `every - 1` fewer per
   * take of the oldest (not below 0), at most {@link passLimit}.
   */
  private sinceOldest = 0;
  /** See {@link agingMayStartEarly}. */
  private readonly earlyAfter: number;
  /** See {@link agingPassLimit}. */
  private readonly passLimit: number;

  constructor(
    private readonly fairness: ((key: string) => string) | undefined,
    private readonly aging: Aging,
    private readonly onError: (error: unknown, key: string) => void,
  ) {
    this.earlyAfter = agingMayStartEarly(aging.every);
    this.passLimit = agingPassLimit(aging.every, aging.slots);
  }

  /** How many keys are ready. */
  get size(): number {
    return this.count;
  }

  /** Adds `entry` (not in the set; `priority` set) as the newest ready key, entering at `now`. */
  add(entry: E, now: number): void {
    const newest = this.newest?.entry ?? this.lone;
    entry.readyAt = newest !== undefined && newest.readyAt > now ? newest.readyAt : now;
    if (this.count === 0) {
      this.lone = entry;
      this.count = 1;
      return;
    }
    const lone = this.lone;
    if (lone !== undefined) {
      this.lone = undefined;
      this.link(lone);
    }
    this.link(entry);
    this.count += 1;
  }

  /** Raises the priority of `entry` (in the set) to `priority`, which is higher than its own. */
  raise(entry: E, priority: number): void {
    entry.priority = priority;
    if (entry === this.lone) return;
    const link = entry.link!;
    this.unlinkGroup(link);
    this.linkGroup(link);
  }

  /** Removes and returns the key that starts next at `now`, if any key is ready. */
  take(now: number): E | undefined {
    if (this.count === 0) return undefined;
    this.count -= 1;
    const lone = this.lone;
    if (lone !== undefined) {
      this.lone = undefined;
      this.tookOldest();
      return lone;
    }
    const link = this.next(now);
    const taken = link === this.oldest;
    this.unlinkGroup(link);
    this.unlinkAge(link);
    if (taken) this.tookOldest();
    else if (this.sinceOldest < this.passLimit) this.sinceOldest += 1;
    if (this.count === 1) this.unlinkLast();
    return link.entry as E;
  }

  /** A take of the oldest ready key makes up `every - 1` passes. */
  private tookOldest(): void {
    this.sinceOldest = Math.max(0, this.sinceOldest - (this.aging.every - 1));
  }

  /**
   * Removes and returns the key whose turn it is by priority and fairness, if its priority is above `above`: the
   * take of a held-back slot (`ReconcileOptions.reserved`). Aging does not choose here, and such a take does not
   * count among the `every` takes of the aging rule.
   */
  takeAbove(above: number): E | undefined {
    if (this.count === 0) return undefined;
    const lone = this.lone;
    if (lone !== undefined) {
      if (lone.priority <= above) return undefined;
      this.lone = undefined;
      this.count = 0;
      return lone;
    }
    if (this.topLevel().priority <= above) return undefined;
    this.count -= 1;
    const link = this.top();
    this.unlinkGroup(link);
    this.unlinkAge(link);
    if (this.count === 1) this.unlinkLast();
    return link.entry as E;
  }

  /** Forgets every ready key (their records are reset by the caller). */
  clear(): void {
    this.lone = undefined;
    this.count = 0;
    this.levels.clear();
    this.heap.length = 0;
    this.oldest = undefined;
    this.newest = undefined;
    this.sinceOldest = 0;
  }

  /** Calls `visit` with each priority that has ready keys and how many. */
  forEachPriority(visit: (priority: number, keys: number) => void): void {
    if (this.lone !== undefined) visit(this.lone.priority, 1);
    for (const level of this.levels.values()) if (level.size > 0) visit(level.priority, level.size);
  }

  /** The last linked key is alone again: unlink it, so that the next add starts from the cheap case. */
  private unlinkLast(): void {
    const last = this.oldest!;
    this.unlinkGroup(last);
    this.unlinkAge(last);
    this.lone = last.entry as E;
  }

  /**
   * The linked key `take` returns at `now`: the oldest when it is overdue and aging owes it this take (the count of
   * passes is at {@link agingPassLimit}) or may give it this take at no cost to a higher priority (see
   * {@link agingMayStartEarly}); otherwise the key whose turn it is by priority and fairness.
   */
  private next(now: number): Link {
    const oldest = this.oldest!;
    const { after } = this.aging;
    const since = this.sinceOldest;
    if (since < this.earlyAfter || now - oldest.entry.readyAt < after) return this.top();
    if (since >= this.passLimit) return oldest;
    // Early: only when the turn is at the oldest key's priority or below. Peeking costs the ring nothing: the
    // highest level present is what `top` would serve.
    return this.topLevel().priority <= oldest.entry.priority ? oldest : this.top();
  }

  /** The key whose turn it is by priority and fairness (still linked). */
  private top(): Link {
    const level = this.topLevel();
    for (;;) {
      const group = level.ring.shift()!;
      if (group.size === 0) {
        group.inRing = false;
        this.dropIfIdle(group);
        continue;
      }
      // The group goes to the end of the round if it keeps keys after this one.
      if (group.size > 1) level.ring.push(group);
      else group.inRing = false;
      return group.head!;
    }
  }

  /** The level of the highest priority that has linked keys (some key must be linked). */
  private topLevel(): Level {
    for (;;) {
      const level = this.heap[0]!;
      if (level.size > 0) return level;
      this.popLevel();
    }
  }

  private link(entry: ReadyEntry): void {
    const link = (entry.link ??= {
      entry,
      group: this.groupOf(entry.key),
      slot: undefined,
      prev: undefined,
      next: undefined,
      older: undefined,
      newer: undefined,
    });
    const newest = this.newest;
    link.older = newest;
    link.newer = undefined;
    if (newest === undefined) this.oldest = link;
    else newest.newer = link;
    this.newest = link;
    this.linkGroup(link);
  }

  private unlinkAge(link: Link): void {
    const { older, newer } = link;
    if (older === undefined) this.oldest = newer;
    else older.newer = newer;
    if (newer === undefined) this.newest = older;
    else newer.older = older;
    link.older = undefined;
    link.newer = undefined;
  }

  private linkGroup(link: Link): void {
    const level = this.levelOf(link.entry.priority);
    const name = link.group;
    let group = level.groups.get(name);
    if (group === undefined) {
      group = { name, level, head: undefined, tail: undefined, size: 0, inRing: false };
      level.groups.set(name, group);
    }
    const tail = group.tail;
    link.prev = tail;
    link.next = undefined;
    if (tail === undefined) group.head = link;
    else tail.next = link;
    group.tail = link;
    group.size += 1;
    level.size += 1;
    link.slot = group;
    if (!group.inRing) {
      group.inRing = true;
      level.ring.push(group);
    }
  }

  private unlinkGroup(link: Link): void {
    const group = link.slot!;
    const { prev, next } = link;
    if (prev === undefined) group.head = next;
    else prev.next = next;
    if (next === undefined) group.tail = prev;
    else next.prev = prev;
    link.prev = undefined;
    link.next = undefined;
    link.slot = undefined;
    group.size -= 1;
    group.level.size -= 1;
    if (group.size === 0 && !group.inRing) this.dropIfIdle(group);
  }

  private levelOf(priority: number): Level {
    let level = this.levels.get(priority);
    if (level === undefined) {
      level = { priority, groups: new Map(), ring: new Ring<Group>(), size: 0, inHeap: false };
      this.levels.set(priority, level);
    }
    if (!level.inHeap) this.pushLevel(level);
    return level;
  }

  private dropIfIdle(group: Group): void {
    const { groups } = group.level;
    if (groups.size > KEPT_EMPTY_GROUPS && groups.get(group.name) === group) groups.delete(group.name);
  }

  private groupOf(key: string): string {
    const fairness = this.fairness;
    if (fairness === undefined) return namespaceOf(key);
    let name: unknown;
    try {
      name = fairness(key);
    } catch (error) {
      this.onError(error, key);
      return '';
    }
    if (typeof name === 'string') return name;
    this.onError(new TypeError(`the fairness function returned ${typeof name}, not a string`), key);
    return '';
  }

  private pushLevel(level: Level): void {
    const heap = this.heap;
    level.inHeap = true;
    let i = heap.push(level) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.priority >= level.priority) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = level;
  }

  private popLevel(): void {
    const heap = this.heap;
    const top = heap[0]!;
    top.inHeap = false;
    if (top.size === 0 && this.levels.size > KEPT_EMPTY_LEVELS) this.levels.delete(top.priority);
    const last = heap.pop()!;
    if (heap.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && heap[right]!.priority > heap[left]!.priority ? right : left;
      if (heap[child]!.priority <= last.priority) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
  }
}
