import { expect } from 'chai';
import { fairShare, surplus } from '../../src/shards/index.js';
import { cluster, expectFairlyAssigned, expectNoKeyRunTwiceAtOnce, replica, type ReplicaOptions } from './harness.js';

const keys = Array.from({ length: 40 }, (_, i) => `default/object-${i}`);
const options: ReplicaOptions = {
  ranges: 8,
  keys,
  leaseDuration: 15_000,
  renewDeadline: 10_000,
  retryPeriod: 2_000,
};

describe('shardLeases: fair shares', () => {
  it('gives each member floor(ranges / members) or one more, the first members in sorted order one more', () => {
    expect(['a', 'b', 'c'].map((who) => fairShare(16, ['a', 'b', 'c'], who))).to.deep.equal([6, 5, 5]);
    expect(fairShare(16, [], 'a')).to.equal(16);
    expect(fairShare(2, ['a', 'b', 'c'], 'c')).to.equal(0);
  });

  it('gives up the highest ranges first when over its share', () => {
    expect(surplus([3, 1, 7, 5], 2)).to.deep.equal([7, 5]);
    expect(surplus([3], 2)).to.deep.equal([]);
  });
});

describe('shardLeases: assignment and handover', () => {
  it('lets one replica take every range, and splits them fairly once two more join', () => {
    cluster(({ scheduler, cluster: c }) => {
      const a = replica(scheduler, c, 'a', options);
      scheduler.schedule(() => expectFairlyAssigned([a], 8), 10_000);
      const later: ReturnType<typeof replica>[] = [];
      scheduler.schedule(() => {
        later.push(replica(scheduler, c, 'b', options), replica(scheduler, c, 'c', options));
      }, 20_000);
      scheduler.schedule(() => {
        expectFairlyAssigned([a, ...later], 8);
        expectNoKeyRunTwiceAtOnce([a, ...later]);
        for (const r of [a, ...later]) r.kill();
      }, 60_000);
    });
  });

  it('moves the ranges of a stopped replica to the others without ever running a key twice at once', () => {
    cluster(({ scheduler, cluster: c }) => {
      const replicas = ['a', 'b', 'c'].map((who) => replica(scheduler, c, who, { ...options, runTime: () => 700 }));
      scheduler.schedule(() => replicas[1]!.stop(), 40_000);
      scheduler.schedule(() => {
        expectFairlyAssigned([replicas[0]!, replicas[2]!], 8);
        expect(replicas[1]!.current()).to.equal(undefined);
        expectNoKeyRunTwiceAtOnce(replicas);
        for (const r of replicas) r.kill();
      }, 70_000);
    });
  });

  it('moves the ranges of a killed replica within a lease duration and a few retry periods', () => {
    cluster(({ scheduler, cluster: c }) => {
      const replicas = ['a', 'b', 'c'].map((who) => replica(scheduler, c, who, options));
      scheduler.schedule(() => replicas[0]!.kill(), 40_000);
      scheduler.schedule(
        () => {
          expectFairlyAssigned([replicas[1]!, replicas[2]!], 8);
          expectNoKeyRunTwiceAtOnce(replicas);
          for (const r of replicas) r.kill();
        },
        40_000 + 15_000 + 3 * 2_000 + 1_000,
      );
    });
  });
});
