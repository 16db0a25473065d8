import { expect } from 'chai';
import { Subject } from 'rxjs';
import type { WatchEvent } from '../../src/watch/index.js';
import { informerFromSource, type InformerEvent } from '../../src/informer/index.js';
import { pod, type TestPod } from '../store/fixtures.js';

type E = WatchEvent<TestPod>;
const started: E = { type: 'relistStarted' };
const listed = (name: string, rv = '1'): E => ({ type: 'listed', object: pod(name, rv) });
const done = (rv = '1'): E => ({ type: 'relistDone', resourceVersion: rv });
const modified = (name: string, rv: string): E => ({ type: 'modified', object: pod(name, rv) });

/** `type:name` plus ` (list)` for an event marked `fromList`. */
const label = (event: InformerEvent<TestPod>): string =>
  `${event.type}:${event.object.metadata!.name}${'fromList' in event && event.fromList === true ? ' (list)' : ''}`;

describe('informer events that come from a list (fromList)', () => {
  it('marks the initial list and the changes a relist found, and no live event', () => {
    const source = new Subject<E | readonly E[]>();
    const informer = informerFromSource<TestPod>(source);
    const seen: string[] = [];
    informer.events$.subscribe((event) => seen.push(label(event)));
    source.next([started, listed('a'), listed('b'), done()]);
    source.next(modified('a', '2'));
    // The relist finds a changed, b gone and c new; a relist split over several emissions marks them just the same.
    source.next([started, listed('a', '3')]);
    source.next([listed('c', '4'), done('4'), modified('c', '5')]);
    expect(seen).to.deep.equal([
      'added:a (list)',
      'added:b (list)',
      'updated:a',
      'updated:a (list)',
      'added:c (list)',
      'deleted:b (list)',
      'updated:c',
    ]);
  });

  it('marks the replay a late subscriber gets, then not the live events after it', () => {
    const source = new Subject<E | readonly E[]>();
    const informer = informerFromSource<TestPod>(source);
    informer.events$.subscribe();
    source.next([started, listed('a'), done()]);
    const late: string[] = [];
    informer.events$.subscribe((event) => late.push(label(event)));
    source.next(modified('a', '2'));
    expect(late).to.deep.equal(['added:a (list)', 'updated:a']);
  });
});
