/**
 * Contract: KEP-5866 `shardSelector` on lists and watches (feature gate `ShardedListAndWatch`, on in both servers):
 * which objects a hash range selects, the normalised `shardInfo` echo, and the 500 for a malformed selector.
 */
import { expect } from 'chai';
import { formatShardSelector, matchesShard, splitHashSpace } from '../../src/sharding/index.js';
import { contractTargets, useConfigMapWatches, useContractSession } from './support/index.js';

/** The error envelope of a plain (non-Status) Go error: 500 and no reason. */
const invalidShard = (why: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: `invalid shard selector: ${why}`,
  code: 500,
});
const shortBound = 'hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)';

for (const target of contractTargets()) {
  describe(`contract (${target.name}): shard selectors`, () => {
    const session = useContractSession(target, 'contract-shard', { featureGates: { ShardedListAndWatch: true } });
    const watches = useConfigMapWatches(session);
    const names = Array.from({ length: 12 }, (_, i) => `shard-${i}`);
    /** name → uid of the ConfigMaps made in `before`. */
    const uids = new Map<string, string>();
    const [low, high] = splitHashSpace(2);
    const lowText = formatShardSelector([low!]);
    const q = (selector: string) => `shardSelector=${encodeURIComponent(selector)}`;
    const expectedIn = (ranges: Parameters<typeof matchesShard>[0]) =>
      names.filter((n) => matchesShard(ranges, { metadata: { uid: uids.get(n)! } })).sort();
    const listNames = (list: any): string[] =>
      (list.items as any[])
        .map((i) => i.metadata.name as string)
        .filter((n) => n.startsWith('shard-'))
        .sort();

    before(async () => {
      for (const name of names) {
        const made = await watches.create(name);
        uids.set(name, made.metadata.uid);
      }
    });

    it('lists only the objects whose uid hashes into the range, and echoes the selector normalised', async () => {
      // Loose spacing and double quotes: the echo is the server's own form.
      const loose = `shardRange( object.metadata.uid , "${low!.start}","${low!.end}" )`;
      const answer = await session().raw('GET', `${watches.path()}?${q(loose)}`);
      expect(answer.status, answer.text).to.equal(200);
      expect(listNames(answer.json)).to.deep.equal(expectedIn([low!]));
      expect(answer.json.metadata.shardInfo).to.deep.equal({ selector: lowText });
    });

    it('splits the collection into disjoint ranges whose union is all of it', async () => {
      const a = await session().raw('GET', `${watches.path()}?${q(lowText)}`);
      const b = await session().raw('GET', `${watches.path()}?${q(formatShardSelector([high!]))}`);
      const both = [...listNames(a.json), ...listNames(b.json)].sort();
      expect(both).to.deep.equal([...names].sort());
    });

    it('selects the || of ranges and echoes them in the order written', async () => {
      const ranges = splitHashSpace(4);
      const text = formatShardSelector([ranges[3]!, ranges[0]!]);
      const answer = await session().raw('GET', `${watches.path()}?${q(text)}`);
      expect(answer.status, answer.text).to.equal(200);
      expect(listNames(answer.json)).to.deep.equal(expectedIn([ranges[0]!, ranges[3]!]));
      expect(answer.json.metadata.shardInfo).to.deep.equal({ selector: text });
    });

    it('pages a sharded list, each page echoing the selector', async () => {
      const seen: string[] = [];
      let token = '';
      for (let page = 0; page < 20; page++) {
        const cont = token === '' ? '' : `&continue=${encodeURIComponent(token)}`;
        const answer = await session().raw('GET', `${watches.path()}?limit=2&${q(lowText)}${cont}`);
        expect(answer.status, answer.text).to.equal(200);
        expect(answer.json.metadata.shardInfo).to.deep.equal({ selector: lowText });
        seen.push(...listNames(answer.json));
        token = answer.json.metadata.continue ?? '';
        if (token === '') break;
      }
      expect(seen.sort()).to.deep.equal(expectedIn([low!]));
    });

    it('hashes metadata.namespace on request: one namespace falls wholly in one range', async () => {
      const byNamespace = splitHashSpace(2, 'object.metadata.namespace');
      const home = byNamespace.find((r) => matchesShard([r], { metadata: { namespace: session().namespace } }))!;
      const away = byNamespace.find((r) => r !== home)!;
      const inHome = await session().raw('GET', `${watches.path()}?${q(formatShardSelector([home]))}`);
      const inAway = await session().raw('GET', `${watches.path()}?${q(formatShardSelector([away]))}`);
      expect(listNames(inHome.json)).to.deep.equal([...names].sort());
      expect(listNames(inAway.json)).to.deep.equal([]);
    });

    it('ignores an empty shardSelector: the whole list, no shardInfo', async () => {
      const answer = await session().raw('GET', `${watches.path()}?shardSelector=`);
      expect(answer.status, answer.text).to.equal(200);
      expect(listNames(answer.json)).to.deep.equal([...names].sort());
      expect(answer.json.metadata).to.not.have.property('shardInfo');
    });

    it('answers a list with a short bound with 500 invalid shard selector and the parser message', async () => {
      const answer = await session().raw(
        'GET',
        `${watches.path()}?${q(`shardRange(object.metadata.uid, '0x0', '0x8000000000000000')`)}`,
      );
      expect(answer.status, answer.text).to.equal(500);
      expect(answer.json).to.deep.equal(invalidShard(shortBound));
    });

    it('answers a whitespace-only shardSelector with 500: only the empty string is ignored', async () => {
      const answer = await session().raw('GET', `${watches.path()}?shardSelector=%20`);
      expect(answer.status, answer.text).to.equal(500);
      expect(answer.json).to.deep.equal(
        invalidShard('empty shard selector is not allowed; omit the parameter for unfiltered lists'),
      );
    });

    it('answers a watch with a malformed selector with the same 500, before any event', async () => {
      const answer = await session().raw(
        'GET',
        `${watches.path()}?watch=1&${q(`shardRange(object.metadata.uid, '0x0', '0x8000000000000000')`)}`,
      );
      expect(answer.status, answer.text).to.equal(500);
      expect(answer.json).to.deep.equal(invalidShard(shortBound));
    });

    it('answers a selector over an unsupported field with the server message', async () => {
      const answer = await session().raw(
        'GET',
        `${watches.path()}?${q(`shardRange(object.metadata.name, '${low!.start}', '${low!.end}')`)}`,
      );
      expect(answer.status, answer.text).to.equal(500);
      expect(answer.json).to.deep.equal(
        invalidShard(
          'unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace',
        ),
      );
    });

    it('watches only the range: initial ADDED events and later writes outside it never arrive', async () => {
      const opened = await watches.watch(
        `${q(lowText)}&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan`,
      );
      await opened.next(
        (e) => e.type === 'BOOKMARK' && e.object?.metadata?.annotations?.['k8s.io/initial-events-end'] === 'true',
      );
      const initial = opened.events
        .filter((e) => e.type === 'ADDED')
        .map((e) => e.object.metadata.name as string)
        .filter((n) => n.startsWith('shard-'))
        .sort();
      expect(initial).to.deep.equal(expectedIn([low!]));
      // New objects until one fell outside the range and the last one inside it: the last one's ADDED then bounds
      // the stream (events come in resourceVersion order), so every outside one had its chance to show up.
      const late: { name: string; inside: boolean }[] = [];
      for (let i = 0; i < 60 && !(late.some((l) => !l.inside) && late.at(-1)?.inside === true); i++) {
        const made = await watches.create(`late-${i}`);
        late.push({ name: made.metadata.name, inside: matchesShard([low!], made) });
      }
      await opened.next((e) => e.type === 'ADDED' && e.object?.metadata?.name === late.at(-1)!.name);
      const added = opened.events
        .filter((e) => e.type === 'ADDED' && String(e.object?.metadata?.name).startsWith('late-'))
        .map((e) => e.object.metadata.name as string);
      expect(added).to.deep.equal(late.filter((l) => l.inside).map((l) => l.name));
    });

    it('deletes only the shard on a DELETE of the collection with a shardSelector (the registry lists through it)', async () => {
      const made: { name: string; uid: string }[] = [];
      for (let i = 0; i < 8; i++) {
        const cm = await watches.create(`doomed-${i}`, { labels: { batch: 'doomed' } });
        made.push({ name: cm.metadata.name, uid: cm.metadata.uid });
      }
      const inLow = (m: { uid: string }) => matchesShard([low!], { metadata: { uid: m.uid } });
      const answer = await session().raw('DELETE', `${watches.path()}?labelSelector=batch%3Ddoomed&${q(lowText)}`);
      expect(answer.status, answer.text).to.equal(200);
      expect((answer.json.items as any[]).map((i) => i.metadata.name).sort()).to.deep.equal(
        made
          .filter(inLow)
          .map((m) => m.name)
          .sort(),
      );
      const left = await session().raw('GET', `${watches.path()}?labelSelector=batch%3Ddoomed`);
      expect((left.json.items as any[]).map((i) => i.metadata.name).sort()).to.deep.equal(
        made
          .filter((m) => !inLow(m))
          .map((m) => m.name)
          .sort(),
      );
      expect(answer.json.metadata.shardInfo).to.deep.equal({ selector: lowText });
    });

    it('lists metadata-only with the shard applied but no shardInfo', async () => {
      const answer = await session().raw('GET', `${watches.path()}?${q(lowText)}`, {
        accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
      });
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.json.kind).to.equal('PartialObjectMetadataList');
      expect(listNames(answer.json)).to.deep.equal(expectedIn([low!]));
      // The handler builds the metadata list anew, copying resourceVersion, continue and remainingItemCount only.
      expect(answer.json.metadata).to.not.have.property('shardInfo');
    });
  });
}
