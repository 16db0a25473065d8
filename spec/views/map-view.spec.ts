import type { V1Pod } from '@kubernetes/client-node';
import { expect } from 'chai';
import type { InformerProblem } from '../../src/informer/index.js';
import { diffSnapshots, filterView, mapView } from '../../src/views/index.js';
import { fed, pod } from './fixtures.js';

describe('mapView and filterView', () => {
  it('project each object under its own key, deep-frozen, and leave out what maps to nothing', () => {
    const pods = fed<V1Pod>();
    const view = mapView(pods.informer, (p) =>
      p.spec?.nodeName ? { metadata: p.metadata, node: p.spec.nodeName, seen: [p.status?.phase] } : undefined,
    );
    view.store$.subscribe();
    pods.list([pod('a', { node: 'n1' }), pod('b')]);
    expect([...view.current().keys()]).to.deep.equal(['default/a']);
    expect(view.current().get('default/a')).to.deep.include({ node: 'n1', seen: ['Running'] });
    expect(Object.isFrozen(view.current().get('default/a')!.seen)).to.equal(true);
  });

  it('keep the row, and publish nothing, when equals says a new projection is the same', () => {
    const pods = fed<V1Pod>();
    const view = mapView(pods.informer, (p) => ({ metadata: p.metadata, phase: p.status?.phase }), {
      equals: (a, b) => a.phase === b.phase,
    });
    const events: string[] = [];
    view.events$.subscribe((event) => events.push(event.type));
    const a = pod('a');
    pods.list([a]);
    const row = view.current().get('default/a');
    pods.modify({ ...a, metadata: { ...a.metadata, labels: { x: 'y' } } });
    expect(view.current().get('default/a')).to.equal(row);
    pods.modify({ ...a, status: { phase: 'Succeeded' } });
    expect(events).to.deep.equal(['added', 'updated']);
  });

  it('publish nothing for a step whose projections are the rows already there', () => {
    const pods = fed<V1Pod>();
    const rows = new Map<string, { metadata: V1Pod['metadata']; phase?: string }>();
    const view = mapView(pods.informer, (p) => {
      const key = `${p.metadata!.namespace}/${p.metadata!.name}`;
      const cached = rows.get(key);
      if (cached?.phase === p.status?.phase) return cached;
      const row = { metadata: p.metadata, phase: p.status?.phase };
      rows.set(key, row);
      return row;
    });
    let snapshots = 0;
    view.store$.subscribe(() => {
      snapshots += 1;
    });
    const a = pod('a');
    pods.list([a]);
    expect(snapshots).to.equal(2);
    pods.modify({ ...a, metadata: { ...a.metadata, labels: { x: 'y' } } });
    expect(snapshots, 'the same row object: no new snapshot').to.equal(2);
  });

  it('report a projection keyed other than its source, and leave it out', () => {
    const pods = fed<V1Pod>();
    const view = mapView(pods.informer, (p) => ({ metadata: { name: `${p.metadata!.name}-renamed` } }));
    const problems: InformerProblem[] = [];
    view.problems$.subscribe((problem) => problems.push(problem));
    view.store$.subscribe();
    pods.list([pod('a')]);
    expect(view.current().size).to.equal(0);
    expect(problems.map((p) => [p.reason, p.key])).to.deep.equal([['TransformFailed', 'default/a']]);
    expect(problems[0]!.message).to.match(
      /the projection of default\/a is keyed a-renamed; keep the source's metadata.name and metadata.namespace/,
    );
  });

  it("filter the same objects under the same keys, and report a test that throws as the test's fault", () => {
    const pods = fed<V1Pod>();
    const pending = filterView(pods.informer, (p) => {
      if (p.metadata?.name === 'bad') throw new Error('cannot tell');
      return p.status?.phase === 'Pending';
    });
    const problems: InformerProblem[] = [];
    pending.problems$.subscribe((problem) => problems.push(problem));
    pending.store$.subscribe();
    const b = pod('b', { phase: 'Pending' });
    pods.list([pod('a'), b, pod('bad')]);
    expect([...pending.current().keys()]).to.deep.equal(['default/b']);
    expect(pending.current().get('default/b')).to.equal(pods.informer.current().get('default/b'));
    expect(problems[0]!.message).to.match(/^filterView: the test threw on default\/bad; it is left out: cannot tell/);
    pods.modify({ ...b, status: { phase: 'Running' } });
    expect(pending.current().size).to.equal(0);
  });
});

describe('diffSnapshots', () => {
  it('emits each snapshot with what changed since the one before, the first as all added', () => {
    const pods = fed<V1Pod>();
    const seen: string[][] = [];
    pods.informer.store$.pipe(diffSnapshots()).subscribe(({ changes, previous, snapshot }) => {
      expect(previous === undefined || previous !== snapshot).to.equal(true);
      seen.push(changes.map((c) => `${c.type} ${c.key}`).sort());
    });
    const a = pod('a');
    pods.list([a, pod('b')]);
    pods.batch([
      { type: 'modified', object: { ...a, status: { phase: 'Failed' } } },
      { type: 'deleted', object: pod('b') },
      { type: 'added', object: pod('c') },
    ]);
    expect(seen).to.deep.equal([
      [],
      ['added default/a', 'added default/b'],
      ['added default/c', 'deleted default/b', 'updated default/a'],
    ]);
  });
});
