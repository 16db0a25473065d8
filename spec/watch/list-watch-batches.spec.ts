import type { KubernetesObject } from '@kubernetes/client-node';
import { expect } from 'chai';
import { concat, NEVER, of, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { expandListedPages, listWatch, listWatchBatches, type ReflectorDelta } from '../../src/watch/index.js';
import { ChunkedFakeTransport, FakeTransport, kc, line, page, pod, PODS } from './fake-transport.js';

/**
 * `type:name`, `status:state`, `problem:reason`, `relistDone:rv`, `listedPages:a,b|c` (pages split by `|`): compact
 * enough to compare batches.
 */
function label(event: ReflectorDelta): string {
  switch (event.type) {
    case 'listedPages':
      return `listedPages:${event.pages.map((objects) => objects.map((object) => object.metadata?.name).join(',')).join('|')}`;
    case 'status':
      return `status:${event.status.state}`;
    case 'problem':
      return `problem:${event.problem.reason}`;
    case 'relistStarted':
      return 'relistStarted';
    case 'relistDone':
    case 'bookmark':
      return `${event.type}:${event.resourceVersion}`;
    default:
      return `${event.type}:${event.object.metadata?.name ?? '?'}`;
  }
}

/** Runs `listWatchBatches` over a scripted transport in virtual time and returns its batches, as labels. */
function run(fake: FakeTransport, untilMs = 10_000): { batches: string[][] } {
  const batches: string[][] = [];
  const scheduler = new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
  scheduler.run(() => {
    const options = { transport: fake, random: () => 0.5 };
    const subscription = listWatchBatches<KubernetesObject>(kc, PODS, options).subscribe((batch) =>
      batches.push(batch.map(label)),
    );
    scheduler.schedule(() => subscription.unsubscribe(), untilMs);
  });
  expect(fake.unexpected).to.deep.equal([]);
  return { batches };
}

/** Whether a batch (as labels) is a relist. */
const relist = (batch: string[]): boolean => batch[0] === 'relistStarted';

/** The batches after the watch was accepted. */
const watched = (batches: string[][]) => batches.slice(batches.findIndex((b) => b[0] === 'status:watching') + 1);

const watchOf = (...emissions: (string | string[])[]): Observable<string> =>
  concat(of(...emissions), NEVER) as unknown as Observable<string>;

describe('listWatchBatches', () => {
  it('emits a whole relist as one batch and every status as a batch of its own', () => {
    const fake = new FakeTransport().onGet(of(page([pod('a', '1'), pod('b', '2')], '10'))).onWatch(NEVER);
    expect(run(fake).batches).to.deep.equal([
      ['status:connecting'],
      ['status:listing'],
      ['relistStarted', 'listedPages:a,b', 'relistDone:10'],
      ['status:connecting'],
      ['status:watching'],
    ]);
  });

  it('brings the objects of a paginated list as one listedPages, page by page, and none for an empty list', () => {
    const paged = new FakeTransport()
      .onGet(of(page([pod('a', '1'), pod('b', '2')], '10', 'tok')))
      .onGet(of(page([pod('c', '3')], '10')))
      .onWatch(NEVER);
    expect(run(paged).batches.find(relist)).to.deep.equal(['relistStarted', 'listedPages:a,b|c', 'relistDone:10']);
    const empty = new FakeTransport().onGet(of(page([], '10'))).onWatch(NEVER);
    expect(run(empty).batches.find(relist)).to.deep.equal(['relistStarted', 'relistDone:10']);
  });

  it('emits the events of the lines of one chunk as one batch', () => {
    const fake = new ChunkedFakeTransport()
      .onGet(of(page([], '10')))
      .onWatch(
        watchOf(
          [line('ADDED', pod('a', '11')), line('MODIFIED', pod('a', '12')), '', line('DELETED', pod('b', '13'))],
          [line('ADDED', pod('c', '14'))],
        ),
      );
    expect(watched(run(fake).batches)).to.deep.equal([['added:a', 'modified:a', 'deleted:b'], ['added:c']]);
  });

  it('keeps the problem and status of a bad line after the events before it, and ignores the rest of its chunk', () => {
    const fake = new ChunkedFakeTransport()
      .onGet(of(page([], '10')))
      .onWatch(watchOf([line('ADDED', pod('a', '11')), '{not json', line('ADDED', pod('b', '12'))]));
    const { batches } = run(fake, 100);
    expect(watched(batches)[0]).to.deep.equal(['added:a', 'problem:MalformedLine', 'status:backingOff']);
    expect(batches.flat()).to.not.include('added:b');
  });

  it("keeps a streaming list that ends inside a chunk in that chunk's batch, followed by what came after it", () => {
    const fake = new ChunkedFakeTransport().onWatch(
      watchOf(
        [line('ADDED', pod('x', '21')), line('ADDED', pod('y', '22'))],
        [
          line('BOOKMARK', {
            metadata: { resourceVersion: '30', annotations: { 'k8s.io/initial-events-end': 'true' } },
          }),
          line('MODIFIED', pod('x', '31')),
        ],
      ),
    );
    const batches: string[][] = [];
    const scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
    scheduler.run(() => {
      const subscription = listWatchBatches<KubernetesObject>(kc, PODS, {
        transport: fake,
        random: () => 0.5,
        streamingList: true,
      }).subscribe((batch) => batches.push(batch.map(label)));
      scheduler.schedule(() => subscription.unsubscribe(), 10_000);
    });
    expect(batches.at(-1)).to.deep.equal([
      'relistStarted',
      'listedPages:x,y',
      'relistDone:30',
      'status:watching',
      'modified:x',
    ]);
  });

  it('makes every line a batch of its own when the transport cannot report chunks', () => {
    const fake = new FakeTransport()
      .onGet(of(page([], '10')))
      .onWatch(watchOf(line('ADDED', pod('a', '11')), line('ADDED', pod('b', '12'))));
    expect(watched(run(fake).batches)).to.deep.equal([['added:a'], ['added:b']]);
  });

  it('carries the same events as listWatch, in the same order', () => {
    const script = (fake: FakeTransport) =>
      fake
        .onGet(of(page([pod('a', '1')], '10')))
        .onWatch(
          watchOf(
            [line('MODIFIED', pod('a', '11')), line('BOOKMARK', { metadata: { resourceVersion: '12' } })],
            [line('DELETED', pod('a', '13'))],
          ),
        );
    const flat: string[] = [];
    const scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
    scheduler.run(() => {
      const subscription = listWatch<KubernetesObject>(kc, PODS, {
        transport: script(new ChunkedFakeTransport()),
        random: () => 0.5,
      }).subscribe((event) => flat.push(label(event)));
      scheduler.schedule(() => subscription.unsubscribe(), 10_000);
    });
    const expanded: string[] = [];
    scheduler.run(() => {
      const subscription = listWatchBatches<KubernetesObject>(kc, PODS, {
        transport: script(new ChunkedFakeTransport()),
        random: () => 0.5,
      }).subscribe((batch) => expanded.push(...expandListedPages(batch).map(label)));
      scheduler.schedule(() => subscription.unsubscribe(), 10_000);
    });
    expect(flat).to.include('listed:a');
    expect(flat).to.deep.equal(expanded);
  });
});
