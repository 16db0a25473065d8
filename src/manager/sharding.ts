/**
 * The manager's sharding: one `shardLeases` engine for the process, a per-key gate for each sharded controller, the
 * shard metrics, log records and ready check.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  BehaviorSubject,
  forkJoin,
  ignoreElements,
  Observable,
  of,
  tap,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import type { InformerWatchOptions } from '../informer/index.js';
import type { ResourceRef } from '../resources/index.js';
import type { ControllerShards } from '../controller/context/index.js';
import type { ReconcileMetrics } from '../controller/index.js';
import { splitHashSpace, type ShardField } from '../sharding/index.js';
import {
  KeyRanges,
  RangeGate,
  rangeSelectedInformer,
  shardLeases,
  type PrimaryCache,
  type ShardEvent,
  type ShardState,
} from '../shards/index.js';
import type { Connection, WarningHandler } from '../transport/index.js';
import type { CheckResult } from './health/index.js';
import type { ManagerLogger } from './logging/index.js';
import type { ManagerMetrics } from './metrics/index.js';

/** The manager's `sharding` option with its defaults filled in; internal. */
export interface ShardingSettings {
  readonly namespace: string;
  readonly name: string;
  readonly ranges: number;
  readonly field: ShardField;
  readonly controllers: readonly string[] | undefined;
  readonly leaseDuration: number | undefined;
  readonly renewDeadline: number | undefined;
  readonly retryPeriod: number | undefined;
  /** `'server'`: the primary lists and watches only the ranges held (`shardSelector`); `'client'`: everything. */
  readonly select: 'server' | 'client';
}

interface ShardedController {
  readonly name: string;
  readonly gate: RangeGate;
  readonly keys: KeyRanges;
  primary: PrimaryCache | undefined;
  /** With server-side selection: the ranges its primary has listed; a range opens only once listed. */
  listed: ReadonlySet<number> | undefined;
}

/**
 * The sharding of one manager run.
 *
 * # Guarantees
 * - Each sharded controller gets a {@link RangeGate} over the ranges the engine says are open, updated in the same
 *   emission (so a range lost closes its keys at once); a handover releases a range only once no run of any sharded
 *   controller is in flight in it.
 * - The engine's graceful stop starts with the manager's (its `stop$`): every range is handed over as its runs
 *   drain; `done` is called once every Lease was released.
 */
export class ManagerShards {
  private readonly controllers = new Map<string, ShardedController>();
  private readonly bounds: ReturnType<typeof splitHashSpace>;
  private state: ShardState | undefined;
  /** The ranges a server-side selected primary watches: those held, draining ones included. */
  private readonly selected = new BehaviorSubject<readonly number[]>([]);

  constructor(
    private readonly connection: Connection,
    private readonly onWarning: WarningHandler,
    private readonly scheduler: SchedulerLike,
    private readonly settings: ShardingSettings,
    private readonly identity: string,
    private readonly log: ManagerLogger,
    private readonly metrics: ManagerMetrics | undefined,
  ) {
    this.bounds = splitHashSpace(settings.ranges, settings.field);
  }

  /** The context part of controller `name`, or `undefined` when it is not sharded. */
  forController(name: string): ControllerShards | undefined {
    const { controllers, field, ranges } = this.settings;
    if (controllers !== undefined && !controllers.includes(name)) return undefined;
    const keys = new KeyRanges(field, this.bounds);
    const gate = new RangeGate((key) => keys.rangeOf(key), ranges);
    const sharded: ShardedController = { name, gate, keys, primary: undefined, listed: undefined };
    this.controllers.set(name, sharded);
    const metrics = this.metrics;
    metrics?.shardObjects.sources.add(() => this.countObjects(sharded, metrics));
    return {
      field,
      keyGate: gate,
      ...(this.settings.select === 'server'
        ? {
            informer: <T extends KubernetesObject>(resource: ResourceRef, options: InformerWatchOptions<T> = {}) => {
              sharded.listed = new Set();
              return rangeSelectedInformer<T>(
                this.connection,
                resource,
                { scheduler: this.scheduler, onWarning: this.onWarning, ...options },
                this.bounds,
                this.selected,
                (ranges) => {
                  sharded.listed = new Set(ranges);
                  this.openGate(sharded);
                },
              );
            },
          }
        : {}),
      primary: (informer) =>
        new Observable<never>((subscriber) => {
          keys.attach(informer);
          sharded.primary = informer;
          return informer.events$
            .pipe(
              tap((event) => {
                keys.observe(event);
                // A key triggered before its object was cached (by an owned object) waits, held: its range is known now.
                if (event.type === 'added' && typeof event.key === 'string') gate.keyChanged(event.key);
              }),
              ignoreElements(),
            )
            .subscribe(subscriber);
        }),
    };
  }

  /** The metrics hook that counts the runs in flight of controller `name` per range, if it is sharded. */
  metricsOf(name: string): ReconcileMetrics | undefined {
    return this.controllers.get(name)?.gate.metrics;
  }

  /** Runs the engine until `stop$` has handed every range over (then `done`), or until unsubscribed. */
  start(
    connection: Connection,
    options: {
      readonly scheduler: SchedulerLike;
      readonly random: () => number;
      readonly stop$: Observable<unknown>;
      readonly onWarning: WarningHandler;
      readonly onState: (state: ShardState) => void;
      readonly done: () => void;
    },
  ): Subscription {
    const { namespace, name, ranges, leaseDuration, renewDeadline, retryPeriod } = this.settings;
    this.publish({ open: [], draining: [], campaigning: [], members: [this.identity], share: 0, ranges });
    return shardLeases(connection, {
      namespace,
      name,
      identity: this.identity,
      ranges,
      ...(leaseDuration === undefined ? {} : { leaseDuration }),
      ...(renewDeadline === undefined ? {} : { renewDeadline }),
      ...(retryPeriod === undefined ? {} : { retryPeriod }),
      scheduler: options.scheduler,
      random: options.random,
      stop$: options.stop$,
      onWarning: options.onWarning,
      drained: (range) => {
        const waits = [...this.controllers.values()].map(({ gate }) => gate.drained(range));
        return waits.length === 0 ? of(undefined) : forkJoin(waits);
      },
      onEvent: (event) => this.onEvent(event),
    }).subscribe({
      next: (state) => {
        this.publish(state);
        options.onState(state);
      },
      complete: () => {
        this.publish({ ...(this.state ?? { members: [], share: 0, ranges }), open: [], draining: [], campaigning: [] });
        options.done();
      },
    });
  }

  /** The latest state of the engine. */
  current(): ShardState | undefined {
    return this.state;
  }

  /** A `/readyz` line that always passes and says which ranges this replica runs. */
  readyCheck(): CheckResult {
    const state = this.state;
    const open = state === undefined || state.open.length === 0 ? 'none' : state.open.join(',');
    return [`shards ${this.settings.name} ranges ${open} of ${this.settings.ranges}`, undefined];
  }

  private publish(state: ShardState): void {
    const previous = this.state;
    this.state = state;
    const selected = [...state.open, ...state.draining].sort((a, b) => a - b);
    if (selected.join(',') !== this.selected.value.join(',')) this.selected.next(selected);
    for (const sharded of this.controllers.values()) this.openGate(sharded);
    const metrics = this.metrics;
    const { name, ranges } = this.settings;
    if (metrics !== undefined) {
      metrics.shardRanges.set({ name, state: 'open' }, state.open.length);
      metrics.shardRanges.set({ name, state: 'draining' }, state.draining.length);
      metrics.shardRanges.set({ name, state: 'campaigning' }, state.campaigning.length);
      metrics.shardMembers.set({ name }, state.members.length);
      const open = new Set(state.open);
      for (let range = 0; range < ranges; range++)
        metrics.shardRangeOpen.set({ name, range: String(range) }, open.has(range) ? 1 : 0);
    }
    if (previous === undefined || previous.open.join(',') !== state.open.join(','))
      this.log.info({ shards: name, open: state.open, share: state.share, members: state.members }, 'shard ranges');
  }

  /** A controller runs the ranges held, and with server-side selection only those its primary has listed. */
  private openGate(sharded: ShardedController): void {
    const open = this.state?.open ?? [];
    const listed = sharded.listed;
    sharded.gate.setOpen(listed === undefined ? open : open.filter((range) => listed.has(range)));
  }

  private onEvent(event: ShardEvent): void {
    const { name } = this.settings;
    switch (event.type) {
      case 'handover':
        this.metrics?.shardHandovers.inc({ name, reason: event.reason });
        this.log.info({ shards: name, range: event.range, reason: event.reason }, 'shard range handover');
        return;
      case 'released':
        this.log.info({ shards: name, range: event.range }, 'shard range released');
        return;
      case 'members':
        this.log.info({ shards: name, members: event.members }, 'shard members');
        return;
      case 'failed':
        this.log.warn({ shards: name, error: event.error }, 'shard lease list failed');
        return;
      case 'lease': {
        const lease = event.event;
        if (lease.type === 'lost') {
          this.metrics?.shardLost.inc({ name, reason: lease.reason });
          this.log.error({ shards: name, range: event.range, reason: lease.reason }, 'shard range lost');
        } else if (lease.type === 'acquired')
          this.log.info({ shards: name, range: event.range }, 'shard range acquired');
        else if (lease.type === 'failed')
          this.log.debug(
            { shards: name, range: event.range, phase: lease.phase, error: lease.error },
            'shard lease request failed',
          );
        return;
      }
    }
  }

  /** `shard_objects_cached` of one controller at scrape time: its primary's objects by range. */
  private countObjects(sharded: ShardedController, metrics: ManagerMetrics): void {
    const { name, ranges } = this.settings;
    const counts = new Array<number>(ranges).fill(0);
    const store = sharded.primary?.current() as { keys?(): Iterable<string> } | undefined;
    if (store?.keys !== undefined) {
      for (const key of store.keys()) {
        const range = sharded.keys.rangeOf(key);
        if (range !== undefined) counts[range]! += 1;
      }
    }
    for (let range = 0; range < ranges; range++)
      metrics.shardObjects.set({ name, controller: sharded.name, range: String(range) }, counts[range]!);
  }
}
