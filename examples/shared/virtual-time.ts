/**
 * What the examples' marble specs share (and rxkube's own specs with them): a run inside `TestScheduler.run`, one
 * timeline of what a controller printed and sent, and a manager in virtual time whose emissions and logs become lines
 * stamped with their virtual time.
 * @module
 */
import { expect } from 'chai';
import type { Observable, SchedulerLike, Subscription } from 'rxjs';
import { TestScheduler, type RunHelpers } from 'rxjs/testing';
import type { ManagerEvent, ManagerLogger, ManagerOptions, ReconcileEvent } from '../../src/index.js';

/** The fields of one log record, as a `ManagerLogger` receives them. */
type LogFields = Parameters<ManagerLogger['info']>[0];
import type { RequestLog, RequestRecord } from '../../src/testing/index.js';

/** Runs `body` inside `TestScheduler.run` (1 frame = 1 ms) and returns what it returns, after the flush. */
export function inVirtualTime<R>(body: (helpers: RunHelpers & { scheduler: TestScheduler }) => R): R {
  const scheduler = new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
  return scheduler.run((helpers) => body({ ...helpers, scheduler }));
}

/** One line per reconcile event: what a marble diagram of the output would say, without the noise. */
export function describeReconcile(event: ReconcileEvent): string {
  switch (event.type) {
    case 'started':
      return `started ${event.key}#${event.attempt}`;
    case 'succeeded':
      return `succeeded ${event.key}`;
    case 'requeued':
      return `requeued ${event.key} +${event.delayMs}`;
    case 'failed':
      return `failed ${event.key}${event.terminal ? ' terminal' : ''}`;
    case 'retrying':
      return `retrying ${event.key} +${event.delayMs}`;
    case 'dropped':
      return `dropped ${event.key}`;
    case 'released':
      return `released ${event.key}`;
    case 'rejected':
      return 'rejected';
  }
}

/** `"<time> <event>"` for the manager events a spec reads (informer events are left out). */
export function describeManagerEvent(event: ManagerEvent): string | undefined {
  switch (event.type) {
    case 'controller':
      return `${event.time} ${event.controller}: ${describeReconcile(event.event)}`;
    case 'leading':
      return `${event.time} leading ${event.leading}`;
    case 'ready':
      return `${event.time} ready ${event.ready}`;
    case 'drained':
      return `${event.time} drained${event.clean ? ' clean' : ''} cancelled=${event.cancelled}`;
    case 'stopping':
      return `${event.time} stopping (${event.reason})`;
    case 'informer':
      return undefined;
    default:
      return `${event.time} ${event.type}`;
  }
}

/** A logger that records `"<time> <level> <msg>"` lines and the raw records. */
export function recordingLogger(
  scheduler: TestScheduler,
): ManagerLogger & { lines: string[]; records: Array<LogFields & { msg: string }> } {
  const lines: string[] = [];
  const records: Array<LogFields & { msg: string }> = [];
  const log =
    (level: string) =>
    (fields: LogFields, msg: string): void => {
      lines.push(`${scheduler.now()} ${level} ${msg}`);
      records.push({ ...fields, msg });
    };
  return { lines, records, debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

/** Subscribes `manager$`, pushing `describeManagerEvent` lines to `timeline`, then `<time> complete` or `<time> error <message>`. */
export function subscribeTimeline(
  manager$: Observable<ManagerEvent>,
  scheduler: TestScheduler,
  timeline: string[],
): Subscription {
  return manager$.subscribe({
    next: (event) => {
      const line = describeManagerEvent(event);
      if (line !== undefined) timeline.push(line);
    },
    error: (error: unknown) => timeline.push(`${scheduler.now()} error ${(error as Error).message}`),
    complete: () => timeline.push(`${scheduler.now()} complete`),
  });
}

/**
 * The options of a manager in virtual time: Lease `lock` in `default` as candidate `me` (standby when lost), no
 * metrics or health server (they bind ports), no process signals, `logger`, and exits recorded as `<time> exit <code>`.
 */
export function virtualManagerOptions(
  scheduler: TestScheduler,
  logger: ManagerLogger,
  exits: string[],
): Omit<ManagerOptions, 'connection' | 'controllers'> {
  return {
    name: 'lock',
    leaderElection: { namespace: 'default', identity: 'me', random: () => 0.5, onLost: 'standby' },
    metrics: false,
    health: false,
    signals: false,
    logger,
    scheduler,
    exit: (code) => void exits.push(`${scheduler.now()} exit ${code}`),
  };
}

/** What a controller printed and the requests it sent, as `<virtual time> <text>` lines in order. */
export interface RequestTimeline {
  /** The lines so far. */
  readonly lines: string[];
  /** Adds `text` at the current virtual time (what a controller's `print` is given). */
  print(text: string): void;
  /** Stops following the request log. */
  stop(): void;
}

/**
 * A timeline of printed lines and of the requests in `log` that `keep` keeps, each as `<METHOD> <path>`.
 *
 * # Guarantees
 * - A request takes its place by the time it arrived, after every line of that time printed before it was answered:
 *   with no latency, exactly where it was sent; with latency, after what was printed in its frame.
 */
export function requestTimeline(
  scheduler: SchedulerLike,
  log: RequestLog,
  keep: (record: RequestRecord) => boolean,
): RequestTimeline {
  const lines: string[] = [];
  const times: number[] = [];
  const insert = (time: number, text: string): void => {
    let at = times.length;
    while (at > 0 && times[at - 1]! > time) at -= 1;
    times.splice(at, 0, time);
    lines.splice(at, 0, `${time} ${text}`);
  };
  const subscription = log.records$.subscribe((record) => {
    if (keep(record)) insert(Date.parse(record.time), `${record.method} ${record.path}`);
  });
  return { lines, print: (text) => insert(scheduler.now(), text), stop: () => subscription.unsubscribe() };
}
