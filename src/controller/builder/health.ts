/**
 * What a controller built by `controller()` tells its user about its informers: their health, their problems,
 * and a cache that did not sync in time. Internal to the builder.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { combineLatest, EMPTY, filter, map, merge, Observable, take, takeUntil, timer, type SchedulerLike } from 'rxjs';
import { claimHealth, type Informer, type InformerProblem } from '../../informer/index.js';
import { describeFailure, HealthReporter, type WatchStatus } from '../../watch/index.js';

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

/**
 * An informer in trouble: its status went to `error` (it retries) or `failed` (it stopped for good). Reported once
 * per distinct cause until it recovers; routine failures (a 410 Expired, an unsupported streaming list) are not.
 */
export class InformerHealthError extends Error {
  /** Always `'InformerHealthError'`. */
  override readonly name = 'InformerHealthError';
  constructor(
    /** Which informer, labelled as in {@link InformerHealth.informer}. */
    readonly informer: string,
    /** Its `error` or `failed` status, with the cause. */
    readonly status: Extract<WatchStatus, { state: 'error' | 'failed' }>,
  ) {
    const next = status.state === 'failed' ? 'stopped, not retried' : 'retrying with backoff';
    super(`informer ${informer}: ${describeFailure(status.cause)}; ${next}`);
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
    super(
      `caches not synced after ${timeoutMs} ms: ${unsynced.map(({ informer, status }) => `${informer} (${describeStatus(status)})`).join(', ')}`,
    );
  }
}

/** A labelled informer. */
export interface NamedInformer {
  readonly name: string;
  readonly informer: Informer<KubernetesObject>;
}

/** Every informer's status, labelled; each informer's replays its latest status on subscribe. */
export function healthOf(informers: readonly NamedInformer[]): Observable<InformerHealth> {
  return merge(
    ...informers.map(({ name, informer }) => informer.status$.pipe(map((status) => ({ informer: name, status })))),
  );
}

/** Every informer's problems, labelled. */
export function problemsOf(informers: readonly NamedInformer[]): Observable<LabelledProblem> {
  return merge(
    ...informers.map(({ name, informer }) =>
      informer.problems$.pipe(map((problem) => ({ ...problem, informer: name }))),
    ),
  );
}

/**
 * Reports informer trouble to `report` as {@link InformerHealthError}s, with the rules of the reflector's own health
 * reports (`HealthReporter`): each distinct cause once while an informer is unhealthy, again after it was `watching`,
 * and the failure that stops it. Emits nothing itself.
 *
 * # Guarantees
 * - While subscribed it holds a claim on each informer's own health reporting (`claimHealth`), so what it reports
 *   is not also printed by the informer: the user hears each cause once.
 */
export function reportHealth(informers: readonly NamedInformer[], report: (error: Error) => void): Observable<never> {
  return new Observable<never>((subscriber) => {
    const releases = informers.map(({ informer }) => claimHealth(informer));
    const reporters = new Map(
      informers.map(({ name }) => [
        name,
        new HealthReporter(name, (news) => {
          if (news.type === 'failing') report(new InformerHealthError(name, { state: 'error', cause: news.cause }));
          else if (news.type === 'stopped')
            report(new InformerHealthError(name, { state: 'failed', cause: news.cause }));
        }),
      ]),
    );
    const subscription = healthOf(informers).subscribe({
      next: ({ informer, status }) => reporters.get(informer)?.observe(status),
      error: (error: unknown) => subscriber.error(error),
    });
    return () => {
      subscription.unsubscribe();
      for (const release of releases) release();
    };
  });
}

/**
 * After `timeoutMs` on `scheduler`, if some informer has not synced: errors with a {@link SyncTimeoutError} when
 * `failFast`, else reports it and completes. Completes quietly as soon as every informer has synced.
 */
export function watchSyncTimeout(
  informers: readonly NamedInformer[],
  timeoutMs: number | undefined,
  scheduler: SchedulerLike,
  failFast: boolean,
  report: (error: Error) => void,
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
    subscription.add(
      timer(timeoutMs, scheduler)
        .pipe(takeUntil(allSynced$))
        .subscribe({
          next: () => {
            const unsynced = informers
              .filter((_, i) => !synced[i])
              .map(({ name }) => ({ informer: name, status: latest.get(name) }));
            const error = new SyncTimeoutError(timeoutMs, unsynced);
            if (failFast) subscriber.error(error);
            else {
              report(error);
              subscriber.complete();
            }
          },
          complete: () => subscriber.complete(),
        }),
    );
    return subscription;
  });
}

function describeStatus(status: WatchStatus | undefined): string {
  if (status === undefined) return 'no status yet';
  if (status.state === 'error' || status.state === 'backingOff' || status.state === 'failed') {
    return `${status.state}: ${status.cause.reason}: ${status.cause.message}`;
  }
  return status.state;
}
