/**
 * `mutate` on objects an informer `transform` trimmed, against the in-memory server over HTTP (defect 6 of issue
 * 26): a patch changes only what the recipe changed, so what the transform dropped survives on the server.
 */
import { expect } from 'chai';
import { firstValueFrom, type Subscription } from 'rxjs';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { resourceClient } from '../../src/client/index.js';
import { informer, type Informer } from '../../src/informer/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { waitFor } from '../support/wait.js';

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

describe('client: mutate on objects an informer transform trimmed (in-memory server)', () => {
  let cluster: TestCluster;
  let subscription: Subscription | undefined;
  let counter = 0;

  before(async () => {
    cluster = await startTestCluster();
  });
  after(async () => {
    await cluster.stop();
  });
  afterEach(() => subscription?.unsubscribe());

  /** A ConfigMap on the server, and an informer's trimmed copy of it. */
  async function trimmed(
    object: V1ConfigMap,
    transform: (o: V1ConfigMap) => V1ConfigMap,
  ): Promise<{ cached: V1ConfigMap; cache: Informer<V1ConfigMap> }> {
    const name = `trimmed-${++counter}`;
    const client = resourceClient<V1ConfigMap>(cluster.kubeConfig, CONFIG_MAP, {
      namespace: 'default',
      fieldManager: 'spec',
    });
    await firstValueFrom(client.create({ ...object, metadata: { ...object.metadata, name } }));
    const cache = informer<V1ConfigMap>(cluster.kubeConfig, CONFIG_MAP, { namespace: 'default', transform });
    subscription = cache.events$.subscribe();
    await waitFor(() => cache.current().get(`default/${name}`) !== undefined, `the informer to list ${name}`);
    return { cached: cache.current().get(`default/${name}`)!, cache };
  }

  it('keeps an annotation the transform dropped when the recipe spreads the annotations, as docs/client.md shows', async () => {
    const { cached, cache } = await trimmed(
      { metadata: { annotations: { 'example.com/big': 'x'.repeat(64), keep: '1' } }, data: { a: '1' } },
      (o) => {
        delete o.metadata!.annotations!['example.com/big'];
        return o;
      },
    );
    expect(cached.metadata!.annotations).to.deep.equal({ keep: '1' });
    const client = resourceClient<V1ConfigMap>(cluster.kubeConfig, CONFIG_MAP, {
      namespace: 'default',
      fieldManager: 'spec',
    });
    const written = await firstValueFrom(
      client.mutate(
        cached,
        (draft) => {
          draft.metadata!.annotations = { ...draft.metadata!.annotations, seen: 'yes' };
        },
        { store: cache },
      ),
    );
    expect(written.metadata!.annotations).to.deep.equal({ 'example.com/big': 'x'.repeat(64), keep: '1', seen: 'yes' });
  });

  it('keeps the labels a transform dropped whole when the recipe creates labels again', async () => {
    const { cached, cache } = await trimmed({ metadata: { labels: { team: 'a' } }, data: { a: '1' } }, (o) => {
      delete o.metadata!.labels;
      return o;
    });
    const client = resourceClient<V1ConfigMap>(cluster.kubeConfig, CONFIG_MAP, {
      namespace: 'default',
      fieldManager: 'spec',
    });
    const written = await firstValueFrom(
      client.mutate(
        cached,
        (draft) => {
          draft.metadata!.labels = { ...draft.metadata!.labels, seen: 'yes' };
        },
        { store: cache },
      ),
    );
    expect(written.metadata!.labels).to.deep.equal({ team: 'a', seen: 'yes' });
  });

  it('keeps the fields a transform dropped from list items when the recipe rebuilds the list', async () => {
    const client = resourceClient<V1ConfigMap>(cluster.kubeConfig, CONFIG_MAP, {
      namespace: 'default',
      fieldManager: 'spec',
    });
    const owner = await firstValueFrom(client.create({ metadata: { name: `owner-${++counter}` } }));
    const reference = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      name: owner.metadata!.name!,
      uid: owner.metadata!.uid!,
      blockOwnerDeletion: true,
    };
    const { cached, cache } = await trimmed({ metadata: { ownerReferences: [reference] } }, (o) => {
      for (const ref of o.metadata!.ownerReferences ?? []) delete ref.blockOwnerDeletion;
      return o;
    });
    const written = await firstValueFrom(
      client.mutate(
        cached,
        (draft) => {
          draft.metadata!.ownerReferences = draft.metadata!.ownerReferences!.map((ref) => ({
            ...ref,
            controller: true,
          }));
        },
        { store: cache },
      ),
    );
    expect(written.metadata!.ownerReferences).to.deep.equal([{ ...reference, controller: true }]);
  });
});
