import { expect } from 'chai';
import { Subject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { InformerEvent } from '../../../src/informer/index.js';
import type { ReconcileTrigger } from '../../../src/controller/index.js';
import { KeyMappingError, toOwnerKeys, type ToOwnerKeysOptions } from '../../../src/controller/triggers/index.js';
import { added, deleted, errorSink, obj, ownerRef, resync, updated } from '../predicates/fixtures.js';

function run(options: ToOwnerKeysOptions, events: InformerEvent[]): ReconcileTrigger[] {
  const source = new Subject<InformerEvent>();
  const out: ReconcileTrigger[] = [];
  source.pipe(toOwnerKeys(options)).subscribe((t) => out.push(t));
  for (const event of events) source.next(event);
  return out;
}

const keys = (triggers: ReconcileTrigger[]) => triggers.map((t) => t.key);
const owned = (name: string, ...refs: ReturnType<typeof ownerRef>[]) => obj(name, { ownerReferences: refs });

describe('toOwnerKeys', () => {
  it('triggers the controller owner of the given kind, in the child namespace', () => {
    const pod = owned('web-1', ownerRef('ReplicaSet', 'web'));
    expect(run({ kind: 'ReplicaSet' }, [added(pod)])).to.deep.equal([
      { key: 'default/web', reason: 'added Pod default/web-1' },
    ]);
  });

  it('ignores owners that are not the controller unless allOwners is set', () => {
    const pod = owned(
      'p',
      ownerRef('ReplicaSet', 'ctl'),
      ownerRef('ReplicaSet', 'other', { controller: false }),
      ownerRef('ReplicaSet', 'unset', { controller: undefined }),
    );
    expect(keys(run({ kind: 'ReplicaSet' }, [added(pod)]))).to.deep.equal(['default/ctl']);
    expect(keys(run({ kind: 'ReplicaSet', allOwners: true }, [added(pod)]))).to.deep.equal([
      'default/ctl',
      'default/other',
      'default/unset',
    ]);
  });

  it('ignores owners of another kind', () => {
    const pod = owned('p', ownerRef('StatefulSet', 'db'));
    expect(run({ kind: 'ReplicaSet' }, [added(pod)])).to.deep.equal([]);
  });

  it('matches the API group when apiVersion is given, whatever the version', () => {
    const pod = owned('p', ownerRef('ReplicaSet', 'web', { apiVersion: 'apps/v1beta2' }));
    const foreign = owned('q', ownerRef('ReplicaSet', 'x', { apiVersion: 'example.com/v1' }));
    expect(keys(run({ kind: 'ReplicaSet', apiVersion: 'apps/v1' }, [added(pod), added(foreign)]))).to.deep.equal([
      'default/web',
    ]);
    // Any group: the example.com ReplicaSet is not built in, so clusterScoped must say its scope.
    expect(keys(run({ kind: 'ReplicaSet', clusterScoped: false }, [added(pod), added(foreign)]))).to.deep.equal([
      'default/web',
      'default/x',
    ]);
  });

  it('matches the core group for apiVersion v1', () => {
    const pod = owned('p', ownerRef('Node', 'n1', { apiVersion: 'v1' }));
    expect(keys(run({ kind: 'Node', apiVersion: 'v1', clusterScoped: true }, [added(pod)]))).to.deep.equal(['n1']);
  });

  it('keys a custom owner by name alone when clusterScoped is true, and in the child namespace when it is false', () => {
    const pod = owned('p', ownerRef('Tenant', 't1', { apiVersion: 'example.com/v1' }));
    expect(keys(run({ kind: 'Tenant', clusterScoped: true }, [added(pod)]))).to.deep.equal(['t1']);
    expect(
      keys(run({ kind: 'Tenant', apiVersion: 'example.com/v1', clusterScoped: false }, [added(pod)])),
    ).to.deep.equal(['default/t1']);
  });

  it('keys a namespaced child of a built-in cluster-scoped owner by the owner name alone, unasked (a ConfigMap of its Namespace)', () => {
    const configMap = obj(
      'settings',
      { namespace: 'team-a', ownerReferences: [ownerRef('Namespace', 'team-a')] },
      'ConfigMap',
    );
    expect(keys(run({ kind: 'Namespace' }, [added(configMap)]))).to.deep.equal(['team-a']);
    expect(keys(run({ kind: 'Namespace', apiVersion: 'v1' }, [added(configMap)]))).to.deep.equal(['team-a']);
    const pod = owned('p', ownerRef('ClusterRole', 'admin', { apiVersion: 'rbac.authorization.k8s.io/v1' }));
    expect(keys(run({ kind: 'ClusterRole', apiVersion: 'rbac.authorization.k8s.io/v1' }, [added(pod)]))).to.deep.equal([
      'admin',
    ]);
  });

  it('refuses, when it is built, an owner kind whose scope it cannot know, or a clusterScoped that contradicts a built-in kind', () => {
    expect(() => toOwnerKeys({ kind: 'Tenant' })).to.throw(
      TypeError,
      'toOwnerKeys: cannot tell whether Tenant is cluster-scoped: it is not a built-in kind; pass clusterScoped: true or false',
    );
    expect(() => toOwnerKeys({ kind: 'Tenant', apiVersion: 'example.com/v1' })).to.throw(
      TypeError,
      'toOwnerKeys: cannot tell whether Tenant (example.com/v1) is cluster-scoped',
    );
    expect(() => toOwnerKeys({ kind: 'ReplicaSet', apiVersion: 'example.com/v1' })).to.throw(
      TypeError,
      /cannot tell whether ReplicaSet/,
    );
    expect(() => toOwnerKeys({ kind: 'Namespace', apiVersion: 'v1', clusterScoped: false })).to.throw(
      TypeError,
      'toOwnerKeys: Namespace (v1) is cluster-scoped, but clusterScoped is false',
    );
    expect(() => toOwnerKeys({ kind: 'Pod', apiVersion: 'v1', clusterScoped: true })).to.throw(
      TypeError,
      'toOwnerKeys: Pod (v1) is namespaced, but clusterScoped is true',
    );
    expect(() => toOwnerKeys({ kind: 'Tenant', clusterScoped: 'yes' as never })).to.throw(
      TypeError,
      /clusterScoped must be a boolean/,
    );
  });

  it('reports, and keys nothing for, an owner reference of a group whose scope is unknown when apiVersion is left open', () => {
    const sink = errorSink();
    const pod = owned(
      'p',
      ownerRef('ReplicaSet', 'web'),
      ownerRef('ReplicaSet', 'x', { apiVersion: 'example.com/v1', controller: false }),
    );
    expect(keys(run({ kind: 'ReplicaSet', allOwners: true, onError: sink.onError }, [added(pod)]))).to.deep.equal([
      'default/web',
    ]);
    expect(sink.errors.map((e) => e.message)).to.deep.equal([
      'cannot tell whether ReplicaSet of example.com/v1 is cluster-scoped; pass apiVersion to match one group, or clusterScoped (added default/p)',
    ]);
  });

  it('keys the owner of a cluster-scoped object by name alone', () => {
    const refs = [ownerRef('StorageClass', 'fast')];
    const pv = obj('pv1', { namespace: undefined, ownerReferences: refs }, 'PersistentVolume');
    expect(keys(run({ kind: 'StorageClass' }, [added(pv)]))).to.deep.equal(['fast']);
  });

  it('triggers both the old and the new owner when an update moves the child', () => {
    const before = owned('p', ownerRef('ReplicaSet', 'old'));
    const after = owned('p', ownerRef('ReplicaSet', 'new'));
    expect(run({ kind: 'ReplicaSet' }, [updated(before, after)])).to.deep.equal([
      { key: 'default/old', reason: 'updated Pod default/p' },
      { key: 'default/new', reason: 'updated Pod default/p' },
    ]);
  });

  it('triggers the former owner when an update orphans the child', () => {
    const before = owned('p', ownerRef('ReplicaSet', 'old'));
    expect(keys(run({ kind: 'ReplicaSet' }, [updated(before, obj('p'))]))).to.deep.equal(['default/old']);
  });

  it('triggers an unchanged owner once per update, not twice', () => {
    const pod = owned('p', ownerRef('ReplicaSet', 'web'));
    expect(keys(run({ kind: 'ReplicaSet' }, [updated(pod, pod)]))).to.deep.equal(['default/web']);
  });

  it('triggers the owner on deletes, tombstones and resyncs', () => {
    const pod = owned('p', ownerRef('ReplicaSet', 'web'));
    const out = run({ kind: 'ReplicaSet' }, [deleted(pod), deleted(pod, true), resync(pod)]);
    expect(out.map((t) => t.key)).to.deep.equal(['default/web', 'default/web', 'default/web']);
    expect(out.map((t) => t.reason)).to.deep.equal([
      'deleted Pod default/p',
      'deleted (state unknown) Pod default/p',
      'resync Pod default/p',
    ]);
  });

  it('reports malformed owner references and still follows the good ones', () => {
    const sink = errorSink();
    const pod = obj('p', {
      ownerReferences: [
        null,
        ownerRef('ReplicaSet', ''),
        ownerRef('ReplicaSet', 'web', { controller: false }),
      ] as never,
    });
    const notArray = obj('q', { ownerReferences: 'web' as never });
    const out = run({ kind: 'ReplicaSet', allOwners: true, onError: sink.onError }, [added(pod), added(notArray)]);
    expect(keys(out)).to.deep.equal(['default/web']);
    expect(sink.errors.map((e) => e.message)).to.deep.equal([
      'an owner reference is not an object (added default/p)',
      'a matching ReplicaSet owner reference has no name (added default/p)',
      'metadata.ownerReferences is not an array (added default/q)',
    ]);
    expect(sink.errors.every((e) => e instanceof KeyMappingError)).to.equal(true);
  });

  it('rejects a missing kind or a group-only apiVersion when it is built', () => {
    expect(() => toOwnerKeys({} as never)).to.throw(TypeError, /kind must be a non-empty string/);
    expect(() => toOwnerKeys({ kind: 'ReplicaSet', apiVersion: 'apps' })).to.throw(
      TypeError,
      /neither group\/version nor a core version/,
    );
    expect(() => toOwnerKeys({ kind: 'ReplicaSet', apiVersion: '' })).to.throw(TypeError, /apiVersion/);
  });

  it('emits the owner triggers at the frame of the child event', () => {
    new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    }).run(({ cold, expectObservable }) => {
      const pod = owned('p', ownerRef('ReplicaSet', 'web'));
      const source = cold('-a--b|', { a: added(pod), b: added(obj('lonely')) });
      expectObservable(source.pipe(toOwnerKeys({ kind: 'ReplicaSet' }))).toBe('-a---|', {
        a: { key: 'default/web', reason: 'added Pod default/p' },
      });
    });
  });
});
