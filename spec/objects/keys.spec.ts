import { expect } from 'chai';
import fc from 'fast-check';
import {
  MissingNameError,
  groupOfApiVersion,
  hasName,
  joinApiVersion,
  keyFor,
  objectKey,
  splitApiVersion,
} from '../../src/objects/index.js';

describe('objectKey', () => {
  it('keys namespaced objects as namespace/name', () => {
    expect(objectKey({ metadata: { name: 'a', namespace: 'ns' } })).to.equal('ns/a');
  });

  it('keys cluster-scoped objects by name alone', () => {
    expect(objectKey({ metadata: { name: 'node-1' } })).to.equal('node-1');
  });

  it('throws a MissingNameError for an object without a name', () => {
    expect(() => objectKey({ kind: 'Pod', metadata: {} })).to.throw(MissingNameError, /metadata.name/);
  });

  it('agrees with keyFor and hasName for any name and namespace', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.option(fc.string(), { nil: undefined }), (name, namespace) => {
        const object = { metadata: { name, ...(namespace === undefined ? {} : { namespace }) } };
        return hasName(object) && objectKey(object) === keyFor(name, namespace);
      }),
    );
  });

  it('says an object without a usable name has none', () => {
    for (const value of [null, 'pod', {}, { metadata: null }, { metadata: { name: '' } }, { metadata: { name: 7 } }]) {
      expect(hasName(value), JSON.stringify(value)).to.equal(false);
    }
  });
});

describe('apiVersion strings', () => {
  it('splits core and grouped versions and rejects malformed ones, naming them', () => {
    expect(splitApiVersion('v1')).to.deep.equal({ group: '', version: 'v1' });
    expect(splitApiVersion('apps/v1')).to.deep.equal({ group: 'apps', version: 'v1' });
    for (const bad of ['', '/v1', 'a/', 'a/b/c']) expect(() => splitApiVersion(bad)).to.throw(/malformed apiVersion/);
  });

  it('joins what it splits', () => {
    fc.assert(
      fc.property(fc.constantFrom('', 'apps', 'example.com'), fc.constantFrom('v1', 'v1beta2'), (group, version) => {
        const joined = joinApiVersion(group, version);
        const split = splitApiVersion(joined);
        return split.group === group && split.version === version && groupOfApiVersion(joined) === group;
      }),
    );
  });
});
