import { expect } from 'chai';
import fc from 'fast-check';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ReflectorEffect, ReflectorInput, ReflectorState } from '../../src/watch/reflector-state.js';
import { initialState, reflectorStep } from '../../src/watch/reflector-step.js';
import type { WatchFailure } from '../../src/watch/index.js';

type Obj = KubernetesObject;
type Input = ReflectorInput<Obj>;

/** One move of the server (or of a timer): `choice` picks what happens, `variant` its details. */
interface Move {
  readonly choice: number;
  readonly variant: number;
  /** Deliver an input the current phase does not expect (a stale one) instead. */
  readonly stale: boolean;
}
const movesArb = fc.array(fc.record({ choice: fc.nat(99), variant: fc.nat(99), stale: fc.boolean() }), {
  maxLength: 80,
});
const configArb = fc.record({ streamingList: fc.boolean(), failFast: fc.boolean(), discover: fc.boolean() });

const CODES = [undefined, undefined, 400, 401, 403, 404, 410, 410, 422, 429, 500, 503];
function failure(variant: number): WatchFailure {
  const code = CODES[variant % CODES.length];
  if (code === undefined) return { reason: 'NetworkError', message: 'connect ECONNREFUSED' };
  return {
    reason: `R${code}`,
    message: `answered ${code}`,
    code,
    ...(code === 429 && variant % 2 === 0 ? { retryAfterSeconds: 3 } : {}),
  };
}

/**
 * A server whose resourceVersions only grow, answering what the driver could deliver in the current phase; a
 * watch line comes after the watch was accepted, as the driver sends `accepted` before any line.
 */
class Server {
  rv = 100;
  private readonly names = ['a', 'b', 'c'];

  inputs(s: ReflectorState<Obj>, move: Move, discover: boolean): Input[] {
    const { choice, variant } = move;
    const object = (): Obj => ({
      metadata: { name: this.names[variant % 3]!, namespace: 'default', resourceVersion: String(++this.rv) },
    });
    switch (s.phase) {
      case 'idle':
        return [{ type: 'start', discover }];
      case 'resolving':
        return [
          choice < 70
            ? { type: 'resolved' }
            : choice < 95
              ? { type: 'requestFailed', failure: failure(variant) }
              : { type: 'invalid', message: 'bad' },
        ];
      case 'listing': {
        if (choice >= 70) return [{ type: 'requestFailed', failure: failure(variant) }];
        const objects = Array.from({ length: variant % 3 }, object);
        const problems = variant % 5 === 0 ? [{ reason: 'MissingName' as const, message: 'skipped', n: 2 }] : [];
        return [
          {
            type: 'listed',
            objects,
            continueToken: variant % 3 === 0 ? `tok${variant}` : undefined,
            resourceVersion: String(++this.rv),
            problems,
          },
        ];
      }
      case 'backingOff':
        return [{ type: 'retry' }];
      case 'failed':
        return [{ type: 'retry' }];
      case 'watching':
      case 'initialEvents': {
        const line = this.watchInput(choice, variant, object);
        const needsAcceptance =
          !s.accepted && line.type !== 'accepted' && line.type !== 'requestFailed' && line.type !== 'dead';
        return needsAcceptance ? [{ type: 'accepted' }, line] : [line];
      }
    }
  }

  private watchInput(choice: number, variant: number, object: () => Obj): Input {
    if (choice < 10) return { type: 'accepted' };
    if (choice < 45) {
      const raw = object();
      const problems =
        variant % 7 === 0
          ? [{ reason: 'TransformFailed' as const, message: 'transform threw', key: `default/${raw.metadata!.name}` }]
          : [];
      return {
        type: 'object',
        event: (['ADDED', 'MODIFIED', 'DELETED'] as const)[variant % 3]!,
        raw,
        object: raw,
        problems,
      };
    }
    if (choice < 60)
      return { type: 'bookmark', resourceVersion: String(++this.rv), initialEventsEnd: variant % 4 !== 0 };
    if (choice < 65)
      return { type: 'badLine', reason: variant % 2 === 0 ? 'MalformedLine' : 'MissingName', message: 'bad line' };
    if (choice < 70) return { type: 'errorEvent', failure: failure(variant) };
    if (choice < 80) return { type: 'requestFailed', failure: failure(variant) };
    if (choice < 88) return { type: 'closed', openMs: variant * 20 };
    if (choice < 93) return { type: 'dead', idleMs: 480_000, bound: 'timeoutSeconds' };
    return { type: 'healthy' };
  }
}

/** Inputs the phase never gets from the driver: the step must ignore them. */
function staleInput(s: ReflectorState<Obj>, variant: number): Input | undefined {
  const candidates: Input[] = [];
  if (s.phase !== 'idle') candidates.push({ type: 'start', discover: false });
  if (s.phase !== 'resolving') candidates.push({ type: 'resolved' });
  if (s.phase !== 'listing')
    candidates.push({ type: 'listed', objects: [], continueToken: undefined, resourceVersion: '1', problems: [] });
  if (s.phase !== 'backingOff') candidates.push({ type: 'retry' });
  if (s.phase !== 'watching' && s.phase !== 'initialEvents')
    candidates.push({ type: 'accepted' }, { type: 'closed', openMs: 5000 }, { type: 'healthy' });
  return candidates[variant % candidates.length];
}

const REQUESTS = new Set(['resolve', 'list', 'watch']);
const LAST_ONLY = new Set(['resolve', 'list', 'watch', 'backOff', 'stop']);
const inFlightOf: Record<ReflectorState<Obj>['phase'], string | undefined> = {
  idle: undefined,
  resolving: 'resolve',
  listing: 'list',
  initialEvents: 'watch',
  watching: 'watch',
  backingOff: undefined,
  failed: undefined,
};

/** The resourceVersion an emitted event moves the resume point to, if any. */
function rvOf(effect: ReflectorEffect<Obj>): string | undefined {
  if (effect.type === 'emitRelist') return effect.resourceVersion;
  if (effect.type !== 'emit') return undefined;
  const e = effect.event;
  if (e.type === 'bookmark') return e.resourceVersion;
  if (e.type === 'added' || e.type === 'modified' || e.type === 'deleted')
    return e.object.metadata?.resourceVersion || undefined;
  return undefined;
}

describe('reflectorStep: properties over any sequence of inputs', () => {
  it('keeps at most one request in flight, announces each watch once, watches only after a list or as a streaming list, and never resumes from an older resourceVersion except after a relist', () => {
    fc.assert(
      fc.property(configArb, movesArb, ({ streamingList, failFast, discover }, moves) => {
        const server = new Server();
        let s = initialState<Obj>(streamingList);
        let inFlight: string | undefined;
        /** The last resourceVersion emitted since the last relist; undefined before any list. */
        let resumePoint: string | undefined;
        let lastResume: number | undefined;
        /** Statuses that announced the acceptance of the watch in flight. */
        let announced = 0;
        let stopped = false;
        for (const move of moves) {
          const stale = move.stale ? staleInput(s, move.variant) : undefined;
          for (const input of stale ? [stale] : server.inputs(s, move, discover)) {
            const before = s;
            const { state, effects } = reflectorStep(s, input, { failFast });
            s = state;
            if (stale !== undefined || stopped) {
              expect(effects, `${input.type} in ${before.phase} does nothing`).to.deep.equal([]);
              expect(state, `${input.type} in ${before.phase} changes nothing`).to.equal(before);
              continue;
            }
            if (input.type === 'accepted') {
              announced += effects.length;
              expect(announced, 'a watch is announced once').to.be.at.most(1);
            }
            // The request in flight ends with these inputs; the step may start the next one.
            if (['resolved', 'invalid', 'listed', 'requestFailed', 'closed'].includes(input.type)) inFlight = undefined;
            effects.forEach((effect, i) => {
              if (LAST_ONLY.has(effect.type))
                expect(i, `${effect.type} is the step's last effect`).to.equal(effects.length - 1);
              if (effect.type === 'abortWatch') inFlight = undefined;
              if (REQUESTS.has(effect.type)) {
                expect(inFlight, `${effect.type} while ${inFlight} is in flight`).to.equal(undefined);
                inFlight = effect.type;
                announced = 0;
              }
              if (effect.type === 'watch') {
                if (effect.streaming) {
                  expect([before.streamingList, effect.resourceVersion]).to.deep.equal([true, undefined]);
                } else {
                  expect(effect.resourceVersion, 'a watch resumes from the last resourceVersion emitted').to.equal(
                    resumePoint,
                  );
                  const rv = Number(effect.resourceVersion);
                  if (lastResume !== undefined && rv) expect(rv).to.be.at.least(lastResume);
                  if (rv) lastResume = rv;
                }
              }
              if (effect.type === 'emit' && ['added', 'modified', 'deleted', 'bookmark'].includes(effect.event.type)) {
                expect(
                  [before.phase, 'accepted' in before && before.accepted],
                  'a delta comes from an accepted watch',
                ).to.deep.equal(['watching', true]);
              }
              if (effect.type === 'emitRelist') lastResume = undefined;
              resumePoint = rvOf(effect) ?? resumePoint;
              if (effect.type === 'backOff') {
                expect(effect.attempt).to.equal(before.attempt + 1);
                const said = effects
                  .slice(0, i)
                  .some(
                    (e) =>
                      e.type === 'emit' &&
                      (e.event.type === 'problem' || (e.event.type === 'status' && e.event.status.state === 'error')),
                  );
                expect(said, 'a backoff says why first').to.equal(true);
              }
              if (effect.type === 'stop') {
                stopped = true;
                inFlight = undefined;
              }
            });
            // Each phase but backingOff, failed and idle has exactly its own request in flight.
            expect(inFlight, `in flight in ${s.phase}`).to.equal(inFlightOf[s.phase]);
            if (input.type === 'healthy') expect(s.attempt).to.equal(0);
            if (s.phase === 'failed') expect(stopped).to.equal(true);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('emits a relist holding exactly the objects listed (or streamed) since the list began, and counts every problem', () => {
    fc.assert(
      fc.property(configArb, movesArb, ({ streamingList, failFast, discover }, moves) => {
        const server = new Server();
        let s = initialState<Obj>(streamingList);
        let listed: string[] = [];
        let streamed = new Map<string, string>();
        const counts = { MalformedLine: 0, MissingName: 0, TransformFailed: 0 };
        for (const move of moves) {
          for (const input of server.inputs(s, move, discover)) {
            const before = s;
            const { state, effects } = reflectorStep(s, input, { failFast });
            s = state;
            if (input.type === 'listed' && before.phase === 'listing')
              listed.push(...input.objects.map((o) => o.metadata!.resourceVersion!));
            if (input.type === 'object' && before.phase === 'initialEvents') {
              const key = `default/${input.raw.metadata!.name}`;
              if (input.event === 'DELETED') streamed.delete(key);
              else streamed.set(key, input.raw.metadata!.resourceVersion!);
            }
            for (const effect of effects) {
              if (effect.type === 'list' && effect.page === 1) listed = [];
              if (effect.type === 'watch' && effect.streaming) streamed = new Map();
              if (effect.type === 'emitRelist') {
                const objects = [...effect.pages].flatMap((page) => [...page].map((o) => o.metadata!.resourceVersion!));
                expect(objects).to.deep.equal(before.phase === 'initialEvents' ? [...streamed.values()] : listed);
              }
              if (effect.type === 'emit' && effect.event.type === 'problem') {
                const { reason, count } = effect.event.problem;
                const reported =
                  input.type === 'listed' || input.type === 'object'
                    ? (input.problems.find((p) => p.reason === reason)?.n ?? 1)
                    : 1;
                counts[reason] += reported;
                expect(count, `${reason} is a running count`).to.equal(counts[reason]);
              }
            }
          }
        }
        expect(s.problemCounts).to.deep.equal(counts);
      }),
      { numRuns: 300 },
    );
  });
});
