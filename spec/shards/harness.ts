/**
 * Replicas of one sharded controller in virtual time, for the shard specs: each has its own link to one virtual
 * cluster (its latency, its partitions), its own clock (skew, wall-clock steps), its `shardLeases`, and a reconcile
 * operator gated per key by a `RangeGate`, whose runs it records as `[start, end)` spans per key.
 */
import { expect } from 'chai';
import type { KubernetesObject } from '@kubernetes/client-node';
import { BehaviorSubject, from, mergeMap, Observable, Subject, timer, type Subscription } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { reconcile, type ReconcileEvent } from '../../src/controller/index.js';
import type { Store } from '../../src/store/index.js';
import type { ResourceRef } from '../../src/resources/index.js';
import { fnv1a64, shardHash, splitHashSpace } from '../../src/sharding/index.js';
import {
  RangeGate,
  rangeIndex,
  rangeSelectedInformer,
  shardLeases,
  type ShardEvent,
  type ShardState,
} from '../../src/shards/index.js';
import {
  virtualCluster,
  type VirtualCluster,
  type VirtualClusterOptions,
  type VirtualLink,
} from '../../src/testing/index.js';
import { machine, type ClockStep } from '../leader/harness.js';

/** Runs `body` inside `TestScheduler.run` (1 frame = 1 ms) with a fresh virtual cluster (its `featureGates` if given). */

/** The shortest watch a replica's primary informer asks for, ms (`minWatchTimeout`): watches last 10–20 s. */
const WATCH_TIMEOUT_MS = 10_000;

/**
 * How long after the faults stop a replica's primary cache may still miss what a watch hung by a partition missed:
 * such a watch (no bytes and no close, before its first bookmark) is cut after its `timeoutSeconds` (at most twice
 * WATCH_TIMEOUT_MS) plus 30 s, then resumed after at most 30 s of backoff.
 */
export const WATCH_STALL_BOUND_MS = 2 * WATCH_TIMEOUT_MS + 30_000 + 30_000;
export function cluster<R>(
  body: (env: { scheduler: TestScheduler; cluster: VirtualCluster }) => R,
  options: Pick<VirtualClusterOptions, 'featureGates'> = {},
): R {
  const scheduler = new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
  return scheduler.run(() => body({ scheduler, cluster: virtualCluster({ scheduler, ...options }) }));
}

/** The range of a test key: its FNV-1a hash, split as the replicas split the space. */
export function rangeOfKey(ranges: number): (key: string) => number {
  const bounds = splitHashSpace(ranges);
  return (key) => rangeIndex(bounds, `0x${fnv1a64(key)}`);
}

/** One run of a key on a replica. */
export interface RunSpan {
  readonly key: string;
  readonly who: string;
  readonly start: number;
  end: number;
}

export interface ReplicaOptions {
  readonly ranges: number;
  readonly keys: readonly string[];
  readonly leaseDuration: number;
  readonly renewDeadline: number;
  readonly retryPeriod: number;
  /** Latency of each request, ms. */
  readonly latency?: number;
  readonly skew?: number;
  readonly steps?: readonly ClockStep[];
  /** How long each run takes, ms, by key and run number. */
  readonly runTime?: (key: string, n: number) => number;
  /** Every key is triggered this often (a resync). */
  readonly resync?: number;
  readonly random?: () => number;
  /** Runs go on to their end after their signal is aborted (a handover must then wait for them). */
  readonly ignoreAbort?: boolean;
  /**
   * A primary informer of this resource over the replica's link, as the manager builds it for a sharded controller:
   * `rangeSelectedInformer` over the ranges held (open and draining), by `shardSelector` where the cluster serves it
   * and by the reflector's own hash filter elsewhere.
   */
  readonly primary?: ResourceRef;
}

export interface Replica {
  readonly identity: string;
  readonly link: VirtualLink;
  readonly states: ShardState[];
  readonly events: ShardEvent[];
  readonly runs: RunSpan[];
  readonly reconciled: ReconcileEvent[];
  /** The store of its primary informer (`options.primary`), `undefined` without one or once killed. */
  cache(): Store<KubernetesObject> | undefined;
  /** The latest state, `undefined` once stopped or killed. */
  current(): ShardState | undefined;
  alive(): boolean;
  /** Graceful stop: every range handed over, then the member Lease released. */
  stop(): void;
  /** kill -9: nothing is released (its link hangs from now on), its runs stop where they are. */
  kill(): void;
}

/** Starts replica `identity` now. */
export function replica(
  scheduler: TestScheduler,
  cluster: VirtualCluster,
  identity: string,
  options: ReplicaOptions,
  keyGateRanges = rangeOfKey(options.ranges),
): Replica {
  const link = cluster.link({ latency: options.latency ?? 5 });
  const clock = machine(scheduler, options.skew ?? 0, options.steps ?? []);
  const gate = new RangeGate(keyGateRanges, options.ranges);
  const stop$ = new Subject<void>();
  const states: ShardState[] = [];
  const events: ShardEvent[] = [];
  const runs: RunSpan[] = [];
  const reconciled: ReconcileEvent[] = [];
  let alive = true;
  let latest: ShardState | undefined;
  // The ranges a primary selects, as the manager's: those held, draining ones included.
  const held$ = new BehaviorSubject<readonly number[]>([]);
  const hold = (state: ShardState | undefined): void => {
    const held = state === undefined ? [] : [...state.open, ...state.draining].sort((a, b) => a - b);
    if (held.join(',') !== held$.value.join(',')) held$.next(held);
  };
  const subscriptions: Subscription[] = [];
  subscriptions.push(
    shardLeases(link, {
      namespace: 'default',
      name: 'ctl',
      identity,
      ranges: options.ranges,
      leaseDuration: options.leaseDuration,
      renewDeadline: options.renewDeadline,
      retryPeriod: options.retryPeriod,
      scheduler: clock,
      random: options.random ?? (() => 0.5),
      drained: (range) => gate.drained(range),
      stop$,
      onEvent: (event) => events.push(event),
    }).subscribe({
      next: (state) => {
        latest = state;
        states.push(state);
        gate.setOpen(state.open);
        hold(state);
      },
      complete: () => {
        latest = undefined;
        gate.setOpen([]);
        hold(undefined);
      },
    }),
  );
  let cache: (() => Store<KubernetesObject>) | undefined;
  const warnings: unknown[] = [];
  if (options.primary !== undefined) {
    const informer = rangeSelectedInformer<KubernetesObject>(
      link,
      options.primary,
      // Without server-side selection every list warns that the shard is filtered here: expected, so kept, not printed.
      // Watches of 10–20 s: a watch a partition left hung (no bytes, no close, before its first bookmark) is cut
      // within WATCH_STALL_BOUND_MS, which the properties wait before comparing caches with the server.
      {
        namespace: 'default',
        scheduler: clock,
        minWatchTimeout: WATCH_TIMEOUT_MS,
        onWarning: (warning) => warnings.push(warning),
      },
      splitHashSpace(options.ranges),
      held$,
      () => undefined,
    );
    subscriptions.push(informer.events$.subscribe());
    cache = () => informer.current();
  }
  const counts = new Map<string, number>();
  const resync = options.resync ?? 1000;
  const triggers$ = timer(0, resync, scheduler).pipe(mergeMap(() => from(options.keys)));
  subscriptions.push(
    triggers$
      .pipe(
        reconcile(
          ({ key, signal }) =>
            new Observable<undefined>((subscriber) => {
              const n = (counts.get(key) ?? 0) + 1;
              counts.set(key, n);
              const span: RunSpan = { key, who: identity, start: scheduler.now(), end: Number.POSITIVE_INFINITY };
              runs.push(span);
              const end = (): void => {
                if (span.end === Number.POSITIVE_INFINITY) span.end = scheduler.now();
              };
              const onAbort = (): void => {
                if (options.ignoreAbort === true) return;
                end();
                subscriber.error(new Error('aborted'));
              };
              signal.addEventListener('abort', onAbort);
              const work = scheduler.schedule(() => {
                end();
                subscriber.next(undefined);
                subscriber.complete();
              }, options.runTime?.(key, n) ?? 50);
              return () => {
                end();
                work.unsubscribe();
                signal.removeEventListener('abort', onAbort);
              };
            }),
          {
            keyGate: gate,
            metrics: gate.metrics,
            scheduler: clock,
            concurrency: 4,
            globalRateLimiter: false,
          },
        ),
      )
      .subscribe((event) => reconciled.push(event)),
  );
  return {
    identity,
    link,
    states,
    events,
    runs,
    reconciled,
    cache: () => (alive ? cache?.() : undefined),
    current: () => latest,
    alive: () => alive,
    stop: () => {
      if (alive) stop$.next();
    },
    kill: () => {
      if (!alive) return;
      alive = false;
      link.faults.partition({ mode: 'hang' });
      for (const subscription of subscriptions) subscription.unsubscribe();
      latest = undefined;
    },
  };
}

/**
 * Fails unless the primary cache of every live replica holds exactly the server's objects of `resource` in the ranges
 * it holds (open or draining): same keys, same resourceVersions, nothing from any other range.
 */
export function expectCachesEqualServer(
  replicas: readonly Replica[],
  server: VirtualCluster,
  resource: ResourceRef,
  ranges: number,
): void {
  const bounds = splitHashSpace(ranges);
  const rangeOf = (object: KubernetesObject): number => rangeIndex(bounds, shardHash(object));
  const versions = (objects: Iterable<KubernetesObject>): string[] =>
    [...objects]
      .map((o) => `${o.metadata?.namespace}/${o.metadata?.name}@${o.metadata?.resourceVersion} (range ${rangeOf(o)})`)
      .sort();
  const stored = server.list(resource, 'default');
  for (const r of replicas) {
    const state = r.current();
    const cache = r.cache();
    if (!r.alive() || state === undefined || cache === undefined) continue;
    const held = new Set([...state.open, ...state.draining]);
    const expected = versions(stored.filter((object) => held.has(rangeOf(object))));
    const cached = versions(cache.values());
    const missing = expected.filter((line) => !cached.includes(line));
    const extra = cached.filter((line) => !expected.includes(line));
    expect(
      { missing, extra },
      `${r.identity}'s cache, holding ranges ${[...held].sort((a, b) => a - b).join(',')}, against the server ` +
        `(missing: ${missing.join(', ') || 'none'}; extra: ${extra.join(', ') || 'none'})`,
    ).to.deep.equal({ missing: [], extra: [] });
  }
}

/** Fails, naming both replicas, when two replicas ran one key at overlapping times. */
export function expectNoKeyRunTwiceAtOnce(replicas: readonly Replica[]): void {
  const byKey = new Map<string, RunSpan[]>();
  for (const r of replicas) for (const run of r.runs) byKey.set(run.key, [...(byKey.get(run.key) ?? []), run]);
  for (const [key, spans] of byKey) {
    const ordered = [...spans].sort((a, b) => a.start - b.start);
    for (let i = 1; i < ordered.length; i++) {
      const before = ordered[i - 1]!;
      const after = ordered[i]!;
      expect(
        after.start,
        `${key}: ${after.who} started at ${after.start} while ${before.who} ran it from ${before.start} until ${before.end}`,
      ).to.be.at.least(before.end);
    }
  }
}

/** Fails unless every range is open on exactly one of `replicas`, and their shares differ by at most one. */
export function expectFairlyAssigned(replicas: readonly Replica[], ranges: number): void {
  const live = replicas.filter((r) => r.alive() && r.current() !== undefined);
  const owners = new Map<number, string[]>();
  for (const r of live)
    for (const range of r.current()!.open) owners.set(range, [...(owners.get(range) ?? []), r.identity]);
  const summary = live.map((r) => `${r.identity}: ${r.current()!.open.join(',')}`).join('; ');
  for (let range = 0; range < ranges; range++)
    expect(owners.get(range) ?? [], `range ${range} (${summary})`).to.have.length(1);
  const counts = live.map((r) => r.current()!.open.length);
  expect(Math.max(...counts) - Math.min(...counts), summary).to.be.at.most(1);
}
