/**
 * The soak's checkpoint checks, as pure functions of what was read, so the unit suite tests them apart from any
 * server: cache drift, convergence, lost updates, overlapping reconciles and the heap's trend.
 * @module
 */

/** An object as far as the checks read it. */
export interface Seen {
  readonly key: string;
  readonly resourceVersion: string;
}

/** The keys whose cached resourceVersion differs from the server's, or that only one side has. */
export function cacheDrift(cache: Iterable<Seen>, server: Iterable<Seen>): string[] {
  const cached = new Map([...cache].map((o) => [o.key, o.resourceVersion]));
  const served = new Map([...server].map((o) => [o.key, o.resourceVersion]));
  const drift: string[] = [];
  for (const [key, version] of served) if (cached.get(key) !== version) drift.push(key);
  for (const key of cached.keys()) if (!served.has(key)) drift.push(key);
  return drift.sort();
}

/** A PodSet's desired and observed replicas, and the active Pods it controls. */
export interface PodSetState {
  readonly name: string;
  readonly desired: number;
  readonly statusReplicas: number | undefined;
  readonly ownedPods: number;
}

/** The PodSets that have not converged: owned Pods or `status.replicas` differ from `spec.replicas`. */
export function unconverged(podSets: Iterable<PodSetState>): string[] {
  return [...podSets]
    .filter((p) => p.ownedPods !== p.desired || p.statusReplicas !== p.desired)
    .map((p) => `${p.name} (want ${p.desired}, pods ${p.ownedPods}, status ${String(p.statusReplicas)})`)
    .sort();
}

/** What the writers know of one counter: increments that succeeded, and those whose outcome is unknown. */
export interface CounterTally {
  readonly succeeded: number;
  /** Writes that failed without a definite answer (a timeout, a cut connection, a 5xx): applied or not. */
  readonly unknown: number;
}

/**
 * The counters whose value is not explained by the increments: below the successful ones (a lost update), or above
 * the successful plus the unknown ones (an increment applied twice).
 */
export function lostUpdates(
  counters: ReadonlyMap<string, number>,
  tallies: ReadonlyMap<string, CounterTally>,
): string[] {
  const wrong: string[] = [];
  for (const [name, tally] of tallies) {
    const value = counters.get(name) ?? 0;
    if (value < tally.succeeded || value > tally.succeeded + tally.unknown)
      wrong.push(`${name}: counter ${value}, ${tally.succeeded} increments succeeded, ${tally.unknown} unknown`);
  }
  return wrong.sort();
}

/** Adds `b` to `a`, counter by counter. */
export function addTallies(a: Map<string, CounterTally>, b: Readonly<Record<string, CounterTally>>): void {
  for (const [name, t] of Object.entries(b)) {
    const prior = a.get(name) ?? { succeeded: 0, unknown: 0 };
    a.set(name, { succeeded: prior.succeeded + t.succeeded, unknown: prior.unknown + t.unknown });
  }
}

/** One reconcile run of a key by a replica, `[start, end]` in ms since the epoch. */
export interface RunSpan {
  readonly replica: string;
  readonly key: string;
  readonly start: number;
  readonly end: number;
}

/** Pairs of runs of one key by two replicas whose spans overlap. */
export function overlappingRuns(spans: Iterable<RunSpan>): string[] {
  const byKey = new Map<string, RunSpan[]>();
  for (const span of spans) {
    const list = byKey.get(span.key) ?? [];
    list.push(span);
    byKey.set(span.key, list);
  }
  const found: string[] = [];
  for (const [key, list] of byKey) {
    list.sort((a, b) => a.start - b.start);
    let latest: RunSpan | undefined;
    for (const span of list) {
      if (latest !== undefined && span.start < latest.end && span.replica !== latest.replica)
        found.push(
          `${key}: ${latest.replica} [${latest.start}, ${latest.end}] and ${span.replica} [${span.start}, ${span.end}]`,
        );
      if (latest === undefined || span.end > latest.end) latest = span;
    }
  }
  return found;
}

/** One heap reading: `at` ms, `bytes` used, and whether the replica was leading then (if known). */
export interface HeapSample {
  readonly at: number;
  readonly bytes: number;
  readonly leading?: boolean;
  /**
   * How many full collections (V8's major and incremental mark-compact) the process had run by then, if it says
   * (`nodejs_gc_duration_seconds_count`).
   */
  readonly fullCollections?: number;
}

/**
 * The least-squares fit of the heap readings: a line in time, plus a step between the replica's two roles when
 * the readings cover both (the leader holds the work queue, the expectations and the own-writes ledger; a
 * follower does not, so taking the lead raises the heap once, which is not a trend).
 */
export interface HeapTrend {
  /** The fitted slope, bytes per minute: the growth in time that the role does not explain. */
  readonly slopePerMinute: number;
  /** The slope's standard error, bytes per minute. */
  readonly standardError: number;
  /** The mean heap, bytes. */
  readonly mean: number;
  /** How long the readings span, minutes. */
  readonly minutes: number;
  /** Readings used. */
  readonly samples: number;
  /** Readings taken while the replica led. */
  readonly leadingSamples: number;
  /**
   * How much more heap the replica holds while leading than while following, bytes, fitted together with the
   * slope; 0 when every reading had the same role (then the fit is the plain line).
   */
  readonly leaderStep: number;
  /**
   * Flat within noise, as a leak would not be: the slope is no more than two standard errors above 0, or it would
   * grow the heap by less than 10% of its mean over the run. A falling heap is flat for this purpose.
   */
  readonly flat: boolean;
}

/**
 * Fits `samples` (at least 3): `bytes = a + slope · minutes`, and `+ leaderStep` for the readings taken while
 * leading when the readings have both roles and there are at least 4 of them. A leak grows the heap in time,
 * whatever the role, so it still shows in the slope; a takeover only shifts the level.
 */
export function heapTrend(samples: readonly HeapSample[]): HeapTrend {
  const n = samples.length;
  if (n < 3) throw new RangeError(`heapTrend: needs at least 3 samples, got ${n}`);
  const t0 = samples[0]!.at;
  const xs = samples.map((s) => (s.at - t0) / 60_000);
  const ys = samples.map((s) => s.bytes);
  const ls: number[] = samples.map((s) => (s.leading === true ? 1 : 0));
  const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / n;
  const mx = mean(xs);
  const my = mean(ys);
  const ml = mean(ls);
  let sxx = 0;
  let sxy = 0;
  let sxl = 0;
  let sll = 0;
  let sly = 0;
  for (let i = 0; i < n; i++) {
    const x = xs[i]! - mx;
    const y = ys[i]! - my;
    const l = ls[i]! - ml;
    sxx += x * x;
    sxy += x * y;
    sxl += x * l;
    sll += l * l;
    sly += l * y;
  }
  // The step is fitted only when it can be told apart from the slope: both roles, and a residual degree of freedom.
  const det = sxx * sll - sxl * sxl;
  const withStep = n >= 4 && sll > 0 && det > 1e-9 * sxx * sll;
  const slope = withStep ? (sll * sxy - sxl * sly) / det : sxx === 0 ? 0 : sxy / sxx;
  const leaderStep = withStep ? (sxx * sly - sxl * sxy) / det : 0;
  let residuals = 0;
  for (let i = 0; i < n; i++) residuals += (ys[i]! - my - slope * (xs[i]! - mx) - leaderStep * (ls[i]! - ml)) ** 2;
  const variance = residuals / (n - (withStep ? 3 : 2));
  // Var(slope) is σ² times the slope's diagonal entry of the inverse normal matrix: sll / det, or 1 / sxx alone.
  const standardError = withStep ? Math.sqrt((variance * sll) / det) : sxx === 0 ? 0 : Math.sqrt(variance / sxx);
  const minutes = xs[n - 1]!;
  const flat = slope <= 2 * standardError || slope * minutes < 0.1 * my;
  const leadingSamples = ls.reduce((a, b) => a + b, 0);
  return { slopePerMinute: slope, standardError, mean: my, minutes, samples: n, leadingSamples, leaderStep, flat };
}

/**
 * The lowest reading of each `windowMs` window: the heap after a collection. The readings of a live heap are a
 * sawtooth (allocation, then a collection); its troughs are what a leak raises.
 *
 * Caveat: a window without a full collection yields a reading that still holds garbage, so that its trough stands
 * above the live heap. {@link heapAfterCollections} has no such bias where the readings count collections.
 */
export function heapTroughs(samples: readonly HeapSample[], windowMs: number): HeapSample[] {
  const troughs = new Map<number, HeapSample>();
  const start = samples[0]?.at ?? 0;
  for (const sample of samples) {
    const window = Math.floor((sample.at - start) / windowMs);
    const lowest = troughs.get(window);
    if (lowest === undefined || sample.bytes < lowest.bytes) troughs.set(window, sample);
  }
  return [...troughs.values()];
}

/**
 * The lowest reading of each full-collection cycle: the readings between one full collection and the next, where
 * the first of them is the heap right after the collection, plus what the process allocated since. The readings
 * before the first collection they saw are left out (garbage of the start that no collection had reclaimed yet,
 * such as the informers' first lists), and so is the cycle still open at the last reading.
 * Undefined when fewer than `minimum` cycles were seen, or some reading does not count collections: then
 * {@link heapTroughs} is what there is.
 */
export function heapAfterCollections(samples: readonly HeapSample[], minimum = 3): HeapSample[] | undefined {
  if (samples.length === 0 || samples.some((sample) => sample.fullCollections === undefined)) return undefined;
  const lowest: HeapSample[] = [];
  let cycle = samples[0]!.fullCollections!;
  let current: HeapSample | undefined;
  for (const sample of samples) {
    if (sample.fullCollections! !== cycle) {
      if (current !== undefined) lowest.push(current);
      cycle = sample.fullCollections!;
      current = sample;
    } else if (current !== undefined && sample.bytes < current.bytes) {
      current = sample;
    }
  }
  return lowest.length >= minimum ? lowest : undefined;
}
