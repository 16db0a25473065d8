/**
 * Runs listWatch over a {@link FakeTransport} inside `TestScheduler.run` and records what it emitted, and when.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { expect } from 'chai';
import type { RunHelpers } from 'rxjs/testing';
import { TestScheduler } from 'rxjs/testing';
import { listWatch } from '../../src/watch/index.js';
import type { ListWatchOptions, ResourceRef, WatchEvent, WatchProblem, WatchStatus } from '../../src/watch/index.js';
import type { ResolvedResource } from '../../src/resources/index.js';
import { FakeTransport, kc, PODS } from './fake-transport.js';

export interface Timed {
  readonly t: number;
  readonly e: WatchEvent;
}

export interface Outcome {
  readonly fake: FakeTransport;
  readonly events: Timed[];
  readonly error: unknown;
  /** Deltas only (no status, no problem). */
  deltas(): Timed[];
  /** Status events only, as `[time, status]`. */
  statuses(): Array<[number, WatchStatus]>;
  /** Problem events only, as `[time, problem]`. */
  problems(): Array<[number, WatchProblem]>;
}

/**
 * Scripts the fake with `setup`, subscribes at frame 0 and unsubscribes at `untilMs`, all in virtual time.
 * Unscripted requests hang, so `untilMs` bounds every scenario.
 */
export function scenario(
  setup: (fake: FakeTransport, helpers: RunHelpers) => void,
  options: ListWatchOptions = {},
  untilMs = 60_000,
  resource: ResourceRef | ResolvedResource = PODS,
): Outcome {
  const scheduler = new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
  const fake = new FakeTransport();
  const events: Timed[] = [];
  let error: unknown;
  scheduler.run((helpers) => {
    setup(fake, helpers);
    const sub = listWatch<KubernetesObject>(kc, resource, { transport: fake, random: () => 0.5, ...options }).subscribe(
      {
        next: (e) => events.push({ t: scheduler.now(), e }),
        error: (err: unknown) => (error = err),
      },
    );
    scheduler.schedule(() => sub.unsubscribe(), untilMs);
  });
  expect(fake.unexpected, 'requests out of script order').to.deep.equal([]);
  return {
    fake,
    events,
    error,
    deltas: () => events.filter((x) => x.e.type !== 'status' && x.e.type !== 'problem'),
    statuses: () => events.flatMap((x) => (x.e.type === 'status' ? [[x.t, x.e.status] as [number, WatchStatus]] : [])),
    problems: () =>
      events.flatMap((x) => (x.e.type === 'problem' ? [[x.t, x.e.problem] as [number, WatchProblem]] : [])),
  };
}

/** The delays of every `backingOff` status, in order. */
export function backoffDelays(outcome: Outcome): number[] {
  return outcome.statuses().flatMap(([, s]) => (s.state === 'backingOff' ? [s.delayMs] : []));
}

/** Every status `error` cause reason, in order. */
export function errorReasons(outcome: Outcome): string[] {
  return outcome.statuses().flatMap(([, s]) => (s.state === 'error' ? [s.cause.reason] : []));
}

/** Names (or rvs for bookmarks/relistDone) of the deltas, compact for assertions: `listed:a`, `relistDone:10`. */
export function summary(outcome: Outcome): string[] {
  return outcome.deltas().map(({ e }) => {
    switch (e.type) {
      case 'relistStarted':
        return 'relistStarted';
      case 'relistDone':
      case 'bookmark':
        return `${e.type}:${e.resourceVersion}`;
      case 'status':
      case 'problem':
        return e.type;
      default:
        return `${e.type}:${e.object.metadata?.name ?? '?'}`;
    }
  });
}
