import { expect } from 'chai';
import fc from 'fast-check';
import {
  PatchError,
  STRATEGIC_MERGE_KEYS,
  applyStrategicMergePatch,
  supportsStrategicMerge,
} from '../../../../src/testing/apiserver/patch/index.js';
import { sharesStructure } from './aliasing.js';

const pod = () => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web',
    labels: { app: 'web', tier: 'front' },
    finalizers: ['a.example.com/x', 'b.example.com/y'],
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1' }],
  },
  spec: {
    containers: [
      {
        name: 'app',
        image: 'app:1',
        args: ['--a'],
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
        ports: [{ containerPort: 80, protocol: 'TCP' }],
        volumeMounts: [{ mountPath: '/data', name: 'data' }],
      },
      { name: 'sidecar', image: 'side:1' },
    ],
    tolerations: [{ key: 'k1', operator: 'Exists' }],
    volumes: [{ name: 'data', emptyDir: {} }],
  },
  status: {
    conditions: [
      { type: 'Ready', status: 'False' },
      { type: 'Initialized', status: 'True' },
    ],
  },
});

describe('applyStrategicMergePatch on a Pod', () => {
  it('merges containers by name and nested env by name, leaving other containers alone', () => {
    const out = applyStrategicMergePatch(
      pod(),
      {
        spec: {
          containers: [
            {
              name: 'app',
              image: 'app:2',
              env: [
                { name: 'B', value: '3' },
                { name: 'C', value: '4' },
              ],
            },
          ],
        },
      },
      'Pod',
    ) as ReturnType<typeof pod>;
    expect(out.spec.containers).to.deep.equal([
      {
        name: 'app',
        image: 'app:2',
        args: ['--a'],
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '3' },
          { name: 'C', value: '4' },
        ],
        ports: [{ containerPort: 80, protocol: 'TCP' }],
        volumeMounts: [{ mountPath: '/data', name: 'data' }],
      },
      { name: 'sidecar', image: 'side:1' },
    ]);
  });

  it('appends new list elements and deletes elements marked $patch: delete', () => {
    const out = applyStrategicMergePatch(
      pod(),
      {
        spec: {
          containers: [
            { name: 'sidecar', $patch: 'delete' },
            { name: 'new', image: 'new:1' },
          ],
          volumes: [{ name: 'cache', emptyDir: {} }],
        },
      },
      'Pod',
    ) as ReturnType<typeof pod>;
    expect(out.spec.containers.map((c) => c.name)).to.deep.equal(['app', 'new']);
    expect(out.spec.volumes.map((v) => v.name)).to.deep.equal(['data', 'cache']);
  });

  it('merges ports by containerPort and volumeMounts by mountPath', () => {
    const out = applyStrategicMergePatch(
      pod(),
      {
        spec: {
          containers: [
            {
              name: 'app',
              ports: [{ containerPort: 80, name: 'http' }, { containerPort: 443 }],
              volumeMounts: [{ mountPath: '/data', readOnly: true }],
            },
          ],
        },
      },
      'Pod',
    ) as ReturnType<typeof pod>;
    expect(out.spec.containers[0]!.ports).to.deep.equal([
      { containerPort: 80, protocol: 'TCP', name: 'http' },
      { containerPort: 443 },
    ]);
    expect(out.spec.containers[0]!.volumeMounts).to.deep.equal([{ mountPath: '/data', name: 'data', readOnly: true }]);
  });

  it('replaces atomic lists such as tolerations and args whole', () => {
    const out = applyStrategicMergePatch(
      pod(),
      {
        spec: { tolerations: [{ key: 'k2', operator: 'Exists' }], containers: [{ name: 'app', args: ['--b'] }] },
      },
      'Pod',
    ) as ReturnType<typeof pod>;
    expect(out.spec.tolerations).to.deep.equal([{ key: 'k2', operator: 'Exists' }]);
    expect(out.spec.containers[0]!.args).to.deep.equal(['--b']);
  });

  it('deletes map fields set to null and merges maps recursively', () => {
    const out = applyStrategicMergePatch(
      pod(),
      { metadata: { labels: { tier: null, env: 'prod' } } },
      'Pod',
    ) as ReturnType<typeof pod>;
    expect(out.metadata.labels).to.deep.equal({ app: 'web', env: 'prod' });
  });

  it('unions finalizers and removes them with $deleteFromPrimitiveList', () => {
    const out = applyStrategicMergePatch(
      pod(),
      {
        metadata: {
          finalizers: ['b.example.com/y', 'c.example.com/z'],
          '$deleteFromPrimitiveList/finalizers': ['a.example.com/x'],
        },
      },
      'Pod',
    ) as ReturnType<typeof pod>;
    expect(out.metadata.finalizers).to.deep.equal(['b.example.com/y', 'c.example.com/z']);
  });

  it('merges ownerReferences by uid and status conditions by type', () => {
    const out = applyStrategicMergePatch(
      pod(),
      {
        metadata: {
          ownerReferences: [
            { uid: 'u1', controller: true },
            { apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'u2' },
          ],
        },
        status: { conditions: [{ type: 'Ready', status: 'True' }] },
      },
      'Pod',
    ) as ReturnType<typeof pod>;
    expect(out.metadata.ownerReferences.map((o) => o.uid)).to.deep.equal(['u1', 'u2']);
    expect(out.metadata.ownerReferences[0]).to.include({ controller: true, name: 'rs' });
    expect(out.status.conditions).to.deep.equal([
      { type: 'Ready', status: 'True' },
      { type: 'Initialized', status: 'True' },
    ]);
  });

  it('honours $patch: replace on a map and on a list', () => {
    const out = applyStrategicMergePatch(
      pod(),
      {
        metadata: { labels: { only: 'this', $patch: 'replace' } },
        spec: { volumes: [{ $patch: 'replace' }, { name: 'fresh', emptyDir: {} }] },
      },
      'Pod',
    ) as ReturnType<typeof pod>;
    expect(out.metadata.labels).to.deep.equal({ only: 'this' });
    expect(out.spec.volumes).to.deep.equal([{ name: 'fresh', emptyDir: {} }]);
  });

  it('keeps only the listed fields under $retainKeys', () => {
    const out = applyStrategicMergePatch(
      pod(),
      {
        spec: { volumes: [{ name: 'data', hostPath: { path: '/x' }, $retainKeys: ['hostPath', 'name'] }] },
      },
      'Pod',
    ) as ReturnType<typeof pod>;
    expect(out.spec.volumes).to.deep.equal([{ name: 'data', hostPath: { path: '/x' } }]);
  });

  it('rejects a list element without its merge key with 422', () => {
    const run = () => applyStrategicMergePatch(pod(), { spec: { containers: [{ image: 'x' }] } }, 'Pod');
    expect(run).to.throw(PatchError).with.property('status', 422);
    expect(run).to.throw(PatchError, 'map: map[image:x] does not contain declared merge key: name');
  });

  it('rejects a patch that is not an object with 400 and the Go decode message', () => {
    expect(() => applyStrategicMergePatch(pod(), [1], 'Pod'))
      .to.throw(PatchError, 'json: cannot unmarshal array into Go value of type map[string]interface {}')
      .with.property('status', 400);
  });

  it('rejects malformed directive values with 400 and the mergepatch messages', () => {
    expect(() => applyStrategicMergePatch(pod(), { metadata: { '$deleteFromPrimitiveList/finalizers': 'x' } }, 'Pod'))
      .to.throw(PatchError, 'invalid patch format of primitive list')
      .with.property('status', 400);
    expect(() => applyStrategicMergePatch(pod(), { spec: { '$setElementOrder/containers': {} } }, 'Pod'))
      .to.throw(PatchError, 'invalid patch format of setElementOrder list')
      .with.property('status', 400);
    expect(() => applyStrategicMergePatch(pod(), { spec: { $retainKeys: 'x' } }, 'Pod'))
      .to.throw(PatchError, 'invalid patch format of retainKeys')
      .with.property('status', 400);
  });

  it('accepts and ignores a well-formed $setElementOrder directive', () => {
    const out = applyStrategicMergePatch(
      pod(),
      { spec: { '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }] } },
      'Pod',
    ) as ReturnType<typeof pod>;
    expect(out.spec.containers.map((c) => c.name)).to.deep.equal(['app', 'sidecar']);
    expect(out.spec).to.not.have.property('$setElementOrder/containers');
  });

  it('rejects an unknown $patch directive with 422', () => {
    expect(() => applyStrategicMergePatch(pod(), { metadata: { labels: { $patch: 'merge' } } }, 'Pod'))
      .to.throw(PatchError, 'unknown patch type: merge in map: map[$patch:merge]')
      .with.property('reason', 'Invalid');
  });

  it('rejects content outside $retainKeys with the generic 422 message', () => {
    expect(() =>
      applyStrategicMergePatch(
        pod(),
        { spec: { volumes: [{ name: 'data', hostPath: {}, $retainKeys: ['name'] }] } },
        'Pod',
      ),
    )
      .to.throw(PatchError, 'the server rejected our request due to an error in our request')
      .with.property('detail', "patch content doesn't match retainKeys list");
  });
});

describe('applyStrategicMergePatch on a Deployment', () => {
  const deployment = () => ({
    metadata: { name: 'd' },
    spec: {
      replicas: 1,
      template: {
        metadata: { labels: { app: 'd' } },
        spec: {
          containers: [{ name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }] }],
          volumes: [{ name: 'v1', emptyDir: {} }],
        },
      },
    },
    status: {
      conditions: [
        { type: 'Available', status: 'True' },
        { type: 'Progressing', status: 'True' },
      ],
    },
  });

  it('merges containers at spec.template.spec.containers, as kubectl set image relies on', () => {
    const out = applyStrategicMergePatch(
      deployment(),
      {
        spec: { replicas: 3, template: { spec: { containers: [{ name: 'app', image: 'app:2' }] } } },
      },
      'Deployment',
    ) as ReturnType<typeof deployment>;
    expect(out.spec.replicas).to.equal(3);
    expect(out.spec.template.spec.containers).to.deep.equal([
      { name: 'app', image: 'app:2', env: [{ name: 'A', value: '1' }] },
    ]);
    expect(out.spec.template.spec.volumes).to.deep.equal([{ name: 'v1', emptyDir: {} }]);
  });

  it('merges status conditions by type', () => {
    const out = applyStrategicMergePatch(
      deployment(),
      {
        status: { conditions: [{ type: 'Progressing', status: 'False', reason: 'Stuck' }] },
      },
      'Deployment',
    ) as ReturnType<typeof deployment>;
    expect(out.status.conditions).to.deep.equal([
      { type: 'Available', status: 'True' },
      { type: 'Progressing', status: 'False', reason: 'Stuck' },
    ]);
  });

  it('replaces lists whole for kinds it has no table for', () => {
    expect(supportsStrategicMerge('Widget')).to.equal(false);
    const out = applyStrategicMergePatch(
      deployment(),
      {
        spec: { template: { spec: { containers: [{ name: 'other' }] } } },
      },
      'Widget',
    ) as ReturnType<typeof deployment>;
    expect(out.spec.template.spec.containers).to.deep.equal([{ name: 'other' }]);
  });
});

describe('STRATEGIC_MERGE_KEYS', () => {
  it('documents the pod template paths of every workload kind', () => {
    for (const kind of ['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job']) {
      expect(STRATEGIC_MERGE_KEYS[kind]).to.include({
        'spec.template.spec.containers': 'name',
        'spec.template.spec.containers.env': 'name',
      });
    }
    expect(STRATEGIC_MERGE_KEYS.Pod).to.include({
      'spec.containers': 'name',
      'spec.containers.ports': 'containerPort',
    });
    expect(STRATEGIC_MERGE_KEYS.Pod).to.not.have.property('spec.tolerations');
  });
});

describe('strategic merge purity', () => {
  it('never mutates its inputs and never returns structure shared with them', () => {
    const env = fc.array(
      fc.record({ name: fc.constantFrom('A', 'B', 'C'), value: fc.option(fc.string({ maxLength: 3 })) }),
      { maxLength: 3 },
    );
    const containers = fc.array(
      fc.record({ name: fc.constantFrom('app', 'side'), env, image: fc.option(fc.string({ maxLength: 3 })) }),
      { maxLength: 3 },
    );
    fc.assert(
      fc.property(
        containers,
        containers,
        fc.dictionary(fc.string({ maxLength: 3 }), fc.option(fc.string({ maxLength: 3 }))),
        (a, b, labels) => {
          const target = { metadata: { labels: {} }, spec: { containers: a } };
          const patch = { metadata: { labels }, spec: { containers: b } };
          const before = JSON.stringify([target, patch]);
          const result = applyStrategicMergePatch(target, patch, 'Pod');
          expect(JSON.stringify([target, patch])).to.equal(before);
          expect(sharesStructure(result, target, patch)).to.equal(false);
        },
      ),
      { numRuns: 200 },
    );
  });
});
