/**
 * Contract: which BOOKMARKs a streaming list (`sendInitialEvents=true`) carries before the end of its initial
 * events. The reflector takes a bookmark without the `k8s.io/initial-events-end` annotation during that phase as
 * proof that the server does not serve streaming lists (it falls back to list and watch), so it matters that the
 * reference server never sends one there, however long the phase and whatever writes race it.
 */
import { expect } from 'chai';
import {
  contractTargets,
  suffix,
  useConfigMapWatches,
  useContractSession,
  type WatchEventLine,
} from './support/index.js';

const END = 'k8s.io/initial-events-end';
const isEnd = (event: WatchEventLine): boolean =>
  event.type === 'BOOKMARK' && event.object?.metadata?.annotations?.[END] === 'true';

for (const target of contractTargets()) {
  describe(`contract (${target.name}): streaming list bookmarks`, () => {
    const session = useContractSession(target, 'contract-watchlist');
    const { watch, create, currentRv } = useConfigMapWatches(session);

    it('sends no BOOKMARK before the initial-events-end one, with 300 objects and writes racing the initial phase', async function () {
      this.timeout(120_000);
      const set = suffix();
      for (let batch = 0; batch < 10; batch += 1) {
        await Promise.all(Array.from({ length: 30 }, (_, i) => create(`w${batch}-${i}-${set}`, { labels: { set } })));
      }
      let racing = true;
      const writes = (async () => {
        for (let i = 0; racing && i < 40; i += 1) await create(`race-${i}-${set}`, { labels: { set } });
      })();
      const stream = await watch(
        `sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=set%3D${set}`,
      );
      const end = await stream.next(isEnd, 60_000);
      racing = false;
      await writes;
      const initial = stream.events.slice(0, stream.events.indexOf(end));
      expect(initial.filter((e) => e.type === 'BOOKMARK')).to.deep.equal([]);
      expect(initial.every((e) => e.type === 'ADDED')).to.equal(true);
      expect(initial.length).to.be.at.least(300);
    });

    it('sends no BOOKMARK before the initial-events-end one when the list starts not older than a given resourceVersion', async function () {
      this.timeout(60_000);
      const set = suffix();
      await create(`nb-${set}`, { labels: { set } });
      const from = await currentRv();
      const stream = await watch(
        `sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=${from}&allowWatchBookmarks=true&timeoutSeconds=5&labelSelector=set%3D${set}`,
      );
      const end = await stream.next(isEnd, 30_000);
      expect(stream.events.slice(0, stream.events.indexOf(end)).map((e) => e.type)).to.deep.equal(['ADDED']);
      expect(BigInt(end.object.metadata.resourceVersion) >= BigInt(from)).to.equal(true);
      // After the end, bookmarks are ordinary ones: none of them carries the annotation again.
      const other = await session().raw('POST', '/api/v1/namespaces/default/configmaps', {
        body: { metadata: { generateName: 'contract-watchlist-' } },
      });
      await stream.closed;
      const after = stream.events.slice(stream.events.indexOf(end) + 1);
      expect(after.filter(isEnd)).to.deep.equal([]);
      await session().raw('DELETE', `/api/v1/namespaces/default/configmaps/${other.json.metadata.name}`);
    });
  });
}
