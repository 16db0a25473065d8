import { expect } from 'chai';
import fc from 'fast-check';
import { Subject } from 'rxjs';
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

describe('the informer, as a property', () => {
  it('gives every subscriber, however late it joins, a history that adds up to the current store', () => {
    fc.assert(fc.property(opsArb(6), fc.array(fc.nat(), { minLength: 1, maxLength: 3 }), (ops, joins) => {
      const events: WatchEvent<TestPod>[] = toEvents(ops);
      const source = new Subject<WatchEvent<TestPod>>();
      const informer = informerFromSource<TestPod>(source);
      const logs: InformerEvent<TestPod>[][] = [];
      const subscribeNow = () => {
        const log: InformerEvent<TestPod>[] = [];
        logs.push(log);
        informer.events$.subscribe((event) => log.push(event));
      };
      subscribeNow();
      const joinAt = new Set(joins.map((j) => j % (events.length + 1)));
      events.forEach((event, i) => {
        if (joinAt.has(i)) subscribeNow();
        source.next(event);
      });
      const expected = asMap(informer.current());
      for (const log of logs) expect(follow(log)).to.deep.equal(expected);
    }), { numRuns: 200 });
  });
});
