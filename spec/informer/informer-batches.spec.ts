import { expect } from 'chai';
import { Subject } from 'rxjs';
import type { WatchEvent } from '../../src/watch/index.js';
import { informerFromSource, type InformerEvent } from '../../src/informer/index.js';
import type { Store } from '../../src/store/index.js';
import { pod, type TestPod } from '../store/fixtures.js';

type E = WatchEvent<TestPod>;
type Input = E | E[];
const added = (name: string, rv = '1'): E => ({ type: 'added', object: pod(name, rv) });
const modified = (name: string, rv: string): E => ({ type: 'modified', object: pod(name, rv) });
const deleted = (name: string, rv: string): E => ({ type: 'deleted', object: pod(name, rv) });
const relist = (rv: string, ...names: string[]): E[] => [
  { type: 'relistStarted' },
  ...names.map((name): E => ({ type: 'listed', object: pod(name, rv) })),
  { type: 'relistDone', resourceVersion: rv },
];

/** An informer over a Subject of batches, with every events$ event and every store$ snapshot recorded. */
function harness() {
  const source = new Subject<Input>();
  const informer = informerFromSource<TestPod>(source);
  const events: InformerEvent<TestPod>[] = [];
  const snapshots: Store<TestPod>[] = [];
  const log: string[] = [];
  informer.store$.subscribe((store) => snapshots.push(store));
  informer.events$.subscribe((event) => {
    events.push(event);
    log.push(`${event.type}:${event.object.metadata!.name}@${event.object.metadata!.resourceVersion}`);
  });
  informer.status$.subscribe((status) => log.push(`status:${status.state}`));
  informer.problems$.subscribe((problem) => log.push(`problem:${problem.reason}`));
  return { source, informer, events, snapshots, log };
}

describe('informerFromSource, fed batches', () => {
  it('applies a batch in one snapshot that every event of the batch carries, in order', () => {
    const { source, events, snapshots, log } = harness();
    source.next(relist('1', 'a', 'b'));
    source.next([modified('a', '2'), added('c', '3'), deleted('b', '4')]);
    expect(log).to.deep.equal(['added:a@1', 'added:b@1', 'updated:a@2', 'added:c@3', 'deleted:b@4']);
    expect(snapshots, 'the initial snapshot, the relist, the batch').to.have.length(3);
    const batch = events.slice(2);
    expect(new Set(batch.map((event) => event.snapshot))).to.deep.equal(new Set([snapshots[2]]));
    expect(snapshots[2]!.resourceVersion, "the version after the batch's last delta").to.equal('4');
  });

  it("cuts a batch before a key it already changed, so every event's snapshot shows its own change", () => {
    const { source, events, snapshots } = harness();
    source.next([added('a', '1'), added('b', '2'), modified('a', '3'), deleted('a', '4'), added('c', '5')]);
    expect(snapshots, 'initial, then [a b], [a], [a c]').to.have.length(4);
    for (const event of events) {
      if (event.type === 'deleted') expect(event.snapshot.has(event.key)).to.equal(false);
      else expect(event.snapshot.get(event.key)).to.equal(event.object);
    }
    expect(events[0]!.snapshot.has('default/b'), 'a snapshot may hold a later change of another key').to.equal(true);
    expect(events[0]!.snapshot.has('default/c')).to.equal(false);
  });

  it('gives a relist swap its own snapshot, apart from the changes around it', () => {
    const { source, snapshots, log } = harness();
    source.next([...relist('1', 'a'), added('b', '2'), ...relist('3', 'b'), modified('b', '4')]);
    expect(log).to.deep.equal(['added:a@1', 'added:b@2', 'updated:b@3', 'deleted:a@1', 'updated:b@4']);
    expect(snapshots.map((store) => [...store.keys()].sort().join())).to.deep.equal([
      '',
      'default/a',
      'default/a,default/b',
      'default/b',
      'default/b',
    ]);
    expect(snapshots.map((store) => store.synced)).to.deep.equal([false, true, true, true, true]);
  });

  it('keeps status and problems in their place between the events of a batch', () => {
    const { source, log } = harness();
    source.next([
      added('a'),
      { type: 'problem', problem: { reason: 'MalformedLine', message: 'bad', count: 1 } },
      added('b'),
      { type: 'status', status: { state: 'connecting' } },
      added('c'),
    ]);
    expect(log).to.deep.equal(['added:a@1', 'problem:MalformedLine', 'added:b@1', 'status:connecting', 'added:c@1']);
  });

  it("gives a subscriber that joins from an event inside a batch the batch's snapshot, then no event of it twice", () => {
    const { source, informer } = harness();
    const late: string[] = [];
    let joined = false;
    informer.events$.subscribe((event) => {
      if (joined || event.key !== 'default/a') return;
      joined = true;
      informer.events$.subscribe((seen) => late.push(`${seen.type}:${seen.key}`));
    });
    source.next([added('a'), added('b'), added('c')]);
    source.next([added('d')]);
    expect(late.slice(0, 3).sort(), 'the replay holds the whole batch').to.deep.equal([
      'added:default/a',
      'added:default/b',
      'added:default/c',
    ]);
    expect(late.slice(3), 'then live events, none of the replayed batch again').to.deep.equal(['added:default/d']);
  });

  it('stops applying a batch once the last subscriber left from inside it', () => {
    const source = new Subject<Input>();
    const informer = informerFromSource<TestPod>(source);
    const seen: string[] = [];
    const subscription = informer.events$.subscribe((event) => {
      seen.push(event.key);
      if (event.key === 'default/a') subscription.unsubscribe();
    });
    source.next([added('a'), added('a', '2'), added('b')]);
    expect(seen).to.deep.equal(['default/a']);
    expect(informer.current().has('default/b'), 'the rest of the batch belongs to a source that is gone').to.equal(
      false,
    );
  });
});
