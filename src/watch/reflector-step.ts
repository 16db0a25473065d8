/**
 * The reflector's one transition function: what each input does in each phase. See reflector-state.ts for the
 * types and docs/design.md for the behaviour it implements.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { objectKey } from '../objects/index.js';
import { isTerminal, TERMINAL_CODES } from './errors.js';
import type {
  ProblemCounts,
  ProblemReport,
  ReflectorEffect,
  ReflectorInput,
  ReflectorMemory,
  ReflectorPhase,
  ReflectorState,
  Retry,
} from './reflector-state.js';
import type { WatchFailure, WatchProblem, WatchProblemReason, WatchStatus } from './types.js';

/** A clean close sooner than this, with no event at all, is treated as a failure so a bad server cannot spin us. */
export const SHORT_WATCH_MS = 1_000;

/** What the step needs to know of the options. */
export interface StepConfig {
  /** Whether 401, 403 and 404 (and an unknown kind) stop the reflector instead of being retried. */
  readonly failFast: boolean;
}

/** The next state and the effects to carry out, in order. */
export interface Transition<T extends KubernetesObject> {
  readonly state: ReflectorState<T>;
  readonly effects: readonly ReflectorEffect<T>[];
}

/** The state before `start`. */
export function initialState<T extends KubernetesObject>(streamingList: boolean): ReflectorState<T> {
  return { phase: 'idle', attempt: 0, expiredStreak: 0, streamingList, problemCounts: NO_PROBLEMS };
}

/**
 * Moves the reflector one step: the state after `input`, and what to do about it.
 *
 * # Guarantees
 * - Deterministic: it reads no clock and no random source (the driver draws delays and watch timeouts when it
 *   carries out `watch` and `backOff`) and calls no user code (the driver prepares objects before they come in).
 * - At most one request in flight: a request effect only leaves a phase whose request has ended (answered,
 *   failed, aborted) or a backoff; a request, a backoff or a stop is always the last effect of a step.
 * - A watch opens only after a complete list, from its resourceVersion, or as a streaming list; it resumes from the
 *   last resourceVersion it emitted, and only a relist forgets that version.
 * - An input the phase does not expect (a stale one) changes nothing; `failed` is final.
 *
 * # Caveats
 * - The state is consumed, as kube-rs's `step` takes its `State` by value: the initial events of a streaming list
 *   are gathered in the state's own Map, updated in place, since copying it per event would make a streaming list
 *   quadratic. Never step the same state twice.
 */
export function reflectorStep<T extends KubernetesObject>(
  s: ReflectorState<T>,
  input: ReflectorInput<T>,
  config: StepConfig,
): Transition<T> {
  switch (input.type) {
    case 'start':
      if (s.phase !== 'idle') return stay(s);
      return input.discover ? { state: enter(s, { phase: 'resolving' }), effects: [RESOLVE] } : relist(s);
    case 'resolved':
      return s.phase === 'resolving' ? relist(s) : stay(s);
    case 'invalid':
      return s.phase === 'failed' ? stay(s) : fatal(s, { reason: 'InvalidOptions', message: input.message });
    case 'listed':
      return s.phase === 'listing' ? listed(s, input) : stay(s);
    case 'requestFailed':
      return requestFailed(s, input.failure, config);
    case 'retry':
      return s.phase === 'backingOff' ? retry(s, s.retry) : stay(s);
    default:
      return s.phase === 'watching' || s.phase === 'initialEvents' ? onWatch(s, input, config) : stay(s);
  }
}

type Listing<T extends KubernetesObject> = ReflectorState<T> & { readonly phase: 'listing' };
type Watching<T extends KubernetesObject> = ReflectorState<T> & { readonly phase: 'watching' };
type InitialEvents<T extends KubernetesObject> = ReflectorState<T> & { readonly phase: 'initialEvents' };
type WatchInput<T extends KubernetesObject> = Exclude<
  ReflectorInput<T>,
  { readonly type: 'start' | 'resolved' | 'invalid' | 'listed' | 'requestFailed' | 'retry' }
>;

const NO_PROBLEMS: ProblemCounts = { MalformedLine: 0, MissingName: 0, TransformFailed: 0 };
const NO_EFFECTS: readonly never[] = [];
const RESOLVE = { type: 'resolve' } as const;
const ABORT_WATCH = { type: 'abortWatch' } as const;
const RELIST: Retry = { to: 'relist' };

// ---- list ------------------------------------------------------------------------------------------------------

/** Lists from scratch, or streams the initial events; whatever was listed before is superseded. */
function relist<T extends KubernetesObject>(m: ReflectorMemory): Transition<T> {
  return m.streamingList ? openWatch(m, undefined) : startList(m, true);
}

function startList<T extends KubernetesObject>(m: ReflectorMemory, paginate: boolean): Transition<T> {
  return then([status({ state: 'connecting' })], listPage(m, 1, undefined, paginate, []));
}

function listPage<T extends KubernetesObject>(
  m: ReflectorMemory,
  page: number,
  continueToken: string | undefined,
  paginate: boolean,
  pages: readonly (readonly T[])[],
): Transition<T> {
  return {
    state: enter(m, { phase: 'listing', page, continueToken, paginate, pages }),
    effects: [status({ state: 'listing', page }), { type: 'list', page, continueToken, paginate }],
  };
}

/**
 * A page arrived: ask for the next one, or emit the complete list in one batch and watch from its resourceVersion.
 * Pages are held until the list is complete, so a failure on page n never leaves half a relist in the stream
 * (client-go buffers the same way before `Replace`).
 */
function listed<T extends KubernetesObject>(
  s: Listing<T>,
  input: ReflectorInput<T> & { readonly type: 'listed' },
): Transition<T> {
  const counted = countProblems<T>(s.problemCounts, input.problems);
  const m = { ...s, problemCounts: counted.counts };
  const pages = [...s.pages, input.objects];
  const next: Transition<T> =
    s.paginate && input.continueToken
      ? listPage(m, s.page + 1, input.continueToken, true, pages)
      : then<T>(
          [{ type: 'emitRelist', pages, resourceVersion: input.resourceVersion }],
          openWatch(m, input.resourceVersion),
        );
  return then(counted.effects, next);
}

// ---- watch -----------------------------------------------------------------------------------------------------

/** Opens a watch from `resourceVersion`, or a streaming list when it is undefined. */
function openWatch<T extends KubernetesObject>(m: ReflectorMemory, resourceVersion: string | undefined): Transition<T> {
  const phase: ReflectorPhase<T> =
    resourceVersion === undefined
      ? { phase: 'initialEvents', accepted: false, objects: new Map() }
      : { phase: 'watching', resourceVersion, accepted: false, sawEvent: false };
  return {
    state: enter(m, phase),
    effects: [
      status({ state: 'connecting' }),
      { type: 'watch', resourceVersion, streaming: resourceVersion === undefined },
    ],
  };
}

function onWatch<T extends KubernetesObject>(
  s: Watching<T> | InitialEvents<T>,
  input: WatchInput<T>,
  config: StepConfig,
): Transition<T> {
  switch (input.type) {
    case 'accepted':
      if (s.accepted) return stay(s);
      // A streaming list's watch carries the list first: it is listing until the initial events end.
      return {
        state: { ...s, accepted: true },
        effects: [
          status(
            s.phase === 'watching'
              ? { state: 'watching', resourceVersion: s.resourceVersion }
              : { state: 'listing', page: 1 },
          ),
        ],
      };
    case 'object':
      return s.phase === 'watching' ? watchedObject(s, input) : initialObject(s, input);
    case 'bookmark':
      if (s.phase === 'watching') {
        return {
          state: { ...s, resourceVersion: input.resourceVersion, sawEvent: true, expiredStreak: 0 },
          effects: [{ type: 'emit', event: { type: 'bookmark', resourceVersion: input.resourceVersion } }],
        };
      }
      return input.initialEventsEnd
        ? endInitialEvents(s, input.resourceVersion)
        : streamingUnsupported(
            { ...s, expiredStreak: 0 },
            'a bookmark arrived without the k8s.io/initial-events-end annotation',
          );
    case 'badLine':
      return badLine(s, input.reason, input.message, config);
    case 'errorEvent':
      return then(
        [ABORT_WATCH],
        input.failure.code === 410 ? expired(s, input.failure, config) : fail(s, input.failure, resumeOf(s), config),
      );
    case 'closed':
      if (s.phase === 'initialEvents')
        return streamingUnsupported(s, 'the watch closed before the k8s.io/initial-events-end bookmark');
      if (!s.sawEvent && input.openMs < SHORT_WATCH_MS) {
        return fail(
          s,
          { reason: 'WatchClosedEarly', message: 'the server closed the watch at once without any event' },
          resumeOf(s),
          config,
        );
      }
      // A clean close is routine (timeoutSeconds ran out): resume at once, without a relist.
      return openWatch(s, s.resourceVersion);
    case 'dead': {
      const bound =
        input.bound === 'idleTimeout'
          ? 'idleTimeout: this watch had bookmarks, which come about once a minute'
          : 'timeoutSeconds + 30 s';
      const message = `no bytes for ${Math.round(input.idleMs / 1000)} s (${bound}); reconnecting`;
      return then([ABORT_WATCH], fail(s, { reason: 'DeadConnection', message }, resumeOf(s), config));
    }
    case 'healthy':
      return { state: { ...s, attempt: 0 }, effects: NO_EFFECTS };
  }
}

function watchedObject<T extends KubernetesObject>(
  s: Watching<T>,
  input: ReflectorInput<T> & { readonly type: 'object' },
): Transition<T> {
  const resourceVersion = input.raw.metadata?.resourceVersion || s.resourceVersion;
  const type = input.event === 'ADDED' ? 'added' : input.event === 'MODIFIED' ? 'modified' : 'deleted';
  const emit: ReflectorEffect<T> = { type: 'emit', event: { type, object: input.object } };
  if (input.problems.length === 0)
    return { state: { ...s, resourceVersion, sawEvent: true, expiredStreak: 0 }, effects: [emit] };
  const counted = countProblems<T>(s.problemCounts, input.problems);
  return {
    state: { ...s, problemCounts: counted.counts, resourceVersion, sawEvent: true, expiredStreak: 0 },
    effects: [...counted.effects, emit],
  };
}

function initialObject<T extends KubernetesObject>(
  s: InitialEvents<T>,
  input: ReflectorInput<T> & { readonly type: 'object' },
): Transition<T> {
  if (input.event === 'DELETED') s.objects.delete(objectKey(input.raw));
  else s.objects.set(objectKey(input.raw), input.object);
  const counted = countProblems<T>(s.problemCounts, input.problems);
  return { state: { ...s, problemCounts: counted.counts, expiredStreak: 0 }, effects: counted.effects };
}

/** The initial events are complete: emit them as a relist; the same connection carries on as the watch. */
function endInitialEvents<T extends KubernetesObject>(s: InitialEvents<T>, resourceVersion: string): Transition<T> {
  return {
    state: enter({ ...s, expiredStreak: 0 }, { phase: 'watching', resourceVersion, accepted: true, sawEvent: true }),
    effects: [
      { type: 'emitRelist', pages: [[...s.objects.values()]], resourceVersion },
      status({ state: 'watching', resourceVersion }),
    ],
  };
}

/** The server does not serve streaming lists: list and watch for the rest of the subscription. */
function streamingUnsupported<T extends KubernetesObject>(m: ReflectorMemory, message: string): Transition<T> {
  const cause = { reason: 'StreamingListUnsupported', message: `${message}; falling back to list+watch` };
  return then([ABORT_WATCH, status({ state: 'error', cause })], relist({ ...m, streamingList: false }));
}

/**
 * A watch line we cannot apply: reported as a problem, then the watch is resumed from the last good resourceVersion
 * after backoff (a poison event replayed on every resume must not make us spin). The connection is healthy, so no
 * `error` status is reported; `backingOff` says why the watch reconnects.
 */
function badLine<T extends KubernetesObject>(
  s: Watching<T> | InitialEvents<T>,
  reason: WatchProblemReason,
  message: string,
  config: StepConfig,
): Transition<T> {
  const from = s.phase === 'watching' ? `resuming from resourceVersion ${s.resourceVersion}` : 'relisting';
  const counted = countProblem(s.problemCounts, { reason, message: `${message}; ${from}` });
  const cause = { reason, message: counted.problem.message };
  return then(
    [ABORT_WATCH, { type: 'emit', event: { type: 'problem', problem: counted.problem } }],
    fail({ ...s, problemCounts: counted.counts }, cause, resumeOf(s), config, false),
  );
}

/** Where a failed watch picks up: its last resourceVersion, or a new list during a streaming list's initial events. */
function resumeOf<T extends KubernetesObject>(s: Watching<T> | InitialEvents<T>): Retry {
  return s.phase === 'watching' ? { to: 'watch', resourceVersion: s.resourceVersion } : RELIST;
}

// ---- failures --------------------------------------------------------------------------------------------------

function requestFailed<T extends KubernetesObject>(
  s: ReflectorState<T>,
  failure: WatchFailure,
  config: StepConfig,
): Transition<T> {
  switch (s.phase) {
    case 'resolving':
      return fail(s, failure, { to: 'resolve' }, config);
    case 'listing':
      if (s.continueToken !== undefined && failure.code === 410) {
        // The snapshot behind the continue token was compacted: one unpaginated list gets a consistent snapshot.
        return then([status({ state: 'error', cause: failure })], startList(s, false));
      }
      return fail(s, failure, RELIST, config);
    case 'initialEvents':
    case 'watching':
      if (failure.code === 410) return expired(s, failure, config);
      if (s.phase === 'initialEvents' && failure.code !== undefined && TERMINAL_CODES.has(failure.code)) {
        // How a server without streaming lists refuses the request (kube-apiserver: 422 on sendInitialEvents). A
        // 401, 403 or 404 says nothing about streaming: it is retried like any failure, streaming again.
        return streamingUnsupported(
          s,
          `the server rejected the streaming list: ${failure.code} ${failure.reason}: ${failure.message}`,
        );
      }
      return fail(s, failure, resumeOf(s), config);
    default:
      return stay(s);
  }
}

/** The first 410 in a row relists at once (routine after a long disconnect); repeats back off. */
function expired<T extends KubernetesObject>(
  m: ReflectorMemory,
  failure: WatchFailure,
  config: StepConfig,
): Transition<T> {
  const next = { ...m, expiredStreak: m.expiredStreak + 1 };
  return then(
    [status({ state: 'error', cause: failure })],
    next.expiredStreak === 1 ? relist(next) : fail(next, failure, RELIST, config, false),
  );
}

/**
 * Backs off before `retry`, announcing the failure first unless it was already (`announce` false); stops instead
 * on a failure no retry can fix.
 */
function fail<T extends KubernetesObject>(
  m: ReflectorMemory,
  cause: WatchFailure,
  retry: Retry,
  config: StepConfig,
  announce = true,
): Transition<T> {
  if (isTerminal(cause, config.failFast)) return fatal(m, cause);
  const attempt = m.attempt + 1;
  const backOff: ReflectorEffect<T> = { type: 'backOff', cause, attempt };
  return {
    state: enter({ ...m, attempt }, { phase: 'backingOff', retry }),
    effects: announce ? [status({ state: 'error', cause }), backOff] : [backOff],
  };
}

function retry<T extends KubernetesObject>(m: ReflectorMemory, next: Retry): Transition<T> {
  switch (next.to) {
    case 'resolve':
      return { state: enter(m, { phase: 'resolving' }), effects: [RESOLVE] };
    case 'relist':
      return relist(m);
    case 'watch':
      return openWatch(m, next.resourceVersion);
  }
}

/** Stops for good: the `failed` status, then the error. */
function fatal<T extends KubernetesObject>(m: ReflectorMemory, cause: WatchFailure): Transition<T> {
  return {
    state: enter(m, { phase: 'failed' }),
    effects: [status({ state: 'failed', cause }), { type: 'stop', cause }],
  };
}

// ---- helpers ---------------------------------------------------------------------------------------------------

/** Counts each report and emits it as a `problem`, in order. */
function countProblems<T extends KubernetesObject>(
  counts: ProblemCounts,
  reports: readonly ProblemReport[],
): { counts: ProblemCounts; effects: readonly ReflectorEffect<T>[] } {
  if (reports.length === 0) return { counts, effects: NO_EFFECTS };
  const effects: ReflectorEffect<T>[] = [];
  for (const report of reports) {
    const counted = countProblem(counts, report);
    counts = counted.counts;
    effects.push({ type: 'emit', event: { type: 'problem', problem: counted.problem } });
  }
  return { counts, effects };
}

function countProblem(counts: ProblemCounts, report: ProblemReport): { counts: ProblemCounts; problem: WatchProblem } {
  const { reason, message, key, n = 1 } = report;
  const count = counts[reason] + n;
  const problem = { reason, message: `${message} (${count} so far)`, count, ...(key === undefined ? {} : { key }) };
  return { counts: { ...counts, [reason]: count }, problem };
}

/** Enters `phase`, keeping the memory (and nothing of the phase left). */
function enter<T extends KubernetesObject>(m: ReflectorMemory, phase: ReflectorPhase<T>): ReflectorState<T> {
  return {
    attempt: m.attempt,
    expiredStreak: m.expiredStreak,
    streamingList: m.streamingList,
    problemCounts: m.problemCounts,
    ...phase,
  };
}

function stay<T extends KubernetesObject>(state: ReflectorState<T>): Transition<T> {
  return { state, effects: NO_EFFECTS };
}

function then<T extends KubernetesObject>(before: readonly ReflectorEffect<T>[], next: Transition<T>): Transition<T> {
  return before.length === 0 ? next : { state: next.state, effects: [...before, ...next.effects] };
}

function status<T extends KubernetesObject>(value: WatchStatus): ReflectorEffect<T> {
  return { type: 'emit', event: { type: 'status', status: value } };
}
