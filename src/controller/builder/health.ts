/**
 * What a controller built by `controller()` tells its user about its informers: their health, their problems,
 * and a cache that did not sync in time. Internal to the builder.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { combineLatest, EMPTY, filter, map, merge, Observable, take, takeUntil, timer, type SchedulerLike } from 'rxjs';
import type { Informer, InformerProblem } from '../../informer/index.js';
import type { WatchStatus } from '../../watch/index.js';

/** One informer's connection status, labelled with the informer it belongs to. */
export interface InformerHealth {
  /** Which informer: `Pod v1` (primary, owned or watched), with the namespace and selectors when set. */
  readonly informer: string;
  /** Its latest connection status. */
  readonly status: WatchStatus;
}

/** One informer's object-level problem, labelled with the informer it belongs to. */
export interface LabelledProblem extends InformerProblem {
  /** Which informer reported it, labelled as in {@link InformerHealth.informer}. */
  readonly informer: string;
}

/** An informer in trouble: its status went to `error`. Reported once per distinct reason until it recovers. */
export class InformerHealthError extends Error {
  /** Always `'InformerHealthError'`. */
  override readonly name = 'InformerHealthError';
  constructor(
    /** Which informer, labelled as in {@link InformerHealth.informer}. */
    readonly informer: string,
    /** Its `error` status, with the cause. */
    readonly status: Extract<WatchStatus, { state: 'error' }>,
  ) {
    const { cause } = status;
    super(`informer ${informer}: ${cause.code === undefined ? '' : `${cause.code} `}${cause.reason}: ${cause.message}; retrying with backoff`);
  }
}

/** An informer that had not synced when the sync timeout fired, with its last status (if it had one). */
export interface UnsyncedInformer {
  /** Which informer, labelled as in {@link InformerHealth.informer}. */
  readonly informer: string;
  /** Its last status; `undefined` when it reported none. */
  readonly status: WatchStatus | undefined;
}

/** The caches of a controller did not all sync within `syncTimeout`. */
export class SyncTimeoutError extends Error {
  /** Always `'SyncTimeoutError'`. */
  override readonly name = 'SyncTimeoutError';
  constructor(
    /** The `syncTimeout` option, ms. */
    readonly timeoutMs: number,
    /** The informers that had not synced. */
    readonly unsynced: readonly UnsyncedInformer[],
  ) {
    super(`caches not synced after ${timeoutMs} ms: ${unsynced.map(({ informer, status }) => `${informer} (${describeStatus(status)})`).join(', ')}`);
  }
}

/** A labelled informer. */
export interface NamedInformer {
  readonly name: string;
  readonly informer: Informer<KubernetesObject>;
}

/** Every informer's status, labelled; each informer's replays its latest status on subscribe. */
export function healthOf(informers: readonly NamedInformer[]): Observable<InformerHealth> {
  return merge(...informers.map(({ name, informer }) => informer.status$.pipe(map((status) => ({ informer: name, status })))));
}

/** Every informer's problems, labelled. */
export function problemsOf(informers: readonly NamedInformer[]): Observable<LabelledProblem> {
  return merge(...informers.map(({ name, informer }) => informer.problems$.pipe(map((problem) => ({ ...problem, informer: name })))));
}

/**
 * Reports informer errors to `report`: the first `error` status of each distinct reason while an informer is
 * unhealthy, and nothing more until it is `watching` again. Emits nothing itself.
 */
export function reportHealth(informers: readonly NamedInformer[], report: (error: Error) => void): Observable<never> {
  return new Observable<never>((subscriber) => {
    const reported = new Map<string, Set<string>>();
    return healthOf(informers).subscribe({
      next: ({ informer, status }) => {
        if (status.state === 'watching') reported.delete(informer);
        if (status.state !== 'error') return;
        const reasons = reported.get(informer) ?? new Set<string>();
        reported.set(informer, reasons);
        if (reasons.has(status.cause.reason)) return;
        reasons.add(status.cause.reason);
        report(new InformerHealthError(informer, status));
      },
      error: (error: unknown) => subscriber.error(error),
    });
  });
}

/**
 * After `timeoutMs` on `scheduler`, if some informer has not synced: errors with a {@link SyncTimeoutError} when
 * `failFast`, else reports it and completes. Completes quietly as soon as every informer has synced.
 */
export function watchSyncTimeout(
  informers: readonly NamedInformer[], timeoutMs: number | undefined, scheduler: SchedulerLike,
  failFast: boolean, report: (error: Error) => void,
): Observable<never> {
  if (timeoutMs === undefined) return EMPTY;
  return new Observable<never>((subscriber) => {
    const latest = new Map<string, WatchStatus>();
    const synced = informers.map(() => false);
    const subscription = healthOf(informers).subscribe(({ informer, status }) => latest.set(informer, status));
    const allSynced$ = combineLatest(informers.map(({ informer }) => informer.synced$)).pipe(
      map((states) => {
        states.forEach((state, i) => (synced[i] = state));
        return states.every(Boolean);
      }),
      filter(Boolean),
      take(1),
    );
    subscription.add(timer(timeoutMs, scheduler).pipe(takeUntil(allSynced$)).subscribe({
      next: () => {
        const unsynced = informers.filter((_, i) => !synced[i]).map(({ name }) => ({ informer: name, status: latest.get(name) }));
        const error = new SyncTimeoutError(timeoutMs, unsynced);
        if (failFast) subscriber.error(error);
        else {
          report(error);
          subscriber.complete();
        }
      },
      complete: () => subscriber.complete(),
    }));
    return subscription;
  });
}

function describeStatus(status: WatchStatus | undefined): string {
  if (status === undefined) return 'no status yet';
  if (status.state === 'error' || status.state === 'backingOff') return `${status.state}: ${status.cause.reason}: ${status.cause.message}`;
  return status.state;
}
