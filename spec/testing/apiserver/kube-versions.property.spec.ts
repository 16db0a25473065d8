import { expect } from 'chai';
import fc from 'fast-check';
import { compareKubeVersions } from '../../../src/testing/apiserver/registry/crd.js';

const kubeVersion = fc.oneof(
  fc.nat({ max: 12 }).map((major) => `v${major + 1}`),
  fc
    .tuple(fc.nat({ max: 12 }), fc.constantFrom('alpha', 'beta'), fc.nat({ max: 12 }))
    .map(([major, level, minor]) => `v${major + 1}${level}${minor + 1}`),
  fc.constantFrom('foo', 'bar', 'v1gamma1', 'V2'),
);

describe('in-memory server: Kubernetes version order (CompareKubeAwareVersionStrings)', () => {
  it('orders GA above beta above alpha, then by major and minor, and other names below all of them', () => {
    const sorted = ['foo', 'v1alpha1', 'v2alpha1', 'v1beta1', 'v1beta2', 'v2beta1', 'v1', 'v2', 'v10'];
    const shuffled = [...sorted].reverse();
    expect(shuffled.sort(compareKubeVersions)).to.deep.equal([
      'foo',
      'v1alpha1',
      'v2alpha1',
      'v1beta1',
      'v1beta2',
      'v2beta1',
      'v1',
      'v2',
      'v10',
    ]);
    // Two names of another form: the lexically greater one is the older, as apimachinery has it.
    expect(compareKubeVersions('foo', 'bar')).to.be.lessThan(0);
  });

  it('is a total order: antisymmetric and transitive over any versions', () => {
    fc.assert(
      fc.property(kubeVersion, kubeVersion, kubeVersion, (a, b, c) => {
        expect(Math.sign(compareKubeVersions(a, b))).to.equal(-Math.sign(compareKubeVersions(b, a)));
        expect(compareKubeVersions(a, b) === 0).to.equal(a === b);
        if (compareKubeVersions(a, b) < 0 && compareKubeVersions(b, c) < 0)
          expect(compareKubeVersions(a, c)).to.be.lessThan(0);
      }),
    );
  });
});
