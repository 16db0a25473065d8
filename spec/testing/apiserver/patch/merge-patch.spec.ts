import { expect } from 'chai';
import fc from 'fast-check';
import { PatchError, applyKubeMergePatch, applyMergePatch } from '../../../../src/testing/apiserver/patch/index.js';
import { sharesStructure } from './aliasing.js';

describe('applyMergePatch', () => {
  // RFC 7386 Appendix A, every row.
  const rows: Array<[unknown, unknown, unknown]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  rows.forEach(([target, patch, expected], i) => {
    it(`produces RFC 7386 appendix result #${i + 1}`, () => {
      expect(applyMergePatch(target, patch)).to.deep.equal(expected);
    });
  });

  it('rejects values JSON cannot carry with a 400 instead of guessing', () => {
    expect(() => applyMergePatch({}, { a: undefined }))
      .to.throw(PatchError)
      .with.property('status', 400);
    expect(() => applyMergePatch({ a: Number.NaN }, {}))
      .to.throw(PatchError)
      .with.property('reason', 'BadRequest');
  });

  it('detects aliasing in its own purity check, so that check can fail', () => {
    const shared = { x: 1 };
    expect(sharesStructure({ a: shared }, { b: shared })).to.equal(true);
  });

  it('treats a __proto__ member as data', () => {
    const patch = JSON.parse('{"__proto__":{"polluted":true}}') as unknown;
    const result = applyMergePatch({}, patch) as Record<string, unknown>;
    expect(Object.getPrototypeOf(result)).to.equal(Object.prototype);
    expect(Object.hasOwn(result, '__proto__')).to.equal(true);
  });

  it('never mutates its inputs and never returns structure shared with them', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 3 }), (target, patch) => {
        const before = JSON.stringify([target, patch]);
        const result = applyMergePatch(target, patch);
        expect(JSON.stringify([target, patch])).to.equal(before);
        expect(sharesStructure(result, target, patch)).to.equal(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe('applyKubeMergePatch', () => {
  it('rejects non-object patches with the strict pre-decode 400 by default', () => {
    for (const [patch, type] of [
      [[1], 'array'],
      ['x', 'string'],
      [1, 'number'],
      [true, 'bool'],
    ] as const) {
      expect(() => applyKubeMergePatch({ a: 1 }, patch))
        .to.throw(
          PatchError,
          `error decoding patch: json: cannot unmarshal ${type} into Go value of type map[string]interface {}`,
        )
        .with.property('status', 400);
    }
  });

  it('rejects null, and scalars when fieldValidation is Ignore, with 400 Invalid JSON Patch', () => {
    expect(() => applyKubeMergePatch({ a: 1 }, null))
      .to.throw(PatchError, 'Invalid JSON Patch')
      .with.property('status', 400);
    for (const patch of [null, 'x', 1, true]) {
      expect(() => applyKubeMergePatch({ a: 1 }, patch, { fieldValidation: 'Ignore' }))
        .to.throw(PatchError, 'Invalid JSON Patch')
        .with.property('reason', 'BadRequest');
    }
    expect(applyKubeMergePatch({ a: 1 }, ['x'], { fieldValidation: 'Ignore' })).to.deep.equal(['x']);
  });

  it('merges object patches like applyMergePatch', () => {
    expect(
      applyKubeMergePatch({ metadata: { labels: { a: '1', b: '2' } } }, { metadata: { labels: { a: null } } }),
    ).to.deep.equal({
      metadata: { labels: { b: '2' } },
    });
  });
});
