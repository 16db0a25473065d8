import type { KubernetesObject } from '@kubernetes/client-node';
import { expect } from 'chai';
import { TestScheduler } from 'rxjs/testing';
import { informer } from '../../src/informer/index.js';
import { matchesShard, splitHashSpace } from '../../src/sharding/index.js';
import type { Store } from '../../src/store/index.js';
import { virtualCluster } from '../../src/testing/index.js';
import { listWatch } from '../../src/watch/index.js';

const CONFIG_MAPS = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const [low, high] = splitHashSpace(2);

function configMaps(prefix: string, count: number): KubernetesObject[] {
  return Array.from({ length: count }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${prefix}-${i}`, namespace: 'default' },
  }));
}

const names = (store: Store<KubernetesObject> | undefined): string[] =>
  [...(store ?? [])].map((o) => o.metadata!.name!).sort();

/** Runs a sharded and an unsharded informer side by side in virtual time, with writes before and after they sync. */
function runSharded(gate: boolean) {
  let sharded: Store<KubernetesObject> | undefined;
  let everything: Store<KubernetesObject> | undefined;
  const warnings: string[] = [];
  const queries: Record<string, string>[] = [];
  const scheduler = new TestScheduler((a, e) => {
    expect(a).to.deep.equal(e);
  });
  scheduler.run(() => {
    const cluster = virtualCluster({ scheduler, featureGates: { ShardedListAndWatch: gate } });
    cluster.seed(configMaps('early', 16));
    const shardedInformer = informer(cluster, CONFIG_MAPS, {
      scheduler,
      namespace: 'default',
      shard: [low!],
      onWarning: (w) => warnings.push(w.text),
    });
    const all = informer(cluster, CONFIG_MAPS, { scheduler, namespace: 'default' });
    const subs = [
      shardedInformer.store$.subscribe((s) => {
        sharded = s;
      }),
      all.store$.subscribe((s) => {
        everything = s;
      }),
    ];
    scheduler.schedule(() => cluster.seed(configMaps('late', 16)), 2_000);
    scheduler.schedule(() => {
      for (const s of subs) s.unsubscribe();
      queries.push(
        ...cluster.requestLog
          .records()
          .filter((r) => r.resource === 'configmaps')
          .map((r) => r.query),
      );
      cluster.close();
    }, 10_000);
  });
  const expected = [...(everything ?? [])].filter((o) => matchesShard([low!], o)).map((o) => o.metadata!.name!);
  return { sharded: names(sharded), everything: names(everything), expected: expected.sort(), warnings, queries };
}

describe('listWatch shard: the server selects where it serves shardSelector, the client filters elsewhere', () => {
  for (const gate of [true, false]) {
    it(`holds exactly the objects of its ranges, listed and watched, with ShardedListAndWatch ${gate ? 'on' : 'off'}`, () => {
      const run = runSharded(gate);
      expect(run.everything).to.have.length(32);
      expect(run.expected.length).to.be.within(1, 31);
      expect(run.sharded).to.deep.equal(run.expected);
      expect(run.sharded.some((n) => n.startsWith('late-'))).to.equal(true);
    });
  }

  it('sends shardSelector, in the normalised form, on the list and on the watch', () => {
    const { queries } = runSharded(true);
    const selector = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";
    const sharded = queries.filter((q) => q['shardSelector'] !== undefined);
    expect(sharded.map((q) => q['shardSelector'])).to.satisfy((all: string[]) => all.every((s) => s === selector));
    expect(sharded.some((q) => q['watch'] === 'true' || q['watch'] === '1')).to.equal(true);
    expect(sharded.some((q) => q['watch'] === undefined)).to.equal(true);
  });

  it('says once, through onWarning, that the server did not serve the selector, and nothing when it did', () => {
    expect(runSharded(true).warnings).to.deep.equal([]);
    const { warnings } = runSharded(false);
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.match(/^rxkube: shardSelector not served \(the list has no metadata\.shardInfo/);
  });

  it('refuses ranges the server would refuse, with its reason: informer at once, listWatch on subscription', () => {
    const bad = [{ field: 'object.metadata.uid' as const, start: '0x0', end: high!.end }];
    const why = 'shard is not a valid shard selector: hexStart must be a 0x-prefixed 16-digit hex value, got "0x0"';
    const scheduler = new TestScheduler(() => undefined);
    const cluster = virtualCluster({ scheduler });
    try {
      expect(() => informer(cluster, CONFIG_MAPS, { shard: bad })).to.throw(RangeError, `informer: ${why}`);
      let failure: unknown;
      listWatch(cluster, CONFIG_MAPS, { shard: bad }).subscribe({ error: (err) => (failure = err) });
      expect(failure).to.be.instanceOf(RangeError).with.property('message').that.contains(`listWatch: ${why}`);
    } finally {
      cluster.close();
    }
  });
});
