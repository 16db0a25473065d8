import { expect } from 'chai';
import fc from 'fast-check';
import { Subject, type Observable } from 'rxjs';
import type { WatchEvent } from '../../src/watch/index.js';
import { informerFromSource, type InformerEvent } from '../../src/informer/index.js';
import type { Store } from '../../src/store/index.js';
import type { TestPod } from '../store/fixtures.js';
import { opsArb, toEvents } from '../store/arbitraries.js';

/** Replays informer events onto a Map, failing on any event that contradicts what the subscriber saw before. */
function follow(events: InformerEvent<TestPod>[]): Map<string, TestPod> {
  const view = new Map<string, TestPod>();
  for (const event of events) {
    if (event.type === 'added') expect(view.has(event.key), `duplicate added ${event.key}`).to.equal(false);
    if (event.type === 'updated') expect(view.get(event.key), `gap before updated ${event.key}`).to.equal(event.old);
    if (event.type === 'deleted') expect(view.has(event.key), `gap before deleted ${event.key}`).to.equal(true);
    if (event.type === 'deleted') view.delete(event.key);
    else view.set(event.key, event.object);
  }
  return view;
}

const asMap = (store: Store<TestPod>) => new Map(store.entries());

type Channel = 'top' | 'events$' | 'store$' | 'synced$' | 'status$';
const channelArb = fc.constantFrom<Channel>('top', 'events$', 'store$', 'synced$', 'status$');

describe('the informer, as a property', () => {
  it('gives every subscriber, however late and from whatever callback it joins, a history that adds up to the current store', () => {
    fc.assert(fc.property(opsArb(6), fc.array(fc.tuple(fc.nat(), channelArb), { minLength: 1, maxLength: 4 }), (ops, joins) => {
      // A status before every delta, so that status$ callbacks fire between deltas as they do in production.
      const events: WatchEvent<TestPod>[] = toEvents(ops).flatMap((event, i) => [
        { type: 'status', status: { state: 'watching', resourceVersion: String(i) } } as const,
        event,
      ]);
      const source = new Subject<WatchEvent<TestPod>>();
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
        const index = at % (events.length + 1);
        plan.set(index, [...(plan.get(index) ?? []), channel]);
      }
      events.forEach((event, i) => {
        for (const channel of plan.get(i) ?? []) {
          if (channel === 'top') subscribeNow();
          else joinInside(channel);
        }
        source.next(event);
      });
      const expected = asMap(informer.current());
      for (const log of logs) expect(follow(log)).to.deep.equal(expected);
    }), { numRuns: 300 });
  });
});
