import { expect } from 'chai';
import {
  AlreadyOwnedError,
  OwnerReferenceError,
  controllerOf,
  controllerReference,
  isControlledBy,
  setControllerReference,
} from '../../src/client/owners/index.js';
import { recipeChanges, toJsonPatch } from '../../src/client/patch/index.js';
import type { ObjectLike } from '../../src/objects/index.js';

const replicaSet = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name: 'web', namespace: 'ns', uid: 'rs-uid' },
};
const other = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name: 'api', namespace: 'ns', uid: 'other-uid' },
};
const pod = (): ObjectLike => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', namespace: 'ns' } });

describe('client: owner references', () => {
  it('builds the controller reference with controller and blockOwnerDeletion set', () => {
    expect(controllerReference(replicaSet)).to.deep.equal({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      name: 'web',
      uid: 'rs-uid',
      controller: true,
      blockOwnerDeletion: true,
    });
  });

  it('refuses an owner without kind, apiVersion or uid, naming what is missing', () => {
    expect(() => controllerReference({ metadata: { name: 'web' } })).to.throw(
      OwnerReferenceError,
      'it has no apiVersion, kind, metadata.uid',
    );
    expect(() => controllerReference({ ...replicaSet, metadata: { name: 'web' } })).to.throw(
      OwnerReferenceError,
      /ReplicaSet web .* no metadata\.uid/,
    );
  });

  it("refuses a metadata-only view (PartialObjectMetadata) as an owner: its kind is not its resource's", () => {
    const view = {
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadata',
      metadata: { name: 'web', namespace: 'default', uid: 'rs-uid' },
    };
    expect(() => controllerReference(view)).to.throw(
      OwnerReferenceError,
      /web cannot be referenced: it is a metadata-only view/,
    );
    expect(() => setControllerReference(pod(), view)).to.throw(OwnerReferenceError, /metadata-only view/);
  });

  it('sets the controller reference in place and returns the same object', () => {
    const object = pod();
    expect(setControllerReference(object, replicaSet)).to.equal(object);
    expect(object.metadata!.ownerReferences).to.deep.equal([controllerReference(replicaSet)]);
    expect(isControlledBy(object, replicaSet)).to.equal(true);
    expect(controllerOf(object)?.uid).to.equal('rs-uid');
  });

  it('is idempotent for the same owner, and updates a reference to it written with another version', () => {
    const object = pod();
    setControllerReference(object, replicaSet);
    setControllerReference(object, replicaSet);
    expect(object.metadata!.ownerReferences).to.have.length(1);
    object.metadata!.ownerReferences = [
      { ...controllerReference(replicaSet), apiVersion: 'apps/v1beta2', blockOwnerDeletion: false },
    ];
    setControllerReference(object, replicaSet);
    expect(object.metadata!.ownerReferences).to.deep.equal([controllerReference(replicaSet)]);
  });

  it('keeps other owners that are not controllers', () => {
    const object = pod();
    const plain = { apiVersion: 'v1', kind: 'ConfigMap', name: 'cfg', uid: 'cm-uid' };
    object.metadata!.ownerReferences = [plain];
    setControllerReference(object, replicaSet);
    expect(object.metadata!.ownerReferences).to.deep.equal([plain, controllerReference(replicaSet)]);
  });

  it('throws AlreadyOwnedError, changing nothing, when another owner controls the object', () => {
    const object = pod();
    setControllerReference(object, other);
    const before = structuredClone(object);
    expect(() => setControllerReference(object, replicaSet)).to.throw(
      AlreadyOwnedError,
      'Object ns/web-1 is already owned by another ReplicaSet controller api',
    );
    expect(object).to.deep.equal(before);
    let caught: unknown;
    try {
      setControllerReference(object, replicaSet);
    } catch (error) {
      caught = error;
    }
    expect((caught as AlreadyOwnedError).owner.uid).to.equal('other-uid');
    expect(isControlledBy(object, replicaSet)).to.equal(false);
  });

  it('refuses a namespaced owner in another namespace, or of a cluster-scoped object', () => {
    const elsewhere = { ...replicaSet, metadata: { ...replicaSet.metadata, namespace: 'other' } };
    expect(() => setControllerReference(pod(), elsewhere)).to.throw(
      OwnerReferenceError,
      /cross-namespace owner references are disallowed/,
    );
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } };
    expect(() => setControllerReference(node, replicaSet)).to.throw(
      OwnerReferenceError,
      /cluster-scoped Node n1 cannot be owned by namespaced/,
    );
  });

  it('lets a cluster-scoped owner control a namespaced object', () => {
    const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns', uid: 'ns-uid' } };
    expect(isControlledBy(setControllerReference(pod(), namespace), namespace)).to.equal(true);
  });

  it('works on an Immer draft, so mutate sends exactly the reference', () => {
    const base = { ...pod(), metadata: { ...pod().metadata, resourceVersion: '5' } };
    const { operations } = recipeChanges(base, (draft) => {
      setControllerReference(draft, replicaSet);
    });
    // The list is created where the object had none: guarded, so a trimmed copy cannot replace the server's list.
    expect(toJsonPatch(operations)).to.deep.equal([
      { op: 'test', path: '/metadata/ownerReferences', value: null },
      { op: 'add', path: '/metadata/ownerReferences', value: [controllerReference(replicaSet)] },
    ]);
    const again = recipeChanges(
      { ...base, metadata: { ...base.metadata, ownerReferences: [controllerReference(replicaSet)] } },
      (draft) => {
        setControllerReference(draft, replicaSet);
      },
    );
    expect(again.operations).to.deep.equal([]);
  });

  it('says an object without a uid-matching controller reference is not controlled', () => {
    expect(isControlledBy(pod(), replicaSet)).to.equal(false);
    expect(isControlledBy(pod(), { ...replicaSet, metadata: { name: 'web' } })).to.equal(false);
  });
});
