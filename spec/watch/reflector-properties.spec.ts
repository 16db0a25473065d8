import { expect } from 'chai';
import fc from 'fast-check';
import { NEVER, Observable, of } from 'rxjs';
import type { RunHelpers } from 'rxjs/testing';
import { ApiError, TransportError } from '../../src/transport/index.js';
import type { QueryParams, Transport, WatchRequestOptions } from '../../src/transport/index.js';
import type { WatchEvent } from '../../src/watch/index.js';
import { bookmark, line, page, pod, statusLine } from './fake-transport.js';
import { scenario } from './harness.js';

type Ending = 'close' | 'network' | 'http410' | 'error410' | 'malformed' | 'missingName' | 'silent';
interface Behaviour {
  readonly events: number;
  readonly bookmarkLast: boolean;
  readonly ending: Ending;
}

const behaviourArb: fc.Arbitrary<Behaviour> = fc.record({
  events: fc.integer({ min: 0, max: 3 }),
  bookmarkLast: fc.boolean(),
  ending: fc.constantFrom<Ending>('close', 'network', 'http410', 'error410', 'malformed', 'missingName', 'silent'),
});

/** A server whose resourceVersions only grow; each watch follows the next scripted behaviour. */
class ScriptedServer implements Transport {
  helpers!: RunHelpers;
  rv = 100;
  readonly requests: Array<{ kind: 'get' | 'watch'; resourceVersion: unknown }> = [];
  /** Object resourceVersions sent after a bad line on the same connection: they must never be emitted. */
  readonly poisoned = new Set<string>();
  /** The watches' health reports: the scripted faults are expected, so they are not printed. */
  readonly onHealth = (): void => {};

  constructor(private readonly behaviours: Behaviour[]) {}

  get(_path: string, query: QueryParams): Observable<unknown> {
    this.requests.push({ kind: 'get', resourceVersion: query.resourceVersion });
    const first = String(++this.rv);
    const second = String(++this.rv);
    return of(page([pod('a', first), pod('b', second)], second));
  }

  request(): Observable<never> {
    throw new Error('the reflector makes no writes');
  }

  /** Every watch is accepted at once (its headers arrive), then follows its behaviour. */
  watch(path: string, query: QueryParams, options?: Omit<WatchRequestOptions, 'signal'>): Observable<string> {
    return new Observable<string>((subscriber) => {
      const subscription = this.script(path, query).subscribe(subscriber);
      options?.onOpen?.();
      return subscription;
    });
  }

  private script(_path: string, query: QueryParams): Observable<string> {
    this.requests.push({ kind: 'watch', resourceVersion: query.resourceVersion });
    const b = this.behaviours.shift();
    if (b === undefined) return NEVER;
    const values: Record<string, string> = {};
    let marble = '';
    for (let i = 0; i < b.events; i += 1) {
      const key = String.fromCharCode(97 + i);
      values[key] =
        b.bookmarkLast && i === b.events - 1
          ? bookmark(String(++this.rv))
          : line('MODIFIED', pod('a', String(++this.rv)));
      marble += `1s ${key} `;
    }
    const poison = (bad: string): string => {
      values.x = bad;
      values.y = line('MODIFIED', pod('a', String(++this.rv)));
      this.poisoned.add(String(this.rv));
      return `${marble}1s x y`;
    };
    switch (b.ending) {
      case 'close':
        return this.helpers.cold(`${marble}2s |`, values);
      case 'network':
        return this.helpers.cold(`${marble}2s #`, values, new TransportError('ConnectionClosed', 'cut'));
      case 'http410':
        return this.helpers.cold(`${marble}2s #`, values, new ApiError(410, 'Expired', 'gone'));
      case 'error410':
        return this.helpers.cold(`${marble}2s z`, { ...values, z: statusLine(410, 'Expired') });
      case 'malformed':
        return this.helpers.cold(poison('{"type":'), values);
      case 'missingName':
        return this.helpers.cold(poison(line('ADDED', { metadata: { resourceVersion: '1' } })), values);
      case 'silent':
        return this.helpers.cold(marble, values);
    }
  }
}

function lastRv(events: WatchEvent[]): string | undefined {
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const e = events[i]!;
    if (e.type === 'relistDone' || e.type === 'bookmark') return e.resourceVersion;
    if (e.type === 'added' || e.type === 'modified' || e.type === 'deleted') return e.object.metadata?.resourceVersion;
  }
  return undefined;
}

describe('listWatch: properties over random server behaviour', () => {
  it('resumes every watch from the last emitted resourceVersion, relists only on 410, and never interleaves a relist', () => {
    fc.assert(
      fc.property(fc.array(behaviourArb, { minLength: 1, maxLength: 8 }), (behaviours) => {
        const server = new ScriptedServer([...behaviours]);
        const o = scenario(
          (_fake, helpers) => {
            server.helpers = helpers;
          },
          { transport: server },
          behaviours.length * 600_000,
        );
        expect(o.error).to.equal(undefined);
        const all = o.events.map((x) => x.e);

        // Replay: the resourceVersion sent with each watch is the last one emitted before that request.
        const watches = server.requests.filter((r) => r.kind === 'watch');
        const deltas = all.filter((e) => e.type !== 'status' && e.type !== 'problem');
        const expectedRvs: Array<string | undefined> = [];
        const prefix: WatchEvent[] = [];
        for (const e of all) {
          if (e.type === 'status' && e.status.state === 'watching') expectedRvs.push(lastRv(prefix));
          prefix.push(e);
        }
        expect(watches.map((w) => w.resourceVersion)).to.deep.equal(expectedRvs);
        expect(watches.length).to.be.greaterThan(behaviours.length);

        // Lists happen once at start plus once per 410.
        const expired = behaviours.filter((b) => b.ending === 'http410' || b.ending === 'error410').length;
        expect(server.requests.filter((r) => r.kind === 'get')).to.have.length(1 + expired);

        // A relist is relistStarted, listed…, relistDone with nothing else inside.
        let inRelist = false;
        for (const e of deltas) {
          if (e.type === 'relistStarted') {
            expect(inRelist).to.equal(false);
            inRelist = true;
          } else if (e.type === 'relistDone') {
            expect(inRelist).to.equal(true);
            inRelist = false;
          } else if (inRelist) {
            expect(e.type).to.equal('listed');
          }
        }
        expect(inRelist).to.equal(false);

        // Nothing after a bad line on the same connection is emitted (it is re-read from the last good version).
        const emittedRvs = deltas.flatMap((e) => ('object' in e ? [e.object.metadata?.resourceVersion] : []));
        for (const rv of server.poisoned) expect(emittedRvs).to.not.include(rv);
        // …and every bad line was reported as a problem with a running count, never as a connection error.
        const bad = all.flatMap((e) => (e.type === 'problem' ? [e.problem] : []));
        expect(bad).to.have.length(
          behaviours.filter((b) => b.ending === 'malformed' || b.ending === 'missingName').length,
        );
        for (const reason of ['MalformedLine', 'MissingName']) {
          expect(bad.filter((p) => p.reason === reason).map((p) => p.count)).to.deep.equal(
            bad.filter((p) => p.reason === reason).map((_, i) => i + 1),
          );
        }
        const errors = all.flatMap((e) =>
          e.type === 'status' && e.status.state === 'error' ? [e.status.cause.reason] : [],
        );
        expect(errors).to.not.include.members(['MalformedLine', 'MissingName']);
      }),
      { numRuns: 150 },
    );
  });
});
