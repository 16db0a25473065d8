import { expect } from 'chai';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { BehaviorSubject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { shardHash, splitHashSpace } from '../../src/sharding/index.js';
import { rangeIndex, rangeSelectedInformer } from '../../src/shards/index.js';
import { virtualCluster } from '../../src/testing/index.js';

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const bounds = splitHashSpace(4);

describe('shards: the range-selected informer', () => {
  it('lists only the ranges it is given, again when they change, and says a range is listed only once its objects are stored', () => {
    const seen: string[] = [];
    const scheduler = new TestScheduler((actual, expected) => void expect(actual).to.deep.equal(expected));
    scheduler.run(({ flush }) => {
      const cluster = virtualCluster({ scheduler, featureGates: { ShardedListAndWatch: true } });
      cluster.seed(
        Array.from({ length: 40 }, (_, i) => ({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `cm-${i}`, namespace: 'default' },
        })),
      );
      const rangeOf = (object: V1ConfigMap): number => rangeIndex(bounds, shardHash(object));
      const ranges$ = new BehaviorSubject<readonly number[]>([1]);
      const informer = rangeSelectedInformer<V1ConfigMap>(
        cluster,
        CONFIG_MAP,
        { scheduler },
        bounds,
        ranges$,
        (ranges) => {
          const stored = [...informer.current().values()].map(rangeOf);
          const all = cluster.list(CONFIG_MAP, 'default') as V1ConfigMap[];
          const expected = all.filter((object) => ranges.includes(rangeOf(object))).length;
          seen.push(
            `${scheduler.now()} listed [${ranges.join(',')}]: ${stored.length} of ${expected}, ranges ${[...new Set(stored)].sort().join(',')}`,
          );
        },
      );
      const subscription = informer.events$.subscribe();
      scheduler.schedule(() => ranges$.next([1, 3]), 1_000);
      scheduler.schedule(() => ranges$.next([]), 2_000);
      scheduler.schedule(() => subscription.unsubscribe(), 3_000);
      flush();
      cluster.close();
    });
    expect(seen).to.have.length(3);
    const [one, two, none] = seen.map((line) => line.replace(/^\d+ /, ''));
    expect(one).to.match(/^listed \[1\]: (\d+) of \1, ranges 1$/);
    expect(two).to.match(/^listed \[1,3\]: (\d+) of \1, ranges 1,3$/);
    expect(none).to.equal('listed []: 0 of 0, ranges ');
  });
});
