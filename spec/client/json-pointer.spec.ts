import { expect } from 'chai';
import { escapePointerToken, jsonPointer, recipeChanges, toJsonPatch } from '../../src/client/patch/index.js';

describe('client: JSON Pointers of patch paths', () => {
  it('escapes ~ as ~0 and / as ~1, in that order', () => {
    expect(escapePointerToken('a/b')).to.equal('a~1b');
    expect(escapePointerToken('a~b')).to.equal('a~0b');
    expect(escapePointerToken('~1')).to.equal('~01');
    expect(escapePointerToken('/~')).to.equal('~1~0');
  });

  it('joins keys and array indexes, and gives the empty string for the whole document', () => {
    expect(jsonPointer(['metadata', 'labels', 'app.kubernetes.io/name'])).to.equal(
      '/metadata/labels/app.kubernetes.io~1name',
    );
    expect(jsonPointer(['spec', 'containers', 0, 'image'])).to.equal('/spec/containers/0/image');
    expect(jsonPointer([])).to.equal('');
  });

  it('escapes the label keys a recipe sets', () => {
    const base: { metadata: { name: string; labels: Record<string, string> } } = {
      metadata: { name: 'n', labels: { 'a~b': 'x' } },
    };
    const { operations } = recipeChanges(base, (draft) => {
      draft.metadata.labels['example.com/role'] = 'web';
      delete draft.metadata.labels['a~b'];
    });
    expect(toJsonPatch(operations)).to.deep.equal([
      { op: 'remove', path: '/metadata/labels/a~0b' },
      { op: 'add', path: '/metadata/labels/example.com~1role', value: 'web' },
    ]);
  });

  it('turns a property set to undefined into a remove, and an array item set to undefined into null', () => {
    const base = { a: 1, list: [1, 2] };
    const { operations } = recipeChanges(base, (draft) => {
      (draft as { a?: number }).a = undefined;
      (draft as { b?: number }).b = undefined;
      (draft.list as Array<number | undefined>)[1] = undefined;
    });
    expect(toJsonPatch(operations)).to.have.deep.members([
      { op: 'remove', path: '/a' },
      { op: 'replace', path: '/list/1', value: null },
    ]);
  });

  it('patches a deep-frozen base, as informer stores hold them, without touching it', () => {
    const base = Object.freeze({
      metadata: Object.freeze({ name: 'n', labels: Object.freeze({ a: '1' }) as Record<string, string> }),
    });
    const { result, operations } = recipeChanges(base, (draft) => {
      draft.metadata.labels.b = '2';
    });
    expect(toJsonPatch(operations)).to.deep.equal([{ op: 'add', path: '/metadata/labels/b', value: '2' }]);
    expect(result.metadata.labels).to.deep.equal({ a: '1', b: '2' });
    expect(base.metadata.labels).to.deep.equal({ a: '1' });
  });

  it('rejects a recipe that returns nothing and a base that is a class instance', () => {
    class Model {
      metadata = { name: 'n' };
    }
    expect(() => recipeChanges(new Model(), () => undefined)).to.throw(TypeError, /plain JSON object/);
    expect(() => recipeChanges({ a: 1 }, () => 5 as never)).to.throw(TypeError, /must leave an object/);
  });
});
