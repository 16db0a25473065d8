import { expect } from 'chai';
import type { ShardEvent } from '../../src/shards/index.js';
import {
  cluster,
  expectNoKeyRunTwiceAtOnce,
  rangeOfKey,
  replica,
  type Replica,
  type ReplicaOptions,
} from './harness.js';

const RANGES = 4;
const rangeOf = rangeOfKey(RANGES);
/** One key per range, so that every range has a run to hand over. */
const keys = Array.from({ length: 200 }, (_, i) => `default/object-${i}`).filter(
  (key, i, all) => all.findIndex((other) => rangeOf(other) === rangeOf(key)) === i,
);
const options: ReplicaOptions = {
  ranges: RANGES,
  keys,
  leaseDuration: 15_000,
  renewDeadline: 10_000,
  retryPeriod: 2_000,
  resync: 1_000,
};

/** When `who` reported `type` for `range`, or `undefined`. */
function at(who: Replica, range: number, type: 'handover' | 'released' | 'acquired'): number | undefined {
  const event = who.events.find(
    (e: ShardEvent) =>
      (type === 'acquired' ? e.type === 'lease' && e.event.type === 'acquired' : e.type === type) &&
      'range' in e &&
      e.range === range,
  );
  if (event === undefined) return undefined;
  return event.type === 'lease' ? event.event.at : 'at' in event ? event.at : undefined;
}

/**
 * One replica holds every range with a long run in flight in each; a second joins. For each range that moves, the
 * order is: the giver closes it (handover), its run there ends, it releases the Lease, the taker acquires it, and
 * only then does the taker start a run of that range's key.
 */
function handoverOrder(giverOptions: ReplicaOptions): { readonly moved: number; readonly lines: string[] } {
  return cluster(({ scheduler, cluster: c }) => {
    const a = replica(scheduler, c, 'a', { ...giverOptions, runTime: () => 7_000 });
    let b: Replica | undefined;
    scheduler.schedule(() => {
      b = replica(scheduler, c, 'b', { ...options, runTime: () => 7_000 });
    }, 10_000);
    const result = { moved: 0, lines: [] as string[] };
    scheduler.schedule(() => {
      expectNoKeyRunTwiceAtOnce([a, b!]);
      for (let range = 0; range < RANGES; range++) {
        const handover = at(a, range, 'handover');
        if (handover === undefined) continue;
        result.moved += 1;
        const key = keys.find((k) => rangeOf(k) === range)!;
        const giverRunEnd = Math.max(
          ...a.runs.filter((run) => run.key === key && run.start <= handover).map((run) => run.end),
        );
        const released = at(a, range, 'released')!;
        const acquired = at(b!, range, 'acquired')!;
        const takerStart = Math.min(...b!.runs.filter((run) => run.key === key).map((run) => run.start));
        result.lines.push(`${range}: ${[handover, giverRunEnd, released, acquired, takerStart].join(' <= ')}`);
        expect(handover, `range ${range}: the giver's run ended before its handover`).to.be.at.most(giverRunEnd);
        expect(giverRunEnd, `range ${range}: released before its run ended`).to.be.at.most(released);
        expect(released, `range ${range}: taken before the giver released it`).to.be.at.most(acquired);
        expect(acquired, `range ${range}: the taker ran a key before it held the range`).to.be.at.most(takerStart);
      }
      a.kill();
      b!.kill();
    }, 60_000);
    return result;
  });
}

describe('shardLeases: handover order', () => {
  it('closes the range, ends its run, releases the Lease, and only then lets the taker acquire it and start', () => {
    const { moved } = handoverOrder(options);
    expect(moved).to.equal(RANGES / 2);
  });

  it('waits for a run that ignores its abort signal before it releases the range', () => {
    const { moved, lines } = handoverOrder({ ...options, ignoreAbort: true });
    expect(moved).to.equal(RANGES / 2);
    // The giver's runs took 7 s from a start before the handover: the release waited for them.
    for (const line of lines) {
      const [handover, runEnd, released] = line.split(': ')[1]!.split(' <= ').map(Number);
      expect(runEnd! - handover!, line).to.be.greaterThan(0);
      expect(released, line).to.be.at.least(runEnd!);
    }
  });
});
