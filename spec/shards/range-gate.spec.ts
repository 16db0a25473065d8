import { expect } from 'chai';
import { splitHashSpace } from '../../src/sharding/index.js';
import { KeyRanges, RangeGate, rangeIndex } from '../../src/shards/index.js';

describe('shards: keys to ranges', () => {
  it('finds the range of a hash by its bounds, first and last included', () => {
    const bounds = splitHashSpace(4);
    expect(rangeIndex(bounds, '0x0000000000000000')).to.equal(0);
    expect(rangeIndex(bounds, '0x3fffffffffffffff')).to.equal(0);
    expect(rangeIndex(bounds, '0x4000000000000000')).to.equal(1);
    expect(rangeIndex(bounds, '0xffffffffffffffff')).to.equal(3);
  });

  it('places a key by its namespace without any cache, every key of a namespace in one range', () => {
    const keys = new KeyRanges('object.metadata.namespace', splitHashSpace(16));
    expect(keys.rangeOf('team-a/one')).to.equal(keys.rangeOf('team-a/two'));
    expect(keys.rangeOf('cluster-scoped')).to.equal(keys.rangeOf('/x'));
  });

  it("places a key by its object's uid, keeps a deleted key's uid, and places no key it never cached", () => {
    const keys = new KeyRanges('object.metadata.uid', splitHashSpace(16));
    const objects = new Map([['default/a', { metadata: { uid: 'uid-a' } }]]);
    keys.attach({ current: () => objects, events$: undefined as never });
    const placed = keys.rangeOf('default/a');
    expect(placed).to.be.a('number');
    expect(keys.rangeOf('default/unknown')).to.equal(undefined);
    objects.delete('default/a');
    keys.observe({ type: 'deleted', key: 'default/a', object: { metadata: { uid: 'uid-a' } } });
    expect(keys.rangeOf('default/a')).to.equal(placed);
    keys.observe({ type: 'added', key: 'default/a' });
    expect(keys.rangeOf('default/a')).to.equal(undefined);
  });
});

describe('shards: the range gate', () => {
  it('opens the keys of the open ranges only, and says so on changed$ when the ranges change', () => {
    const gate = new RangeGate((key) => Number(key), 4);
    const changes: unknown[] = [];
    gate.changed$.subscribe((change) => changes.push(change));
    gate.setOpen([1, 2]);
    gate.setOpen([2, 1]);
    expect(['0', '1', '2', '3'].map((key) => gate.isOpen(key))).to.deep.equal([false, true, true, false]);
    expect(changes).to.deep.equal([undefined]);
    gate.keyChanged('1');
    gate.keyChanged('3');
    expect(changes).to.deep.equal([undefined, '1']);
  });

  it('counts the runs in flight per range by the range they started in, and says when a range drained', () => {
    let range = 1;
    const gate = new RangeGate(() => range, 4);
    gate.setOpen([1]);
    gate.metrics.started!('k', 0, 0);
    range = 2; // the key moved: its run still counts where it started
    gate.metrics.started!('k', 0, 0);
    expect(gate.inFlight()).to.deep.equal([0, 2, 0, 0]);
    const drained: number[] = [];
    gate.drained(1).subscribe(() => drained.push(1));
    gate.drained(3).subscribe(() => drained.push(3));
    expect(drained).to.deep.equal([3]);
    gate.metrics.done!('k', 1);
    gate.metrics.done!('k', 1);
    expect(drained).to.deep.equal([3, 1]);
    expect(gate.inFlight()).to.deep.equal([0, 0, 0, 0]);
  });
});
