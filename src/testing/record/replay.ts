/**
 * `replay`: feeds a recording's WatchEvents to a controller in virtual time and finds the first decision that differs.
 * @module
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { concatMap, from, merge, NEVER, Observable, throwError, timer, type SchedulerLike } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { hostController } from '../../controller/context/index.js';
import { messageOf } from '../../error-messages/index.js';
import { TransportError } from '../../transport/index.js';
import { seededRandom } from '../apiserver/index.js';
import { parseRecording, recordReconcileEvent, type RecordedReconcileEvent } from './format.js';
import { streamName } from './recorder.js';
import type { Connection, ControllerDefinition } from 'rxkube';
import type { DeltaSource, Transport, WatchEvent } from 'rxkube/extend';

/** Options of {@link replay}. */
export interface ReplayOptions {
  /** Where the controller's writes go; default: a transport that fails every request with a `TransportError`. */
  readonly connection?: (scheduler: SchedulerLike) => Connection;
  /** How long after the last recorded line the replay keeps running, ms of virtual time. Default 60 000. */
  readonly settleMs?: number;
}

/** One decision of a controller: what its events say it did with a key. */
export interface ReplayDecision {
  /**
   * When the decision was made, ms: the recorded time (since the recorder was created) for a recorded decision,
   * the replay's virtual time for a replayed one; both count from the start of the recording.
   */
  readonly t: number;
  /**
   * The key decided on; `''` for a `rejected` input, and for the `error <message>` decision of a controller whose
   * stream errored.
   */
  readonly key: string;
  /** `succeeded`, `requeued +30000`, `failed`, `failed terminal`, `retrying +10`, `dropped`, `rejected`. */
  readonly decision: string;
}

/** Where a replay first departs from the recording. */
export interface ReplayDivergence {
  /** The key whose decisions differ; `''` for rejected inputs or a stream error (the message says `(none)`). */
  readonly key: string;
  /** The index of the decision among that key's decisions. */
  readonly index: number;
  /** The recorded time of the decision (or the replayed one, when the recording has none there). */
  readonly t: number;
  /** The recorded decision; `undefined` when the replay made one more. */
  readonly recorded?: string;
  /** The replayed decision; `undefined` when the replay made one fewer. */
  readonly replayed?: string;
  /** One line for a test failure: the key, the decision's 1-based number, its time in ms, and both decisions. */
  readonly message: string;
}

/** The outcome of {@link replay}. */
export interface ReplayReport {
  /**
   * Whether every key got the same decisions in the same order (times are not compared, nor the interleaving of
   * different keys); `divergence` is absent exactly when this is true.
   */
  readonly identical: boolean;
  /** The earliest difference in recorded time; absent when `identical`. */
  readonly divergence?: ReplayDivergence;
  /** The recording's decisions, in recorded order (`started` events are not decisions and are left out). */
  readonly recorded: readonly ReplayDecision[];
  /**
   * The replayed controller's decisions, in the order it made them, up to `settleMs` of virtual time after the last
   * recorded line; an error of its stream is the last one (`error <message>`, key `''`).
   */
  readonly replayed: readonly ReplayDecision[];
}

/**
 * Replays a recording (from `recorder`) against `definition`'s controller: each recorded WatchEvent is delivered to
 * the informers of its context (`context.informers.for(resource, { namespace })` plays the stream recorded under
 * that name) at its recorded time, in virtual time, and the controller's decisions are compared with the recorded
 * ones.
 *
 * # Guarantees
 * - Deterministic: it runs in its own `TestScheduler.run()`, so the same recording and the same controller give the
 *   same report, and an hour of recording replays in milliseconds.
 * - Decisions are compared key by key, in order (`started` is not a decision; its outcome is): runs of different
 *   keys may interleave differently under another clock without that counting as a difference. The divergence
 *   reported is the earliest one in recorded time.
 * - Bad recordings throw (see `parseRecording`), naming the line.
 *
 * # Caveats
 * - Call it outside `TestScheduler.run()` (runs cannot nest).
 * - A replay has no API server: writes fail unless `options.connection` gives one (a virtual cluster, say), and a
 *   controller whose decisions depend on its writes' answers then decides differently; that is a divergence worth
 *   seeing, not hidden.
 * - An informer that subscribes after some of its stream's recorded times gets those events at once, in order.
 * - Decisions that depend on wall time in the recording (a retry pulled forward to 0 ms by a fresh trigger) can
 *   differ in virtual time; the report says where.
 */
export function replay(
  recording: string | readonly string[],
  definition: ControllerDefinition,
  options: ReplayOptions = {},
): ReplayReport {
  const records = parseRecording(recording);
  const settleMs = options.settleMs ?? 60_000;
  const streams = new Map<string, Map<number, WatchEvent<KubernetesObject>[]>>();
  const recorded: ReplayDecision[] = [];
  let end = 0;
  for (const line of records) {
    end = Math.max(end, line.t);
    if (line.kind === 'watch') {
      const byTime = streams.get(line.stream) ?? new Map<number, WatchEvent<KubernetesObject>[]>();
      streams.set(line.stream, byTime);
      byTime.set(line.t, [...(byTime.get(line.t) ?? []), line.event]);
    } else {
      const decision = decisionOf(line.event);
      if (decision !== undefined) recorded.push({ t: line.t, key: line.event.key ?? '', decision });
    }
  }
  const replayed: ReplayDecision[] = [];
  const scheduler = new TestScheduler(() => undefined);
  scheduler.run(() => {
    const source = (<T extends KubernetesObject>(
      resource: { apiVersion: string; kind: string },
      watch: { namespace?: string },
    ) => {
      const name = streamName(resource, watch.namespace);
      const byTime = streams.get(name);
      if (byTime === undefined) {
        return throwError(
          () =>
            new TypeError(
              `replay: the recording has no stream ${name}; it has ${[...streams.keys()].join(', ') || 'none'}`,
            ),
        );
      }
      return new Observable<WatchEvent<T>>((subscriber) =>
        merge(
          ...[...byTime].map(([t, events]) =>
            timer(Math.max(0, t - scheduler.now()), scheduler).pipe(concatMap(() => from(events as WatchEvent<T>[]))),
          ),
          NEVER,
        ).subscribe(subscriber),
      );
    }) as DeltaSource;
    const connection = options.connection?.(scheduler) ?? noServer;
    const started$ = hostController(definition, {
      connection,
      scheduler,
      random: seededRandom(0),
      informers: { source },
    });
    const subscription = started$.subscribe({
      next: (event) => {
        const decision = decisionOf(recordReconcileEvent(event));
        if (decision !== undefined)
          replayed.push({ t: scheduler.now(), key: event.type === 'rejected' ? '' : event.key, decision });
      },
      error: (error: unknown) => replayed.push({ t: scheduler.now(), key: '', decision: `error ${messageOf(error)}` }),
    });
    scheduler.schedule(() => subscription.unsubscribe(), end + settleMs);
  });
  const divergence = firstDivergence(recorded, replayed);
  return { identical: divergence === undefined, ...(divergence ? { divergence } : {}), recorded, replayed };
}

/**
 * The decision an event states; `started` states none, nor does `released` (when an abandoned Promise settled is
 * the Promise's timing, not the controller's decision).
 */
function decisionOf(event: RecordedReconcileEvent): string | undefined {
  switch (event.type) {
    case 'started':
    case 'released':
      return undefined;
    case 'requeued':
    case 'retrying':
      return `${event.type} +${event.delayMs}`;
    case 'failed':
      return event.terminal ? 'failed terminal' : 'failed';
    default:
      return event.type;
  }
}

function firstDivergence(
  recorded: readonly ReplayDecision[],
  replayed: readonly ReplayDecision[],
): ReplayDivergence | undefined {
  const perKey = (decisions: readonly ReplayDecision[]): Map<string, ReplayDecision[]> => {
    const map = new Map<string, ReplayDecision[]>();
    for (const decision of decisions) map.set(decision.key, [...(map.get(decision.key) ?? []), decision]);
    return map;
  };
  const expected = perKey(recorded);
  const actual = perKey(replayed);
  let first: ReplayDivergence | undefined;
  for (const key of new Set([...expected.keys(), ...actual.keys()])) {
    const want = expected.get(key) ?? [];
    const got = actual.get(key) ?? [];
    for (let index = 0; index < Math.max(want.length, got.length); index++) {
      const a = want[index];
      const b = got[index];
      if (a?.decision === b?.decision) continue;
      const t = a?.t ?? b!.t;
      if (first === undefined || t < first.t) {
        first = {
          key,
          index,
          t,
          ...(a ? { recorded: a.decision } : {}),
          ...(b ? { replayed: b.decision } : {}),
          message: `key ${key || '(none)'}, decision ${index + 1}, recorded at ${t} ms: recorded ${a?.decision ?? 'nothing'}, replayed ${b?.decision ?? 'nothing'}`,
        };
      }
      break;
    }
  }
  return first;
}

/** The connection of a replay without a server: every request fails at once, saying why. */
const noServer: Transport = {
  get: (path) =>
    throwError(() => new TransportError('NoServer', `replay has no API server (GET ${path}); pass options.connection`)),
  watch: (path) =>
    throwError(
      () => new TransportError('NoServer', `replay has no API server (watch ${path}); pass options.connection`),
    ),
  request: (request) =>
    throwError(
      () =>
        new TransportError(
          'NoServer',
          `replay has no API server (${request.method} ${request.path}); pass options.connection`,
        ),
    ),
};
