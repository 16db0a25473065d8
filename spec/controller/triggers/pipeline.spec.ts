import { expect } from 'chai';
import { merge } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import type { WatchEvent } from '../../../src/watch/index.js';
import { informerFromSource } from '../../../src/informer/index.js';
import { reconcile, type ReconcileEvent } from '../../../src/controller/index.js';
import { generationChanged } from '../../../src/controller/predicates/index.js';
import { toKeys, toOwnerKeys } from '../../../src/controller/triggers/index.js';

const rs = (generation: number, rv: string): V1ReplicaSet => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name: 'web', namespace: 'default', generation, resourceVersion: rv, uid: 'rs-uid' },
});
const pod = (name: string, rv: string): V1Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace: 'default',
    resourceVersion: rv,
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs-uid', controller: true }],
  },
});

describe('the DESIGN §5 pipeline', () => {
  it('reconciles a ReplicaSet for its spec changes and its pods, not for its status writes', () => {
    const starts: string[][] = [];
    new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    }).run(({ hot }) => {
      const rsDeltas = hot<WatchEvent<V1ReplicaSet>>('a(bc)-----s-----g-----|', {
        a: { type: 'relistStarted' },
        b: { type: 'listed', object: rs(1, '1') },
        c: { type: 'relistDone', resourceVersion: '1' },
        s: { type: 'modified', object: rs(1, '2') }, // status-only write: same generation
        g: { type: 'modified', object: rs(2, '3') },
      });
      const podDeltas = hot<WatchEvent<V1Pod>>('(abc)---------p-----------|', {
        a: { type: 'relistStarted' },
        b: { type: 'relistDone', resourceVersion: '1' },
        c: { type: 'bookmark', resourceVersion: '1' },
        p: { type: 'added', object: pod('web-1', '4') },
      });
      const replicaSets = informerFromSource(rsDeltas);
      const pods = informerFromSource(podDeltas);
      merge(
        replicaSets.events$.pipe(generationChanged(), toKeys()),
        pods.events$.pipe(toOwnerKeys({ kind: 'ReplicaSet' })),
      )
        .pipe(reconcile(() => undefined, { gate: replicaSets.synced$, globalRateLimiter: false }))
        .subscribe((event: ReconcileEvent) => {
          if (event.type === 'started') starts.push([event.key, ...event.reasons]);
        });
    });
    expect(starts).to.deep.equal([
      ['default/web', 'added ReplicaSet default/web'],
      ['default/web', 'added Pod default/web-1'],
      ['default/web', 'updated ReplicaSet default/web'],
    ]);
  });
});
