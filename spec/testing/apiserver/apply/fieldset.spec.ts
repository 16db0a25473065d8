import { expect } from 'chai';
import fc from 'fast-check';
import { FieldSet } from '../../../../src/testing/apiserver/apply/index.js';
import {
  fieldElement,
  keyElement,
  pathToString,
  type Path,
  type PathElement,
} from '../../../../src/testing/apiserver/apply/path.js';
import { managerFromUserAgent } from '../../../../src/testing/apiserver/apply/index.js';
import { expectBackslashKeys, parseJson } from '../../../../src/transport/index.js';

const element: fc.Arbitrary<PathElement> = fc.oneof(
  fc.constantFrom('a', 'b', 'spec', 'metadata', 'x.y', 'with space').map(fieldElement),
  fc
    .record({ name: fc.constantFrom('n1', 'n2'), port: fc.integer({ min: 0, max: 3 }) })
    .map((k) => keyElement(Object.entries(k))),
  fc
    .oneof(fc.string({ maxLength: 4 }), fc.integer({ min: -2, max: 5 }), fc.boolean())
    .map((value): PathElement => ({ kind: 'value', value })),
  fc.nat({ max: 3 }).map((index): PathElement => ({ kind: 'index', index })),
);
const path: fc.Arbitrary<Path> = fc.array(element, { minLength: 1, maxLength: 4 });
const paths = fc.array(path, { maxLength: 12 });

const key = (p: Path) => pathToString(p) + JSON.stringify(p);
const model = (ps: readonly Path[]) => new Set(ps.map(key));
const members = (set: FieldSet) => new Set(set.paths().map(key));

describe('FieldSet (structured-merge-diff fieldpath.Set)', () => {
  // Value elements hold backslashes and quotes, which fast-check writes into keys outside parseJson.
  before(() => expectBackslashKeys());

  it('reads back exactly what it writes in FieldsV1 form', () => {
    fc.assert(
      fc.property(paths, (ps) => {
        const set = FieldSet.of(ps);
        const again = FieldSet.fromFieldsV1(parseJson(JSON.stringify(set.toFieldsV1())) as Record<string, unknown>);
        expect(again.equals(set)).to.equal(true);
        expect(members(again)).to.deep.equal(model(ps));
      }),
    );
  });

  it('unions, intersects and subtracts member paths as sets do', () => {
    fc.assert(
      fc.property(paths, paths, (a, b) => {
        const sa = FieldSet.of(a);
        const sb = FieldSet.of(b);
        const ma = model(a);
        const mb = model(b);
        expect(members(sa.union(sb))).to.deep.equal(new Set([...ma, ...mb]));
        expect(members(sa.intersection(sb))).to.deep.equal(new Set([...ma].filter((p) => mb.has(p))));
        expect(members(sa.difference(sb))).to.deep.equal(new Set([...ma].filter((p) => !mb.has(p))));
      }),
    );
  });

  it('removes everything below a member with recursiveDifference', () => {
    const set = FieldSet.of([
      [fieldElement('spec'), fieldElement('a')],
      [fieldElement('status'), fieldElement('b')],
    ]);
    const left = set.recursiveDifference(FieldSet.of([[fieldElement('status')]]));
    expect(left.toFieldsV1()).to.deep.equal({ 'f:spec': { 'f:a': {} } });
  });

  it('writes members and children in kube-apiserver\'s order, with "." for a member that has children', () => {
    const set = FieldSet.of([
      [fieldElement('data')],
      [fieldElement('data'), fieldElement('k')],
      [fieldElement('spec'), fieldElement('containers'), keyElement([['name', 'app']])],
      [fieldElement('spec'), fieldElement('containers'), keyElement([['name', 'app']]), fieldElement('image')],
      [fieldElement('finalizers'), { kind: 'value', value: 'a/b' }],
    ]);
    expect(JSON.stringify(set.toFieldsV1())).to.equal(
      '{"f:data":{".":{},"f:k":{}},"f:finalizers":{"v:\\"a/b\\"":{}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"app\\"}":{".":{},"f:image":{}}}}}',
    );
  });

  it('prints conflict paths as SMD does', () => {
    expect(
      pathToString([
        fieldElement('spec'),
        fieldElement('ports'),
        keyElement([
          ['port', 80],
          ['protocol', 'TCP'],
        ]),
        fieldElement('name'),
      ]),
    ).to.equal('.spec.ports[port=80,protocol="TCP"].name');
    expect(pathToString([fieldElement('finalizers'), { kind: 'value', value: 'x' }])).to.equal('.finalizers[="x"]');
  });

  it('refuses a malformed FieldsV1 key instead of guessing', () => {
    expect(() => FieldSet.fromFieldsV1({ 'k:{not json': {} })).to.throw();
    expect(() => FieldSet.fromFieldsV1({ 'f:a': 'not an object' })).to.throw();
  });
});

describe('managerFromUserAgent', () => {
  it('takes the User-Agent up to its first slash, as prefixFromUserAgent does', () => {
    expect(managerFromUserAgent('kubectl/v1.32.0 (linux/amd64) kubernetes/abc')).to.equal('kubectl');
    expect(managerFromUserAgent('kube-controller-manager/v1.36.3')).to.equal('kube-controller-manager');
    expect(managerFromUserAgent(undefined)).to.equal('');
  });

  it('drops unprintable characters and cuts the name at 128 bytes', () => {
    expect(managerFromUserAgent('a\tb\u0000c/1')).to.equal('abc');
    expect(managerFromUserAgent(`${'x'.repeat(200)}/1`)).to.have.length(128);
  });
});
