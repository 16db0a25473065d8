import { expect } from 'chai';
import fc from 'fast-check';
import {
  applyObject,
  builtinTypes,
  resetFields,
  versionedTypes,
  type FieldManagerScope,
} from '../../../../src/testing/apiserver/apply/index.js';
import type { KubeObject } from '../../../../src/testing/apiserver/machinery/object.js';

function scope(group: string, version: string, kind: string, hasStatus = false): FieldManagerScope {
  const typed = builtinTypes(group, version, kind)!;
  return {
    group,
    version,
    kind,
    types: versionedTypes(() => typed, resetFields({ custom: false, kind, hasStatus, subresource: undefined })),
    now: () => '2024-01-01T00:00:00Z',
  };
}

const configMaps = scope('', 'v1', 'ConfigMap');
const deployments = scope('apps', 'v1', 'Deployment', true);

const small = fc.constantFrom('a', 'b', 'c', 'd');
const data = fc.dictionary(small, fc.string({ maxLength: 3 }), { maxKeys: 4 });
const containers = fc.uniqueArray(
  fc.record({
    name: small,
    image: fc.constantFrom('nginx', 'busybox'),
    env: fc.uniqueArray(fc.record({ name: small, value: fc.string({ maxLength: 2 }) }), {
      selector: (e) => e.name,
      maxLength: 3,
    }),
  }),
  { selector: (c) => c.name, minLength: 1, maxLength: 3 },
);

const cm = (d: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: d });
const deploy = (cs: unknown[]) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'x' },
  spec: { template: { spec: { containers: cs } } },
});

describe('server-side apply (properties)', () => {
  it('changes nothing when the same configuration is applied twice', () => {
    fc.assert(
      fc.property(data, data, (first, second) => {
        const live = applyObject(configMaps, undefined, cm(first) as never, 'a', false);
        const once = applyObject(configMaps, live, cm(second) as never, 'a', false);
        const twice = applyObject(configMaps, once, cm(second) as never, 'a', false);
        expect(twice).to.deep.equal(once);
      }),
    );
  });

  it('leaves exactly the applied data when one applier owns everything', () => {
    fc.assert(
      fc.property(data, data, (first, second) => {
        const live = applyObject(configMaps, undefined, cm(first) as never, 'a', false);
        const next = applyObject(configMaps, live, cm(second) as never, 'a', false);
        expect(next['data'] ?? {}).to.deep.equal(second);
      }),
    );
  });

  it('keeps what another applier owns: containers and env merge by name and are idempotent', () => {
    fc.assert(
      fc.property(containers, containers, (mine, theirs) => {
        const live = applyObject(deployments, undefined, deploy(theirs) as never, 'them', true);
        const merged = applyObject(deployments, live, deploy(mine) as never, 'me', true);
        const names = ((merged['spec'] as any).template.spec.containers as { name: string }[]).map((c) => c.name);
        for (const c of [...mine, ...theirs]) expect(names).to.include(c.name);
        expect(new Set(names).size).to.equal(names.length);
        expect(applyObject(deployments, merged, deploy(mine) as never, 'me', true)).to.deep.equal(merged);
      }),
    );
  });

  it('refuses a conflicting value from another applier with the real 409, and takes it with force', () => {
    const live = applyObject(configMaps, undefined, cm({ a: '1' }) as never, 'alice', false);
    expect(() => applyObject(configMaps, live as KubeObject, cm({ a: '2' }) as never, 'bob', false)).to.throw(
      'Apply failed with 1 conflict: conflict with "alice": .data.a',
    );
    const forced = applyObject(configMaps, live, cm({ a: '2' }) as never, 'bob', true);
    expect((forced.metadata['managedFields'] as { manager: string }[]).map((e) => e.manager)).to.deep.equal(['bob']);
  });
});
