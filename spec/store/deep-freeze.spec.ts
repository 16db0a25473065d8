import { expect } from 'chai';
import { deepFreeze } from '../../src/store/deep-freeze.js';
import { everythingFrozen } from './fixtures.js';

describe('deepFreeze', () => {
  it('leaves an object unfrozen when a getter below it throws, so a retry throws again instead of passing for done', () => {
    const hostile = { metadata: { name: 'a' }, get spec(): never { throw new Error('boom'); } };
    expect(() => deepFreeze(hostile)).to.throw('boom');
    expect(Object.isFrozen(hostile)).to.equal(false);
    expect(() => deepFreeze(hostile)).to.throw('boom');
  });

  it('freezes a cycle and any nesting depth', () => {
    const deep: { next?: unknown } = {};
    let cursor = deep;
    for (let i = 0; i < 5_000; i++) cursor = (cursor.next = {});
    const cyclic: { self?: unknown; list: unknown[] } = { list: [] };
    cyclic.self = cyclic;
    cyclic.list.push(cyclic);
    deepFreeze(deep);
    let frozen = 0;
    for (let node: { next?: unknown } | undefined = deep; node !== undefined; node = node.next as typeof node) if (Object.isFrozen(node)) frozen += 1;
    expect(frozen).to.equal(5_001);
    expect(everythingFrozen(deepFreeze(cyclic))).to.equal(true);
  });
});
