import { expect } from 'chai';
import fc from 'fast-check';
import { GENERIC_422_MESSAGE, PatchError, applyJsonPatch } from '../../../../src/testing/apiserver/patch/index.js';
import { sharesStructure } from './aliasing.js';

function rejection(target: unknown, ops: unknown): PatchError {
  try {
    applyJsonPatch(target, ops);
  } catch (err) {
    expect(err).to.be.instanceOf(PatchError);
    return err as PatchError;
  }
  throw new Error('expected the patch to be rejected');
}

function expect422(target: unknown, ops: unknown, detail: string): void {
  const err = rejection(target, ops);
  expect({ status: err.status, reason: err.reason, message: err.message, detail: err.detail }).to.deep.equal({
    status: 422,
    reason: 'Invalid',
    message: GENERIC_422_MESSAGE,
    detail,
  });
}

describe('applyJsonPatch: RFC 6902 appendix A', () => {
  it('A.1 adds an object member', () => {
    expect(applyJsonPatch({ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }])).to.deep.equal({
      baz: 'qux',
      foo: 'bar',
    });
  });
  it('A.2 adds an array element', () => {
    expect(applyJsonPatch({ foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }])).to.deep.equal({
      foo: ['bar', 'qux', 'baz'],
    });
  });
  it('A.3 removes an object member', () => {
    expect(applyJsonPatch({ baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }])).to.deep.equal({ foo: 'bar' });
  });
  it('A.4 removes an array element', () => {
    expect(applyJsonPatch({ foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }])).to.deep.equal({
      foo: ['bar', 'baz'],
    });
  });
  it('A.5 replaces a value', () => {
    expect(applyJsonPatch({ baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }])).to.deep.equal({
      baz: 'boo',
      foo: 'bar',
    });
  });
  it('A.6 moves a value', () => {
    const doc = { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } };
    expect(applyJsonPatch(doc, [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }])).to.deep.equal({
      foo: { bar: 'baz' },
      qux: { corge: 'grault', thud: 'fred' },
    });
  });
  it('A.7 moves an array element', () => {
    expect(
      applyJsonPatch({ foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }]),
    ).to.deep.equal({
      foo: ['all', 'cows', 'eat', 'grass'],
    });
  });
  it('A.8 passes tests of equal values', () => {
    const doc = { baz: 'qux', foo: ['a', 2, 'c'] };
    expect(
      applyJsonPatch(doc, [
        { op: 'test', path: '/baz', value: 'qux' },
        { op: 'test', path: '/foo/1', value: 2 },
      ]),
    ).to.deep.equal(doc);
  });
  it('A.9 fails a test of a different value with 422', () => {
    expect422({ baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }], 'testing value /baz failed: test failed');
  });
  it('A.10 adds a nested member object', () => {
    expect(applyJsonPatch({ foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }])).to.deep.equal({
      foo: 'bar',
      child: { grandchild: {} },
    });
  });
  it('A.11 ignores unrecognized members of an operation', () => {
    expect(applyJsonPatch({ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }])).to.deep.equal({
      foo: 'bar',
      baz: 'qux',
    });
  });
  it('A.12 rejects adding below a nonexistent target with 422', () => {
    expect422(
      { foo: 'bar' },
      [{ op: 'add', path: '/baz/bat', value: 'qux' }],
      'add operation does not apply: doc is missing path: "/baz/bat": missing value',
    );
  });
  it('A.14 decodes ~01 as ~1, not as /', () => {
    expect(applyJsonPatch({ '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: 10 }])).to.deep.equal({
      '/': 9,
      '~1': 10,
    });
  });
  it('A.15 does not equate the string "10" with the number 10', () => {
    expect422(
      { '/': 9, '~1': 10 },
      [{ op: 'test', path: '/~01', value: '10' }],
      'testing value /~01 failed: test failed',
    );
  });
  it('A.16 appends an array value with -', () => {
    expect(applyJsonPatch({ foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }])).to.deep.equal({
      foo: ['bar', ['abc', 'def']],
    });
  });
  // A.13 (a duplicate "op" member) cannot be expressed once the body is parsed into a JS value.
});

describe('applyJsonPatch: kube-apiserver behaviour', () => {
  it('copies values, addressing keys with ~1 escapes', () => {
    const doc = { metadata: { annotations: { 'a/b': 'x' } } };
    expect(
      applyJsonPatch(doc, [{ op: 'copy', from: '/metadata/annotations/a~1b', path: '/metadata/annotations/c' }]),
    ).to.deep.equal({
      metadata: { annotations: { 'a/b': 'x', c: 'x' } },
    });
  });

  it('rejects a patch that is not a list of objects with 400 and the strict pre-decode message by default', () => {
    const notList = rejection({}, { op: 'add' });
    expect([notList.status, notList.reason, notList.message]).to.deep.equal([
      400,
      'BadRequest',
      'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp',
    ]);
    expect(rejection({}, ['add']).message).to.equal(
      'error decoding patch: json: cannot unmarshal string into Go value of type handlers.jsonPatchOp',
    );
    expect(rejection({}, [{ op: 'add', path: 5 }]).message).to.equal(
      'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.path of type string',
    );
  });

  it("uses jsonpatch.DecodePatch's messages when fieldValidation is Ignore", () => {
    expect(() => applyJsonPatch({}, { op: 'add' }, { fieldValidation: 'Ignore' }))
      .to.throw(PatchError, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch')
      .with.property('status', 400);
    expect(() => applyJsonPatch({}, [1], { fieldValidation: 'Ignore' })).to.throw(
      PatchError,
      'json: cannot unmarshal number into Go value of type jsonpatch.Operation',
    );
  });

  it('rejects removing a missing member, a bad index and an unknown op with 422', () => {
    expect422(
      { a: {} },
      [{ op: 'remove', path: '/a/b' }],
      "error in remove for path: '/a/b': Unable to remove nonexistent key: b: missing value",
    );
    expect422(
      { a: [1] },
      [{ op: 'add', path: '/a/5', value: 1 }],
      "error in add for path: '/a/5': Unable to access invalid index: 5: invalid index referenced",
    );
    expect422({ a: 1 }, [{ op: 'frob', path: '/a' }], 'Unexpected kind: frob');
    expect422(
      { a: 1 },
      [{ op: 'add', value: 1 }],
      'add operation failed to decode path: operation missing path field: missing value',
    );
  });

  it('keeps evanphx v4 quirks: replace adds a missing member and test of a missing member against null passes', () => {
    expect(applyJsonPatch({}, [{ op: 'replace', path: '/a', value: 1 }])).to.deep.equal({ a: 1 });
    expect(applyJsonPatch({}, [{ op: 'test', path: '/a', value: null }])).to.deep.equal({});
    expect422({}, [{ op: 'test', path: '/a', value: 1 }], 'testing value /a failed: test failed');
  });

  it('supports negative array indices as evanphx v4 does', () => {
    expect(applyJsonPatch({ a: [1, 2, 3] }, [{ op: 'remove', path: '/a/-1' }])).to.deep.equal({ a: [1, 2] });
  });

  it('is atomic: a failing later operation leaves no partial result and the input untouched', () => {
    const doc = { a: 1 };
    expect422(
      doc,
      [
        { op: 'replace', path: '/a', value: 2 },
        { op: 'test', path: '/a', value: 3 },
      ],
      'testing value /a failed: test failed',
    );
    expect(doc).to.deep.equal({ a: 1 });
  });

  it('treats a null patch as no operations, like Go decoding null into a slice', () => {
    expect(applyJsonPatch({ a: 1 }, null)).to.deep.equal({ a: 1 });
  });

  it('never mutates its inputs and never returns structure shared with them', () => {
    const ops = fc.array(
      fc.record({
        op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test'),
        path: fc.constantFrom('/a', '/a/0', '/a/-', '/b', '/b/c', '/x'),
        from: fc.constantFrom('/a', '/a/0', '/b'),
        value: fc.jsonValue({ maxDepth: 2 }),
      }),
      { maxLength: 4 },
    );
    fc.assert(
      fc.property(
        fc.record({ a: fc.array(fc.integer(), { maxLength: 3 }), b: fc.dictionary(fc.string(), fc.integer()) }),
        ops,
        (doc, patch) => {
          const before = JSON.stringify([doc, patch]);
          try {
            expect(sharesStructure(applyJsonPatch(doc, patch), doc, patch)).to.equal(false);
          } catch (err) {
            expect(err).to.be.instanceOf(PatchError);
          }
          expect(JSON.stringify([doc, patch])).to.equal(before);
        },
      ),
      { numRuns: 300 },
    );
  });
});
