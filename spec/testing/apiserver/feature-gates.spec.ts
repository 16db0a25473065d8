import { expect } from 'chai';
import { asyncScheduler } from 'rxjs';
import { formatShardSelector, matchesShard, splitHashSpace } from '../../../src/sharding/index.js';
import { virtualCluster, type VirtualCluster } from '../../../src/testing/index.js';
import { virtualRaw } from '../../contract/support/virtual.js';

const [low] = splitHashSpace(2);
const lowText = formatShardSelector([low!]);
const q = (selector: string) => `shardSelector=${encodeURIComponent(selector)}`;

function widgetCrd(): object {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
        },
      ],
    },
  };
}

async function seedConfigMaps(cluster: VirtualCluster, count: number): Promise<string[]> {
  const uids: string[] = [];
  for (let i = 0; i < count; i++) {
    const made = await virtualRaw(cluster, 'POST', '/api/v1/namespaces/default/configmaps', {
      body: { metadata: { name: `cm-${i}` } },
    });
    uids.push((made.json as any).metadata.uid);
  }
  return uids;
}

describe('in-memory API server: feature gates', () => {
  let cluster: VirtualCluster | undefined;
  afterEach(() => {
    cluster?.close();
    cluster = undefined;
  });

  it('ignores shardSelector, even a malformed one, when ShardedListAndWatch is off, as kube-apiserver does', async () => {
    cluster = virtualCluster({ scheduler: asyncScheduler });
    await seedConfigMaps(cluster, 6);
    const sharded = await virtualRaw(cluster, 'GET', `/api/v1/namespaces/default/configmaps?${q(lowText)}`);
    expect(sharded.status).to.equal(200);
    expect((sharded.json as any).items).to.have.length(6);
    expect((sharded.json as any).metadata).to.not.have.property('shardInfo');
    const bad = await virtualRaw(
      cluster,
      'GET',
      `/api/v1/namespaces/default/configmaps?watch=1&${q('nonsense')}&timeoutSeconds=1`,
    );
    expect(bad.status).to.equal(200);
  });

  it('filters a custom resource list by shard but echoes no shardInfo (UnstructuredList has no SetShardInfo)', async () => {
    cluster = virtualCluster({ scheduler: asyncScheduler, featureGates: { ShardedListAndWatch: true } });
    const crd = await virtualRaw(cluster, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      body: widgetCrd(),
    });
    expect(crd.status, crd.text).to.equal(201);
    const uids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const made = await virtualRaw(cluster, 'POST', '/apis/example.com/v1/namespaces/default/widgets', {
        body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: `w-${i}` } },
      });
      expect(made.status, made.text).to.equal(201);
      uids.push((made.json as any).metadata.uid);
    }
    const answer = await virtualRaw(cluster, 'GET', `/apis/example.com/v1/namespaces/default/widgets?${q(lowText)}`);
    expect(answer.status, answer.text).to.equal(200);
    const listed = ((answer.json as any).items as any[]).map((w) => w.metadata.uid).sort();
    expect(listed).to.deep.equal(uids.filter((uid) => matchesShard([low!], { metadata: { uid } })).sort());
    expect((answer.json as any).metadata).to.not.have.property('shardInfo');
  });

  it('refuses an unknown feature gate by name, as --feature-gates does', () => {
    expect(() =>
      virtualCluster({ scheduler: asyncScheduler, featureGates: { ShardedListAndWatsh: true } as never }),
    ).to.throw('unrecognized feature gate: ShardedListAndWatsh');
  });
});
