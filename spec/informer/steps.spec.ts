import { expect } from 'chai';
import { Subject } from 'rxjs';
import {
  buildInformer,
  informerFromSource,
  preparedStep,
  stepsOf,
  type InformerStep,
  type PreparedStep,
} from '../../src/informer/index.js';
import { Store, editStore } from '../../src/store/index.js';
import type { WatchEvent } from '../../src/watch/index.js';
import { pod, type TestPod } from '../store/fixtures.js';

describe('informer steps (what views read and write)', () => {
  it('replay the current snapshot, then give every step with the snapshot before it and exactly its changes', () => {
    const source = new Subject<readonly WatchEvent<TestPod>[]>();
    const informer = informerFromSource(source);
    const a = pod('a', '1');
    informer.store$.subscribe();
    source.next([
      { type: 'relistStarted' },
      { type: 'listed', object: a },
      { type: 'relistDone', resourceVersion: '1' },
    ]);
    const seen: (Store<TestPod> | InformerStep<TestPod>)[] = [];
    const stores: Store<TestPod>[] = [];
    informer.store$.subscribe((store) => stores.push(store));
    stepsOf<TestPod>(informer)!.subscribe((value) => seen.push(value));
    expect(seen[0]).to.equal(informer.current());
    const a2 = pod('a', '2');
    // One batch, cut in two steps because it changes a twice.
    source.next([
      { type: 'modified', object: a2 },
      { type: 'added', object: pod('b', '3') },
      { type: 'deleted', object: a2 },
    ]);
    const steps = seen.slice(1) as InformerStep<TestPod>[];
    expect(steps.map((step) => step.changes.map((c) => `${c.type} ${c.key}`))).to.deep.equal([
      ['updated default/a', 'added default/b'],
      ['deleted default/a'],
    ]);
    expect(steps[0]!.previous).to.equal(seen[0]);
    expect(steps[1]!.previous).to.equal(steps[0]!.store);
    expect(steps.map((step) => step.store)).to.deep.equal(stores.slice(1));
  });

  it('are undefined for anything not built by informerFromSource', () => {
    expect(stepsOf({ store$: new Subject() })).to.equal(undefined);
  });

  it('publish a prepared step as it is, and apply later deltas to its snapshot', () => {
    const source = new Subject<readonly WatchEvent<TestPod>[] | PreparedStep<TestPod>>();
    const informer = buildInformer<TestPod>(source);
    const events: string[] = [];
    informer.events$.subscribe((event) => events.push(`${event.type} ${event.key}`));
    const editor = editStore(Store.empty<TestPod>());
    editor.set('default/a', pod('a', '1'));
    const built = editor.commit({ synced: true });
    source.next(preparedStep(built, [{ type: 'added', key: 'default/a', object: built.get('default/a')! }]));
    expect(informer.current()).to.equal(built);
    source.next([{ type: 'added', object: pod('b', '2') }]);
    expect([...informer.current().keys()].sort()).to.deep.equal(['default/a', 'default/b']);
    expect(informer.current().synced).to.equal(true);
    expect(events).to.deep.equal(['added default/a', 'added default/b']);
  });
});
