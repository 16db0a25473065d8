import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { expect } from 'chai';
import { of } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { reconcile, type ReconcileTrigger } from '../../src/controller/index.js';
import { controller } from '../../src/controller/builder/index.js';
import { fakeInformer, watchEvent } from '../../src/testing/index.js';
import { joinView, toJoinKeys } from '../../src/views/index.js';
import { fed, node, pod } from './fixtures.js';

function podsByNode() {
  const nodes = fed<V1Node>();
  const pods = fed<V1Pod>();
  const view = joinView(nodes.informer, pods.informer, {
    leftKey: (n) => n.metadata?.name,
    rightKey: (p) => p.spec?.nodeName,
  });
  return { nodes, pods, view };
}

describe('toJoinKeys', () => {
  it('triggers a Node when a Pod joins or leaves it, with reasons naming the Pods', () => {
    const { nodes, pods, view } = podsByNode();
    const triggers: ReconcileTrigger[] = [];
    view.events$.pipe(toJoinKeys()).subscribe((trigger) => triggers.push(trigger));
    nodes.list([node('n1'), node('n2')]);
    const a = pod('a', { node: 'n1' });
    pods.list([a]);
    expect(triggers.map((t) => `${t.key}: ${t.reason}`).sort()).to.deep.equal([
      'n1: added Node n1',
      'n2: added Node n2',
    ]);
    triggers.length = 0;
    pods.batch([
      { type: 'modified', object: { ...a, spec: { ...a.spec!, nodeName: 'n2' } } },
      { type: 'added', object: pod('b', { node: 'n2' }) },
      { type: 'added', object: pod('c', { node: 'n2' }) },
    ]);
    const lines = triggers.map((t) => `${t.key}: ${t.reason}`).sort();
    expect(lines).to.have.length(2);
    expect(lines[0]).to.equal('n1: Pod default/a left Node n1');
    // Which of the three comes first is hash order.
    expect(lines[1]).to.match(/^n2: Pod default\/[abc] and 2 more joined Node n2$/);
  });

  it("does not trigger when a Pod changes in place or the Node itself changes, unless on: 'any'", () => {
    const { nodes, pods, view } = podsByNode();
    const members: string[] = [];
    const any: string[] = [];
    view.events$.pipe(toJoinKeys()).subscribe((t) => members.push(`${t.key}: ${t.reason}`));
    view.events$.pipe(toJoinKeys({ on: 'any' })).subscribe((t) => any.push(`${t.key}: ${t.reason}`));
    nodes.list([node('n1')]);
    const a = pod('a', { node: 'n1' });
    pods.list([a]);
    members.length = 0;
    any.length = 0;
    pods.modify({ ...a, status: { phase: 'Failed' } });
    nodes.modify(node('n1', { cordoned: 'yes' }));
    expect(members).to.deep.equal([]);
    expect(any).to.deep.equal(['n1: Pod default/a changed on Node n1', 'n1: updated Node n1']);
    nodes.remove(node('n1'));
    expect(members).to.deep.equal(['n1: deleted Node n1']);
  });

  it('reconciles a Node when the set of its Pods changes, reading the Node and its Pods from the view at start', () => {
    const scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
    scheduler.run((helpers) => {
      const n1 = node('n1');
      const [a, b] = [pod('a', { node: 'n1' }), pod('b', { node: 'n1' })];
      const nodes = fakeInformer<V1Node>(helpers, 'a', { a: watchEvent.relist([n1]) });
      // Pods list at 2 ms; b arrives at 5, changes its phase at 8 (nothing to reconcile), leaves at 12.
      const pods = fakeInformer<V1Pod>(helpers, '--a--b--c---d', {
        a: watchEvent.relist([a]),
        b,
        c: { ...b, status: { phase: 'Failed' } },
        d: watchEvent.deleted(b),
      });
      const view = joinView(nodes, pods, { leftKey: (n) => n.metadata?.name, rightKey: (p) => p.spec?.nodeName });
      const runs: string[] = [];
      view.events$
        .pipe(
          toJoinKeys(),
          reconcile(
            ({ key, object, reasons }) => {
              runs.push(
                `${scheduler.now()} ${key} [${[...object!.right.keys()].sort().join(' ')}] ${reasons.join('; ')}`,
              );
              return of(undefined);
            },
            { lookup: view, gate: view.synced$, scheduler },
          ),
        )
        .subscribe();
      helpers.flush();
      expect(runs).to.deep.equal([
        '2 n1 [default/a] added Node n1',
        '5 n1 [default/a default/b] Pod default/b joined Node n1',
        '12 n1 [default/a] Pod default/b left Node n1',
      ]);
    });
  });

  it('serves as the primary of a controller, which reconciles each row with the row read at start', () => {
    const scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
    scheduler.run((helpers) => {
      const nodes = fakeInformer<V1Node>(helpers, 'a', { a: watchEvent.relist([node('n1'), node('n2')]) });
      const pods = fakeInformer<V1Pod>(helpers, 'a--b', {
        a: watchEvent.relist([pod('a', { node: 'n1' })]),
        b: pod('b', { node: 'n2' }),
      });
      const view = joinView(nodes, pods, { leftKey: (n) => n.metadata?.name, rightKey: (p) => p.spec?.nodeName });
      const runs: string[] = [];
      controller({
        for: view,
        scheduler,
        reconcile: ({ key, object }) => {
          runs.push(`${scheduler.now()} ${key} ${object?.right.size}`);
        },
      }).subscribe();
      helpers.flush();
      expect(runs.sort()).to.deep.equal(['0 n1 1', '0 n2 0', '3 n2 1']);
    });
  });
});
