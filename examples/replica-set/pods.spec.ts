/**
 * Which pods a PodSet deletes first (kube-controller-manager's `TestSortingActivePodsWithRanks`, rule by rule), and
 * the Pod handlers that lower expectations and wake owners (`TestWatchPods`, `TestUpdatePods`, `TestDeletePods`).
 */
import { expect } from 'chai';
import type { V1Pod } from '@kubernetes/client-node';
import { Store, type InformerEvent } from '../../src/index.js';
import { Expectations } from './expectations.js';
import { podEventKeys, podOwnerIndex } from './pod-events.js';
import { isPodActive, POD_DELETION_COST_ANNOTATION, rankPodsForDeletion } from './pods.js';
import { PODSET, type PodSet } from './podset.js';

const NOW = Date.parse('2026-01-01T12:00:00Z');
const ago = (ms: number): string => new Date(NOW - ms).toISOString();
const HOUR = 3_600_000;

interface PodShape {
  readonly node?: string;
  readonly phase?: string;
  readonly ready?: number;
  readonly cost?: string;
  readonly restarts?: number;
  readonly created?: number;
  readonly owner?: {
    readonly name: string;
    readonly uid: string;
    readonly kind?: string;
    readonly apiVersion?: string;
  };
  readonly deleting?: boolean;
  readonly resourceVersion?: string;
}

function pod(name: string, shape: PodShape = {}): V1Pod {
  return {
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      resourceVersion: shape.resourceVersion ?? '1',
      ...(shape.created === undefined ? {} : { creationTimestamp: ago(shape.created) as unknown as Date }),
      ...(shape.cost === undefined ? {} : { annotations: { [POD_DELETION_COST_ANNOTATION]: shape.cost } }),
      ...(shape.deleting ? { deletionTimestamp: ago(0) as unknown as Date } : {}),
      ...(shape.owner
        ? {
            ownerReferences: [
              {
                apiVersion: shape.owner.apiVersion ?? PODSET.apiVersion,
                kind: shape.owner.kind ?? PODSET.kind,
                name: shape.owner.name,
                uid: shape.owner.uid,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          }
        : {}),
    },
    spec: { containers: [{ name: 'c', image: 'i' }], ...(shape.node ? { nodeName: shape.node } : {}) },
    status: {
      phase: shape.phase ?? 'Running',
      ...(shape.ready === undefined
        ? {}
        : { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: ago(shape.ready) as unknown as Date }] }),
      ...(shape.restarts === undefined
        ? {}
        : { containerStatuses: [{ name: 'c', image: 'i', imageID: '', ready: true, restartCount: shape.restarts }] }),
    } as V1Pod['status'],
  };
}

const order = (pods: V1Pod[]): string[] => rankPodsForDeletion(pods, NOW).map((p) => p.metadata!.name!);

describe('the replica-set example: which pods go first on scale-down', () => {
  it('an unassigned pod before an assigned one', () => {
    expect(order([pod('assigned', { node: 'n1' }), pod('unassigned')])).to.deep.equal(['unassigned', 'assigned']);
  });

  it('Pending before Unknown before Running', () => {
    expect(
      order([
        pod('running', { node: 'n' }),
        pod('unknown', { node: 'n', phase: 'Unknown' }),
        pod('pending', { node: 'n', phase: 'Pending' }),
      ]),
    ).to.deep.equal(['pending', 'unknown', 'running']);
  });

  it('a pod that is not ready before a ready one', () => {
    expect(order([pod('ready', { node: 'n', ready: HOUR }), pod('unready', { node: 'n' })])).to.deep.equal([
      'unready',
      'ready',
    ]);
  });

  it('a lower pod-deletion-cost before a higher one; an invalid cost counts as 0', () => {
    expect(
      order([
        pod('dear', { node: 'n', cost: '100' }),
        pod('cheap', { node: 'n', cost: '-5' }),
        pod('invalid', { node: 'n', cost: '+7' }),
      ]),
    ).to.deep.equal(['cheap', 'invalid', 'dear']);
  });

  it("a pod on a node crowded with the set's pods before a lone one", () => {
    const pods = [
      pod('alone', { node: 'n1', created: HOUR }),
      pod('crowded-1', { node: 'n2', created: HOUR }),
      pod('crowded-2', { node: 'n2', created: HOUR }),
    ];
    expect(order(pods)[2]).to.equal('alone');
  });

  it('of two ready pods, the one ready for a shorter time, compared on a logarithmic scale', () => {
    expect(order([pod('old', { node: 'n', ready: 10 * HOUR }), pod('new', { node: 'n', ready: HOUR })])).to.deep.equal([
      'new',
      'old',
    ]);
    // 61 and 62 minutes are in the same power-of-two bucket (in ns): a tie, broken by uid.
    expect(
      order([pod('b', { node: 'n', ready: 61 * 60_000 }), pod('a', { node: 'n', ready: 62 * 60_000 })]),
    ).to.deep.equal(['a', 'b']);
  });

  it('more container restarts before fewer', () => {
    expect(order([pod('steady', { node: 'n', restarts: 0 }), pod('flappy', { node: 'n', restarts: 7 })])).to.deep.equal(
      ['flappy', 'steady'],
    );
  });

  it('newer before older, and a pod without a creation time first', () => {
    expect(
      order([
        pod('old', { node: 'n', created: 10 * HOUR }),
        pod('young', { node: 'n', created: HOUR }),
        pod('unknown', { node: 'n' }),
      ]),
    ).to.deep.equal(['unknown', 'young', 'old']);
  });

  it('leaves its input alone', () => {
    const pods = [pod('b', { node: 'n' }), pod('a')];
    rankPodsForDeletion(pods, NOW);
    expect(pods.map((p) => p.metadata!.name)).to.deep.equal(['b', 'a']);
  });

  it('counts as a replica a pod that is neither finished nor being deleted', () => {
    expect(
      [pod('r'), pod('s', { phase: 'Succeeded' }), pod('f', { phase: 'Failed' }), pod('d', { deleting: true })].map(
        isPodActive,
      ),
    ).to.deep.equal([true, false, false, false]);
  });
});

describe('the replica-set example: the pod handlers', () => {
  const web: PodSet = { metadata: { name: 'web', namespace: 'default', uid: 'uid-web' } };
  const owned = (name: string, shape: PodShape = {}): V1Pod =>
    pod(name, { owner: { name: 'web', uid: 'uid-web' }, ...shape });
  let expectations: Expectations;
  const podSets = { current: () => storeOf([web]) };
  const keys = (event: InformerEvent<V1Pod>): string[] => podEventKeys(event, { expectations, podSets });
  const snapshot = Store.empty<V1Pod>();

  beforeEach(() => {
    expectations = new Expectations(() => 0);
  });

  it('indexes a pod by the uid of the PodSet that controls it, and nothing else', () => {
    expect(podOwnerIndex(owned('a'))).to.equal('uid-web');
    expect(podOwnerIndex(pod('orphan'))).to.equal(undefined);
    expect(
      podOwnerIndex(pod('rs', { owner: { name: 'web', uid: 'uid-rs', kind: 'ReplicaSet', apiVersion: 'apps/v1' } })),
    ).to.equal(undefined);
    expect(
      podOwnerIndex(pod('other-group', { owner: { name: 'web', uid: 'uid-x', apiVersion: 'example.com/v1' } })),
    ).to.equal(undefined);
  });

  it('an added pod is an observed creation of its PodSet, which it wakes', () => {
    expectations.expectCreations('default/web', 2);
    expect(keys({ type: 'added', key: 'default/a', object: owned('a'), snapshot })).to.deep.equal(['default/web']);
    expect(expectations.get('default/web')!.add).to.equal(1);
  });

  it('a pod whose controller is not a cached PodSet with that uid wakes nothing and lowers nothing', () => {
    expectations.expectCreations('default/web', 1);
    const stale = pod('stale', { owner: { name: 'web', uid: 'uid-older-web' } });
    expect(keys({ type: 'added', key: 'default/stale', object: stale, snapshot })).to.deep.equal([]);
    expect(keys({ type: 'added', key: 'default/orphan', object: pod('orphan'), snapshot })).to.deep.equal([]);
    expect(expectations.get('default/web')!.add).to.equal(1);
  });

  it('the update that sets deletionTimestamp is the observed deletion; the final delete does not count again', () => {
    expectations.expectDeletions('default/web', ['default/a', 'default/b']);
    const before = owned('a', { resourceVersion: '1' });
    const marked = owned('a', { resourceVersion: '2', deleting: true });
    expect(keys({ type: 'updated', key: 'default/a', old: before, object: marked, snapshot })).to.deep.equal([
      'default/web',
    ]);
    expect(keys({ type: 'deleted', key: 'default/a', object: marked, stateUnknown: false, snapshot })).to.deep.equal([
      'default/web',
    ]);
    expect(expectations.get('default/web')).to.deep.include({ del: 1, deleting: ['default/b'] });
    // A tombstone counts too.
    keys({ type: 'deleted', key: 'default/b', object: owned('b'), stateUnknown: true, snapshot });
    expect(expectations.satisfied('default/web')).to.equal(true);
  });

  it('a pod added while already being deleted is a deletion, not a creation', () => {
    expectations.expectCreations('default/web', 1);
    keys({ type: 'added', key: 'default/a', object: owned('a', { deleting: true }), snapshot });
    expect(expectations.get('default/web')!.add).to.equal(1);
  });

  it('a status update wakes the owner for its status; a resync or an update without a new resourceVersion does nothing', () => {
    const before = owned('a', { resourceVersion: '1' });
    expect(
      keys({
        type: 'updated',
        key: 'default/a',
        old: before,
        object: owned('a', { resourceVersion: '2', ready: 0 }),
        snapshot,
      }),
    ).to.deep.equal(['default/web']);
    expect(keys({ type: 'updated', key: 'default/a', old: before, object: before, snapshot })).to.deep.equal([]);
    expect(keys({ type: 'resync', key: 'default/a', object: before, snapshot })).to.deep.equal([]);
  });

  it('a pod whose controller reference changes wakes its former owner too', () => {
    const theirs = pod('a', { owner: { name: 'web', uid: 'uid-web' }, resourceVersion: '1' });
    const released = pod('a', { resourceVersion: '2' });
    expect(keys({ type: 'updated', key: 'default/a', old: theirs, object: released, snapshot })).to.deep.equal([
      'default/web',
    ]);
  });
});

function storeOf(podSets: PodSet[]): { get(key: string): PodSet | undefined } {
  const byKey = new Map(podSets.map((p) => [`${p.metadata!.namespace}/${p.metadata!.name}`, p]));
  return { get: (key) => byKey.get(key) };
}
