/**
 * The state machine behind `shardLeases`: one elector per range, one member Lease, a periodic list of the Leases,
 * and the rebalance that follows each list. Driven only by scheduler actions and request answers.
 */
import {
  catchError,
  EMPTY,
  Subject,
  take,
  timeout,
  type Observable,
  type SchedulerLike,
  Subscription,
  type Subscriber,
} from 'rxjs';
import { resourceClient, type ResourceClient } from '../client/index.js';
import { reportError } from '../controller/predicates/index.js';
import { leaderElection, observedElection, type LeaseObject } from '../leader/index.js';
import type { ShardRange } from '../sharding/index.js';
import type { Connection, WarningHandler } from '../transport/index.js';
import { LeaseDirectory } from './directory.js';
import { fairShare, surplus } from './fair-share.js';
import { memberLeaseName, rangeLeaseName } from './names.js';
import type { ShardEvent, ShardState } from './types.js';

/** The options with every default filled in; internal. */
export interface ResolvedShardOptions {
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly ranges: number;
  readonly bounds: readonly ShardRange[];
  readonly leaseDuration: number;
  readonly renewDeadline: number;
  readonly retryPeriod: number;
  readonly scheduler: SchedulerLike;
  readonly random: () => number;
  readonly drained: ((range: number) => Observable<unknown>) | undefined;
  readonly stop$: Observable<unknown> | undefined;
  readonly onEvent: ((event: ShardEvent) => void) | undefined;
  readonly onWarning: WarningHandler | undefined;
}

type Phase = 'idle' | 'campaigning' | 'open' | 'draining';

/** One range on this replica. */
interface Slot {
  readonly range: number;
  readonly lease: string;
  readonly election$: Observable<boolean>;
  /** Ends the current term of the range's elector: it releases the Lease, then completes. */
  readonly release$: Subject<void>;
  phase: Phase;
  term: Subscription | undefined;
  drain: Subscription | undefined;
  released: boolean;
}

export class ShardEngine {
  private readonly slots: Slot[];
  private readonly directory: LeaseDirectory;
  private readonly member$: Observable<boolean>;
  private readonly memberRelease$ = new Subject<void>();
  private readonly leases: ResourceClient<LeaseObject>;
  private out: Subscriber<ShardState> | undefined;
  private member: Subscription | undefined;
  private timer: Subscription | undefined;
  private listing: Subscription | undefined;
  private stopping: Subscription | undefined;
  private members: readonly string[] = [];
  private share = 0;
  private ended = false;
  private draining = false;

  constructor(
    connection: Connection,
    private readonly options: ResolvedShardOptions,
  ) {
    const { namespace, name, identity, ranges, scheduler } = options;
    this.directory = new LeaseDirectory(name, ranges, scheduler);
    const timing = {
      namespace,
      identity,
      leaseDuration: options.leaseDuration,
      renewDeadline: options.renewDeadline,
      retryPeriod: options.retryPeriod,
      scheduler,
      random: options.random,
      onLost: 'stop' as const,
      ...(options.onWarning === undefined ? {} : { onWarning: options.onWarning }),
    };
    this.slots = Array.from({ length: ranges }, (_, range) => {
      const lease = rangeLeaseName(name, range);
      const release$ = new Subject<void>();
      const election$ = observedElection(
        connection,
        {
          ...timing,
          name: lease,
          stop$: release$,
          onEvent: (event) => this.report({ type: 'lease', range, event }),
        },
        () => this.directory.observation(lease).copy(),
      );
      return { range, lease, election$, release$, phase: 'idle', term: undefined, drain: undefined, released: false };
    });
    this.member$ = leaderElection(connection, {
      ...timing,
      name: memberLeaseName(name, identity),
      stop$: this.memberRelease$,
      // A member Lease nobody else wants: its failures show in the ranges' events, and it campaigns again.
      onEvent: () => {},
    });
    this.leases = resourceClient<LeaseObject>(
      connection,
      { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' },
      { namespace, scheduler, random: options.random, ...(options.onWarning ? { onWarning: options.onWarning } : {}) },
    );
  }

  start(out: Subscriber<ShardState>): void {
    this.out = out;
    this.publish();
    this.stopping = this.options.stop$?.pipe(take(1)).subscribe({
      next: () => this.stop(),
      error: (error: unknown) => out.error(error),
    });
    if (this.ended) return;
    this.joinMembers();
    this.list();
  }

  /** Unsubscribed: every elector is torn down (each releases its Lease, best effort), nothing waits for runs. */
  teardown(): void {
    this.ended = true;
    for (const subscription of [this.timer, this.listing, this.stopping]) subscription?.unsubscribe();
    for (const slot of this.slots) {
      slot.drain?.unsubscribe();
      slot.term?.unsubscribe();
    }
    this.member?.unsubscribe();
  }

  private joinMembers(): void {
    if (this.ended || this.draining) return;
    this.member = this.member$.subscribe({ complete: () => (this.member = undefined) });
  }

  /** Lists the Leases (bounded by `renewDeadline`), then rebalances, then waits `retryPeriod`. */
  private list(): void {
    const { renewDeadline, scheduler, retryPeriod } = this.options;
    this.listing = this.leases
      .list()
      .pipe(
        timeout({ first: renewDeadline, scheduler }),
        catchError((error: unknown) => {
          this.report({
            type: 'failed',
            at: scheduler.now(),
            error: error instanceof Error ? error : new Error(String(error)),
          });
          return EMPTY;
        }),
      )
      .subscribe({
        next: (list) => {
          this.directory.update(list);
          this.rebalance();
        },
        complete: () => {
          this.listing = undefined;
          if (this.ended || this.draining) return;
          if (this.member === undefined) this.joinMembers();
          this.timer = scheduler.schedule(() => this.list(), retryPeriod);
        },
      });
  }

  /** Takes or gives up ranges until this replica campaigns for, or holds, its fair share. */
  private rebalance(): void {
    if (this.ended || this.draining) return;
    const { identity, ranges, scheduler } = this.options;
    const members = [...new Set([...this.directory.liveMembers(), identity])].sort();
    if (members.join('\n') !== this.members.join('\n')) {
      this.members = members;
      this.report({ type: 'members', at: scheduler.now(), members });
    }
    this.share = fairShare(ranges, members, identity);
    const open = this.slots.filter((slot) => slot.phase === 'open');
    for (const range of surplus(
      open.map((slot) => slot.range),
      this.share,
    ))
      this.handOver(this.slots[range]!, 'rebalance');
    const held = Math.min(open.length, this.share);
    // A campaign for a range another live replica holds and renews would only wait: drop it.
    for (const slot of this.slots) {
      if (slot.phase !== 'campaigning') continue;
      const holder = this.directory.holder(slot.lease);
      if (this.directory.range(slot.lease) === 'held' && holder !== identity) this.endCampaign(slot);
    }
    const campaigning = this.slots.filter((slot) => slot.phase === 'campaigning');
    const wanted = Math.max(0, this.share - held);
    for (const slot of campaigning.slice(wanted).reverse()) this.endCampaign(slot);
    let missing = wanted - campaigning.length;
    if (missing <= 0) {
      this.publish();
      return;
    }
    // Replicas start their search at different ranges, so that joiners do not all race for the same ones.
    const first = Math.floor((members.indexOf(identity) * ranges) / members.length);
    for (let i = 0; i < ranges && missing > 0; i++) {
      const slot = this.slots[(first + i) % ranges]!;
      if (slot.phase !== 'idle' || this.directory.range(slot.lease) === 'held') continue;
      this.campaign(slot);
      missing -= 1;
    }
    this.publish();
  }

  private campaign(slot: Slot): void {
    slot.phase = 'campaigning';
    slot.released = false;
    const term = new Subscription();
    slot.term = term;
    term.add(
      slot.election$.subscribe({
        next: (leading) => {
          if (slot.term === term) this.onLeading(slot, leading);
        },
        complete: () => {
          if (slot.term === term) this.onTermEnded(slot);
        },
      }),
    );
  }

  private onLeading(slot: Slot, leading: boolean): void {
    if (leading && slot.phase === 'campaigning') {
      slot.phase = 'open';
      this.publish();
      if (this.draining) this.handOver(slot, 'stop');
    } else if (!leading && slot.phase === 'open') {
      // Lost (renew deadline, or taken over): closed at once, before anything else happens.
      slot.phase = 'idle';
      this.publish();
    }
  }

  private onTermEnded(slot: Slot): void {
    const wasDraining = slot.phase === 'draining';
    slot.term = undefined;
    slot.drain?.unsubscribe();
    slot.drain = undefined;
    slot.phase = 'idle';
    if (wasDraining && slot.released)
      this.report({ type: 'released', at: this.options.scheduler.now(), range: slot.range });
    this.publish();
    this.maybeStopped();
  }

  private endCampaign(slot: Slot): void {
    const term = slot.term;
    slot.term = undefined;
    slot.phase = 'idle';
    term?.unsubscribe();
  }

  /** Closes the range (it leaves `open`), waits until its runs drained, then releases its Lease. */
  private handOver(slot: Slot, reason: 'rebalance' | 'stop'): void {
    if (slot.phase !== 'open') return;
    const { scheduler, drained } = this.options;
    slot.phase = 'draining';
    this.report({ type: 'handover', at: scheduler.now(), range: slot.range, reason });
    this.publish();
    const release = (): void => {
      if (slot.phase !== 'draining' || slot.released) return;
      slot.released = true;
      slot.release$.next();
    };
    if (drained === undefined) {
      release();
      return;
    }
    const drain = drained(slot.range)
      .pipe(
        take(1),
        catchError(() => EMPTY),
      )
      .subscribe({ next: release, complete: release });
    if (slot.phase === 'draining' && !slot.released) slot.drain = drain;
    else drain.unsubscribe();
  }

  /** `stop$`: no more campaigns; every range is handed over; then the member Lease goes, then completion. */
  private stop(): void {
    if (this.ended || this.draining) return;
    this.draining = true;
    this.timer?.unsubscribe();
    this.listing?.unsubscribe();
    for (const slot of this.slots) {
      if (slot.phase === 'campaigning') this.endCampaign(slot);
      else if (slot.phase === 'open') this.handOver(slot, 'stop');
    }
    this.publish();
    this.maybeStopped();
  }

  private maybeStopped(): void {
    if (!this.draining || this.ended || this.slots.some((slot) => slot.phase !== 'idle')) return;
    this.ended = true;
    const out = this.out!;
    if (this.member === undefined) {
      out.complete();
      return;
    }
    this.member.add(() => out.complete());
    this.memberRelease$.next();
  }

  private publish(): void {
    const out = this.out;
    if (out === undefined || out.closed) return;
    const of = (phase: Phase): number[] => this.slots.filter((slot) => slot.phase === phase).map((slot) => slot.range);
    out.next({
      open: of('open'),
      draining: of('draining'),
      campaigning: of('campaigning'),
      members: this.members.length === 0 ? [this.options.identity] : this.members,
      share: this.share,
      ranges: this.options.ranges,
    });
  }

  private report(event: ShardEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch (error) {
      // A throwing listener must not break the engine: reported, as leader election reports its own.
      reportError(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
