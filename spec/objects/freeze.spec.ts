import { expect } from 'chai';
import fc from 'fast-check';
import { deepFreeze, freezeJsonTree } from '../../src/objects/index.js';
import { everythingFrozen } from '../store/fixtures.js';

describe('deepFreeze', () => {
  it('leaves an object unfrozen when a getter below it throws, so a retry throws again instead of passing for done', () => {
    const hostile = {
      metadata: { name: 'a' },
      get spec(): never {
        throw new Error('boom');
      },
    };
    expect(() => deepFreeze(hostile)).to.throw('boom');
    expect(Object.isFrozen(hostile)).to.equal(false);
    expect(() => deepFreeze(hostile)).to.throw('boom');
  });

  it('freezes a cycle and any nesting depth', () => {
    const deep: { next?: unknown } = {};
    let cursor = deep;
    for (let i = 0; i < 5_000; i++) cursor = cursor.next = {};
    const cyclic: { self?: unknown; list: unknown[] } = { list: [] };
    cyclic.self = cyclic;
    cyclic.list.push(cyclic);
    deepFreeze(deep);
    let frozen = 0;
    for (let node: { next?: unknown } | undefined = deep; node !== undefined; node = node.next as typeof node)
      if (Object.isFrozen(node)) frozen += 1;
    expect(frozen).to.equal(5_001);
    expect(everythingFrozen(deepFreeze(cyclic))).to.equal(true);
  });
});

describe('freezeJsonTree', () => {
  it('deep-freezes anything JSON.parse returns and changes nothing in it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        const parsed: unknown = JSON.parse(text);
        // Compared with the parsed tree, not with `text`: V8 can misread escaped keys (nodejs/node#63785).
        const before = JSON.stringify(parsed);
        expect(freezeJsonTree(parsed)).to.equal(parsed);
        expect(everythingFrozen(parsed)).to.equal(true);
        expect(JSON.stringify(parsed)).to.equal(before);
      }),
    );
  });

  it('still freezes a subtree that is shared or frozen already, past any nesting depth, and through a cycle', () => {
    const shared = Object.freeze({ labels: { app: 'web' } });
    const tree = { a: { shared }, b: [shared, { shared: { open: {} } }] };
    expect(everythingFrozen(freezeJsonTree(tree))).to.equal(true);

    let deep: { next?: unknown } = {};
    const top = deep;
    for (let i = 0; i < 5_000; i++) deep = deep.next = {};
    freezeJsonTree(top);
    let frozen = 0;
    for (let node: { next?: unknown } | undefined = top; node !== undefined; node = node.next as typeof node)
      if (Object.isFrozen(node)) frozen += 1;
    expect(frozen).to.equal(5_001);

    const cyclic: { self?: unknown; list: unknown[] } = { list: [{}] };
    cyclic.self = cyclic;
    expect(everythingFrozen(freezeJsonTree(cyclic))).to.equal(true);
  });

  it('passes primitives and null through', () => {
    expect([1, 'a', null, true].map(freezeJsonTree)).to.deep.equal([1, 'a', null, true]);
  });
});
