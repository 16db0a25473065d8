import type { InformerProblem } from '../../src/informer/index.js';
import type { KubernetesObject } from '@kubernetes/client-node';
import { expect } from 'chai';
import { ownedView } from '../../src/views/index.js';
import { fed, membership, owned } from './fixtures.js';

describe('ownedView', () => {
  it("joins by uid: an owner created again under its name does not inherit its predecessor's dependents", () => {
    const owners = fed<KubernetesObject>();
    const children = fed<KubernetesObject>();
    const view = ownedView(owners.informer, children.informer);
    view.store$.subscribe();
    const first = owned('ReplicaSet', 'web', undefined, 'uid-web-1');
    owners.list([first]);
    children.list([owned('Pod', 'web-a', first), owned('Pod', 'stray', undefined)]);
    expect(membership(view.current().entries())).to.deep.equal({ 'default/web': ['default/web-a'] });
    owners.remove(first);
    owners.add(owned('ReplicaSet', 'web', undefined, 'uid-web-2'));
    expect(membership(view.current().entries())).to.deep.equal({ 'default/web': [] });
  });

  it('follows only controller references, unless allOwners', () => {
    const owners = fed<KubernetesObject>();
    const children = fed<KubernetesObject>();
    const controllerOnly = ownedView(owners.informer, children.informer);
    const all = ownedView(owners.informer, children.informer, { allOwners: true });
    controllerOnly.store$.subscribe();
    all.store$.subscribe();
    const rs = owned('ReplicaSet', 'web', undefined);
    owners.list([rs]);
    children.list([owned('Pod', 'controlled', rs), owned('Pod', 'adopted-not', rs, undefined, { controller: false })]);
    expect(membership(controllerOnly.current().entries())).to.deep.equal({ 'default/web': ['default/controlled'] });
    expect(membership(all.current().entries())).to.deep.equal({
      'default/web': ['default/adopted-not', 'default/controlled'],
    });
  });

  it("stacks: a Pod that comes, changes and goes reaches its Deployment's row through its ReplicaSet's", () => {
    const deployments = fed<KubernetesObject>();
    const replicaSets = fed<KubernetesObject>();
    const pods = fed<KubernetesObject>();
    const tree = ownedView(deployments.informer, ownedView(replicaSets.informer, pods.informer));
    const rowsSeen: number[] = [];
    tree.store$.subscribe((snapshot) => rowsSeen.push(snapshot.size));
    const web = owned('Deployment', 'web', undefined);
    const rs1 = owned('ReplicaSet', 'web-1', web);
    const rs2 = owned('ReplicaSet', 'web-2', web);
    deployments.list([web]);
    replicaSets.list([rs1, rs2]);
    pods.list([owned('Pod', 'web-1-a', rs1)]);
    const podsOf = () =>
      Object.fromEntries(
        [...tree.current().get('default/web')!.right.entries()].map(([key, row]) => [key, [...row.right.keys()]]),
      );
    expect(podsOf()).to.deep.equal({ 'default/web-1': ['default/web-1-a'], 'default/web-2': [] });
    const b = owned('Pod', 'web-2-b', rs2);
    pods.add(b);
    expect(podsOf()).to.deep.equal({ 'default/web-1': ['default/web-1-a'], 'default/web-2': ['default/web-2-b'] });
    const before = tree.current().get('default/web')!;
    pods.modify({ ...b, metadata: { ...b.metadata, labels: { ready: 'true' } } });
    const after = tree.current().get('default/web')!;
    expect(after).to.not.equal(before);
    expect(after.right.get('default/web-2')!.right.get('default/web-2-b')!.metadata!.labels).to.deep.equal({
      ready: 'true',
    });
    expect(after.right.get('default/web-1'), 'the untouched ReplicaSet row is shared').to.equal(
      before.right.get('default/web-1'),
    );
    pods.remove(b);
    expect(podsOf()).to.deep.equal({ 'default/web-1': ['default/web-1-a'], 'default/web-2': [] });
  });

  it("reports malformed owner references with the object's key, and keeps the well-formed ones", () => {
    const owners = fed<KubernetesObject>();
    const children = fed<KubernetesObject>();
    const view = ownedView(owners.informer, children.informer, { allOwners: true });
    const problems: InformerProblem[] = [];
    view.problems$.subscribe((problem) => problems.push(problem));
    view.store$.subscribe();
    const rs = owned('ReplicaSet', 'web', undefined);
    owners.list([rs]);
    const good = owned<KubernetesObject>('Pod', 'mixed', rs);
    const mixed = {
      ...good,
      metadata: {
        ...good.metadata,
        ownerReferences: [...good.metadata!.ownerReferences!, { kind: 'ReplicaSet', name: 'x' } as never],
      },
    };
    const broken = { ...good, metadata: { ...good.metadata, name: 'broken', ownerReferences: 'web' as never } };
    children.list([mixed, broken]);
    expect(membership(view.current().entries())).to.deep.equal({ 'default/web': ['default/mixed'] });
    const byKey = Object.fromEntries(problems.map((p) => [p.key, p.message]));
    expect(Object.keys(byKey).sort()).to.deep.equal(['default/broken', 'default/mixed']);
    expect(byKey['default/mixed']).to.match(/an owner reference has no uid/);
    expect(byKey['default/broken']).to.match(/ownerReferences is "web", not an array/);
  });
});
