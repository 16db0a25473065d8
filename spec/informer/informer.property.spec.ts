import { expect } from 'chai';
import fc from 'fast-check';
import { Subject, type Observable } from 'rxjs';
import type { WatchEvent } from '../../src/watch/index.js';
import { informerFromSource, type InformerEvent } from '../../src/informer/index.js';
import type { Store } from '../../src/store/index.js';
import type { TestPod } from '../store/fixtures.js';
import { batches, opsArb, toEvents } from '../store/arbitraries.js';

/**
 * Replays informer events onto a Map, failing on any event that contradicts what the subscriber saw before, or
 * whose snapshot does not show the event's own change.
 */
function follow(events: InformerEvent<TestPod>[]): Map<string, TestPod> {
  const view = new Map<string, TestPod>();
  for (const event of events) {
    if (event.type === 'added') expect(view.has(event.key), `duplicate added ${event.key}`).to.equal(false);
    if (event.type === 'updated') expect(view.get(event.key), `gap before updated ${event.key}`).to.equal(event.old);
    if (event.type === 'deleted') expect(view.has(event.key), `gap before deleted ${event.key}`).to.equal(true);
    if (event.type === 'deleted') {
      expect(event.snapshot.has(event.key), `the snapshot of deleted ${event.key} still holds it`).to.equal(false);
      view.delete(event.key);
    } else {
      expect(event.snapshot.get(event.key), `the snapshot of ${event.type} ${event.key} shows another state`).to.equal(
        event.object,
      );
      view.set(event.key, event.object);
    }
  }
  return view;
}

const asMap = (store: Store<TestPod>) => new Map(store.entries());

type Channel = 'top' | 'events$' | 'store$' | 'synced$' | 'status$';
const channelArb = fc.constantFrom<Channel>('top', 'events$', 'store$', 'synced$', 'status$');
type Input = WatchEvent<TestPod> | WatchEvent<TestPod>[];

/**
 * Feeds the deltas of `ops` to an informer, cut into batches at `cuts` (none: one event per emission), while
 * subscribers join at the points `joins` names, at top level or from inside a callback; then checks every
 * subscriber's history against the final store. A status comes before every delta when unbatched, so that status$
 * callbacks fire between deltas as they do in production; before every third one when batched, so that batches
 * also hold runs of deltas (and of changes to one key) that share a snapshot or must be cut.
 */
function checkJoins(ops: Parameters<typeof toEvents>[0], joins: [number, Channel][], cuts: number[] | undefined): void {
  const statusEvery = cuts === undefined ? 1 : 3;
  const events: WatchEvent<TestPod>[] = toEvents(ops).flatMap((event, i) => [
    ...(i % statusEvery === 0
      ? [{ type: 'status', status: { state: 'watching', resourceVersion: String(i) } } as const]
      : []),
    event,
  ]);
  const inputs: Input[] = cuts === undefined ? events : batches(events, cuts);
  const source = new Subject<Input>();
  const informer = informerFromSource<TestPod>(source);
  const logs: InformerEvent<TestPod>[][] = [];
  const subscribeNow = (): void => {
    const log: InformerEvent<TestPod>[] = [];
    logs.push(log);
    informer.events$.subscribe((event) => log.push(event));
  };
  /** Subscribes a new events$ subscriber from inside the next callback `channel` delivers. */
  const joinInside = (channel: Exclude<Channel, 'top'>): void => {
    let armed = false;
    let joined = false;
    const stream = informer[channel] as Observable<unknown>;
    stream.subscribe(() => {
      if (!armed || joined) return;
      joined = true;
      subscribeNow();
    });
    armed = true; // replays during subscribe (store$, synced$, status$) do not count
  };
  subscribeNow();
  const plan = new Map<number, Channel[]>();
  for (const [at, channel] of joins) {
    const index = at % (inputs.length + 1);
    plan.set(index, [...(plan.get(index) ?? []), channel]);
  }
  inputs.forEach((input, i) => {
    for (const channel of plan.get(i) ?? []) {
      if (channel === 'top') subscribeNow();
      else joinInside(channel);
    }
    source.next(input);
  });
  const expected = asMap(informer.current());
  for (const log of logs) expect(follow(log)).to.deep.equal(expected);
}

const joinsArb = fc.array(fc.tuple(fc.nat(), channelArb), { minLength: 1, maxLength: 4 });

describe('the informer, as a property', () => {
  it('gives every subscriber, however late and from whatever callback it joins, a history that adds up to the current store', () => {
    fc.assert(
      fc.property(opsArb(6), joinsArb, (ops, joins) => checkJoins(ops, joins, undefined)),
      { numRuns: 300 },
    );
  });

  it('keeps that promise, and shows each event its own change in its snapshot, when deltas arrive in batches', () => {
    fc.assert(fc.property(opsArb(6), joinsArb, fc.array(fc.nat(), { maxLength: 8 }), checkJoins), { numRuns: 300 });
  });

  it('publishes one snapshot per batch when no key repeats in it', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 30 }), { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        (names, cuts) => {
          const source = new Subject<Input>();
          const informer = informerFromSource<TestPod>(source);
          let snapshots = 0;
          informer.store$.subscribe(() => (snapshots += 1));
          const events = toEvents(
            names.map((n) => ({
              kind: 'upsert',
              type: 'added',
              object: {
                apiVersion: 'v1',
                kind: 'Pod',
                metadata: { name: `p${n}`, namespace: 'a', resourceVersion: '1' },
              },
            })),
          );
          const inputs = batches(events, cuts).filter((batch) => batch.length > 0);
          for (const input of inputs) source.next(input);
          expect(snapshots, 'the initial snapshot, then one per batch').to.equal(1 + inputs.length);
          expect(informer.current().size).to.equal(names.length);
        },
      ),
      { numRuns: 100 },
    );
  });
});
