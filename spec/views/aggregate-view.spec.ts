import type { V1Pod } from '@kubernetes/client-node';
import { expect } from 'chai';
import type { InformerProblem } from '../../src/informer/index.js';
import { aggregateView, type SnapshotDiff, type AggregateRow } from '../../src/views/index.js';
import { fed, pod } from './fixtures.js';

const restarts = (p: V1Pod) => (p.status?.containerStatuses ?? []).reduce((n, c) => n + c.restartCount, 0);
const byPhase = (p: V1Pod) => `${p.metadata?.namespace}/${p.status?.phase ?? 'Unknown'}`;

describe('aggregateView', () => {
  it("counts Pods and sums their restarts per phase per namespace, and lists one namespace's groups", () => {
    const pods = fed<V1Pod>();
    const view = aggregateView(pods.informer, { groupBy: byPhase, sums: { restarts } });
    view.store$.subscribe();
    const a = pod('a', { restarts: 2 });
    pods.list([a, pod('b', { restarts: 1 }), pod('c', { phase: 'Pending' }), pod('d', { namespace: 'kube-system' })]);
    const row = (key: string) => view.current().get(key);
    expect(row('default/Running')).to.deep.equal({
      metadata: { namespace: 'default', name: 'Running' },
      count: 2,
      sums: { restarts: 3 },
    });
    expect(
      view
        .current()
        .list({ namespace: 'default' })
        .map((r) => r.metadata.name)
        .sort(),
    ).to.deep.equal(['Pending', 'Running']);
    pods.modify({ ...a, status: { ...a.status, phase: 'Pending' } });
    expect([
      row('default/Running')?.count,
      row('default/Running')?.sums.restarts,
      row('default/Pending')?.count,
      row('default/Pending')?.sums.restarts,
    ]).to.deep.equal([1, 1, 2, 2]);
    pods.remove(pod('d', { namespace: 'kube-system' }));
    expect(row('kube-system/Running'), 'a group whose count falls to 0 leaves').to.equal(undefined);
  });

  it('publishes nothing when a change moves no count and no sum', () => {
    const pods = fed<V1Pod>();
    const view = aggregateView(pods.informer, { groupBy: byPhase, sums: { restarts } });
    const diffs: SnapshotDiff<AggregateRow<'restarts'>>[] = [];
    view.changes$.subscribe((diff) => diffs.push(diff));
    const a = pod('a');
    pods.list([a]);
    pods.modify({ ...a, metadata: { ...a.metadata, labels: { touched: 'yes' } } });
    expect(diffs.map((d) => d.changes.map((c) => `${c.type} ${c.key}`))).to.deep.equal([[], ['added default/Running']]);
  });

  it('reports a group key no object could have and a sum that is not a number, and does not count them', () => {
    const pods = fed<V1Pod>();
    const view = aggregateView(pods.informer, {
      groupBy: (p) => (p.metadata?.name === 'slash' ? 'default/' : byPhase(p)),
      sums: { restarts: (p) => (p.metadata?.name === 'nan' ? Number.NaN : restarts(p)) },
    });
    const problems: InformerProblem[] = [];
    view.problems$.subscribe((problem) => problems.push(problem));
    view.store$.subscribe();
    pods.list([pod('slash'), pod('nan', { restarts: 4 }), pod('ok', { restarts: 1 })]);
    expect(view.current().get('default/Running')).to.deep.equal({
      metadata: { namespace: 'default', name: 'Running' },
      count: 2,
      sums: { restarts: 1 },
    });
    const byKey = Object.fromEntries(problems.map((p) => [p.key, p.message]));
    expect(byKey['default/slash']).to.include(
      `groupBy returned "default/" for default/slash, which no object key can be`,
    );
    expect(byKey['default/nan']).to.match(
      /sum "restarts" returned NaN for default\/nan, not a finite number; it counts 0/,
    );
  });
});
