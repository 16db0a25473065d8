import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { expect } from 'chai';
import type { InformerEvent, InformerProblem } from '../../src/informer/index.js';
import type { Store } from '../../src/store/index.js';
import { joinView, type JoinRow } from '../../src/views/index.js';
import { fed, membership, node, pod } from './fixtures.js';

function podsByNode(
  options: { leftKey?: (node: V1Node) => string | undefined; rightKey?: (pod: V1Pod) => unknown } = {},
) {
  const nodes = fed<V1Node>();
  const pods = fed<V1Pod>();
  const view = joinView(nodes.informer, pods.informer, {
    leftKey: options.leftKey ?? ((n) => n.metadata?.name),
    rightKey: (options.rightKey ?? ((p: V1Pod) => p.spec?.nodeName)) as (pod: V1Pod) => string | undefined,
  });
  return { nodes, pods, view };
}

describe('joinView', () => {
  it('holds each Node with the Pods that name it, and moves a Pod when it is rescheduled', () => {
    const { nodes, pods, view } = podsByNode();
    view.store$.subscribe();
    nodes.list([node('n1'), node('n2')]);
    const a = pod('a', { node: 'n1' });
    pods.list([a, pod('b', { node: 'n1' }), pod('c', { node: 'n2' }), pod('pending')]);
    expect(membership(view.current().entries())).to.deep.equal({ n1: ['default/a', 'default/b'], n2: ['default/c'] });
    pods.modify({ ...a, spec: { ...a.spec!, nodeName: 'n2' } });
    expect(membership(view.current().entries())).to.deep.equal({ n1: ['default/b'], n2: ['default/a', 'default/c'] });
    expect(view.current().get('n2')!.right.get('default/a')!.spec!.nodeName).to.equal('n2');
    expect(view.current().get('n1')!.left.metadata!.name).to.equal('n1');
  });

  it("keeps a Pod whose Node has not arrived yet, and shows it in that Node's row once the Node does", () => {
    const { nodes, pods, view } = podsByNode();
    view.store$.subscribe();
    nodes.list([]);
    pods.list([pod('early', { node: 'n9' })]);
    expect(view.current().size).to.equal(0);
    nodes.add(node('n9'));
    expect(membership(view.current().entries())).to.deep.equal({ n9: ['default/early'] });
  });

  it('stays empty and unsynced until both informers have synced, then shows every row in one snapshot', () => {
    const { nodes, pods, view } = podsByNode();
    const snapshots: Store<JoinRow<V1Node, V1Pod>>[] = [];
    const events: InformerEvent<JoinRow<V1Node, V1Pod>>[] = [];
    view.store$.subscribe((snapshot) => snapshots.push(snapshot));
    view.events$.subscribe((event) => events.push(event));
    const synced: boolean[] = [];
    view.synced$.subscribe((value) => synced.push(value));
    nodes.list([node('n1'), node('n2')]);
    expect(view.current().synced).to.equal(false);
    expect(view.current().size).to.equal(0);
    pods.list([pod('a', { node: 'n1' })]);
    expect(synced).to.deep.equal([false, true]);
    expect(snapshots.map((s) => [s.synced, s.size])).to.deep.equal([
      [false, 0],
      [true, 2],
    ]);
    expect(events.map((e) => `${e.type} ${e.key}`).sort()).to.deep.equal(['added n1', 'added n2']);
    expect(view.current().resourceVersion).to.equal('');
  });

  it('calls the key functions only for the objects that changed, never over the caches again', () => {
    let leftCalls = 0;
    let rightCalls = 0;
    const { nodes, pods, view } = podsByNode({
      leftKey: (n) => {
        leftCalls += 1;
        return n.metadata?.name;
      },
      rightKey: (p) => {
        rightCalls += 1;
        return p.spec?.nodeName;
      },
    });
    view.store$.subscribe();
    nodes.list(Array.from({ length: 50 }, (_, i) => node(`n${i}`)));
    const many = Array.from({ length: 500 }, (_, i) => pod(`p${i}`, { node: `n${i % 50}` }));
    pods.list(many);
    expect([leftCalls, rightCalls]).to.deep.equal([50, 500]);
    pods.modify({ ...many[7]!, status: { phase: 'Failed' } });
    expect([leftCalls, rightCalls], 'old and new state of one Pod').to.deep.equal([50, 502]);
    nodes.modify(node('n3', { zone: 'b' }));
    expect([leftCalls, rightCalls], 'old and new state of one Node').to.deep.equal([52, 502]);
    expect(view.current().get('n3')!.right.size).to.equal(10);
  });

  it('gives Nodes that share a join key the same group of Pods', () => {
    const { nodes, pods, view } = podsByNode({
      leftKey: (n) => n.metadata?.labels?.zone,
      rightKey: (p) => p.metadata?.labels?.zone,
    });
    view.store$.subscribe();
    nodes.list([node('n1', { zone: 'a' }), node('n2', { zone: 'a' }), node('n3', { zone: 'b' })]);
    const a = pod('a');
    pods.list([{ ...a, metadata: { ...a.metadata, labels: { zone: 'a' } } }]);
    const rows = view.current();
    expect(rows.get('n1')!.right).to.equal(rows.get('n2')!.right);
    expect(membership(rows.entries())).to.deep.equal({ n1: ['default/a'], n2: ['default/a'], n3: [] });
  });

  it("reports a key function that throws or returns a non-key with the object's key, leaves that object out, and carries on", () => {
    const { nodes, pods, view } = podsByNode({
      rightKey: (p) => {
        if (p.metadata?.name === 'bomb') throw new Error('no node for you');
        if (p.metadata?.name === 'odd') return 42;
        return p.spec?.nodeName;
      },
    });
    const problems: InformerProblem[] = [];
    view.problems$.subscribe((problem) => problems.push(problem));
    view.store$.subscribe();
    nodes.list([node('n1')]);
    pods.list([pod('bomb', { node: 'n1' }), pod('odd', { node: 'n1' }), pod('fine', { node: 'n1' })]);
    expect(membership(view.current().entries())).to.deep.equal({ n1: ['default/fine'] });
    expect(problems.map((p) => [p.reason, p.key])).to.deep.equal([
      ['TransformFailed', 'default/bomb'],
      ['TransformFailed', 'default/odd'],
    ]);
    expect(problems[0]!.message).to.match(/joinView: rightKey threw on default\/bomb; it is left out: no node for you/);
    expect(problems[1]!.message).to.match(/returned 42 for default\/odd, not a key/);
  });

  it('lets go of its inputs when the last subscriber leaves, and rebuilds from them when subscribed again', () => {
    const { nodes, pods, view } = podsByNode();
    const keepInputs = [nodes.informer.store$.subscribe(), pods.informer.store$.subscribe()];
    nodes.list([node('n1')]);
    pods.list([pod('a', { node: 'n1' })]);
    const first = view.store$.subscribe();
    expect(membership(view.current().entries())).to.deep.equal({ n1: ['default/a'] });
    first.unsubscribe();
    pods.add(pod('b', { node: 'n1' }));
    expect(membership(view.current().entries()), 'not running: the last snapshot').to.deep.equal({ n1: ['default/a'] });
    view.store$.subscribe();
    expect(membership(view.current().entries())).to.deep.equal({ n1: ['default/a', 'default/b'] });
    keepInputs.forEach((s) => s.unsubscribe());
  });

  it('refuses inputs that are not informers and key functions that are not functions, at once', () => {
    const { nodes } = podsByNode();
    expect(() => joinView(nodes.informer, {} as never, { leftKey: () => 'x', rightKey: () => 'x' })).to.throw(
      TypeError,
      /input 2 is not an informer or a view/,
    );
    expect(() => joinView(nodes.informer, nodes.informer, { leftKey: 'name' as never, rightKey: () => 'x' })).to.throw(
      TypeError,
      /leftKey must be a function/,
    );
  });
});
