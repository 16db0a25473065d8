import { expect } from 'chai';
import fc from 'fast-check';
import { deepFreeze, freezeSharing } from '../../src/store/deep-freeze.js';
import { Store, applyWatchEvents, initialStoreState } from '../../src/store/index.js';
import { everythingFrozen, pod, type TestPod } from './fixtures.js';

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

describe('freezeSharing', () => {
  const json = fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<unknown>;

  it('returns a frozen value deep-equal to what it was given, sharing only parts deep-equal to the previous version', () => {
    fc.assert(fc.property(json, json, (nextValue, prevValue) => {
      const prev = deepFreeze(structuredClone(prevValue));
      const next = structuredClone(nextValue);
      const result = freezeSharing(next, prev);
      expect(result).to.deep.equal(nextValue);
      expect(everythingFrozen(result)).to.equal(true);
      expect(JSON.stringify(prev), 'the previous version is untouched').to.equal(JSON.stringify(prevValue));
    }), { numRuns: 300 });
  });

  it('returns the previous version itself when nothing changed', () => {
    const prev = deepFreeze({ a: [1, { b: 'x' }], c: { d: null } });
    expect(freezeSharing({ a: [1, { b: 'x' }], c: { d: null } }, prev)).to.equal(prev);
  });

  it('shares the unchanged subtrees and strings of an update, and none of what changed', () => {
    const prev = deepFreeze({ metadata: { name: 'web-0123456789', labels: { app: 'web' } }, spec: { containers: [{ image: 'nginx' }] }, status: { phase: 'Pending' } });
    const next = freezeSharing({ metadata: { name: 'web-0123456789', labels: { app: 'web' } }, spec: { containers: [{ image: 'nginx' }] }, status: { phase: 'Running' } }, prev);
    expect(next).to.not.equal(prev);
    expect(next.spec).to.equal(prev.spec);
    expect(next.metadata).to.equal(prev.metadata);
    expect(next.status).to.not.equal(prev.status);
    expect(next.status.phase).to.equal('Running');
  });

  it('freezes class instances and Maps as they are, without comparing them', () => {
    class Box { constructor(readonly value: number) {} }
    const prev = deepFreeze({ box: new Box(1), map: new Map([['k', 1]]) });
    const next = freezeSharing({ box: new Box(1), map: new Map([['k', 1]]) }, prev);
    expect(next.box).to.not.equal(prev.box);
    expect(everythingFrozen(next)).to.equal(true);
  });
});

describe('the store, sharing between versions of an object', () => {
  it('keeps an updated object\'s unchanged parts identical to the cached version\'s', () => {
    const first = { ...pod('a', '1', { labels: { app: 'web' } }), spec: { nodeName: 'n1' } } as TestPod;
    const second = { ...pod('a', '2', { labels: { app: 'web' } }), spec: { nodeName: 'n1' } } as TestPod;
    let state = applyWatchEvents(initialStoreState(Store.empty<TestPod>()), [{ type: 'added', object: first }]).state;
    const step = applyWatchEvents(state, [{ type: 'modified', object: second }]);
    state = step.state;
    const stored = state.store.get('default/a')!;
    expect(stored.metadata!.resourceVersion).to.equal('2');
    expect(stored.spec).to.equal(first.spec);
    expect(stored.metadata!.labels).to.equal(first.metadata!.labels);
    expect(step.changes).to.deep.equal([{ type: 'updated', key: 'default/a', old: first, object: stored }]);
  });
});
