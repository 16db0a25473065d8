/**
 * Each fault of the virtual cluster in marble form: a raw watch or request through its Transport, the fault
 * scheduled at a virtual frame, and the exact frames at which lines, completions and errors arrive.
 */
import { expect } from 'chai';
import { catchError, map, of, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { virtualCluster, type VirtualCluster } from '../../../src/testing/index.js';
import { ApiError, TransportError } from '../../../src/transport/index.js';

const PATH = '/api/v1/namespaces/default/configmaps';

function marbles(
  body: (
    cluster: VirtualCluster,
    helpers: { expectObservable: TestScheduler['expectObservable']; at(frame: number, work: () => void): void },
  ) => void,
): void {
  const scheduler = new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
  scheduler.run(({ expectObservable, flush }) => {
    const cluster = virtualCluster({ scheduler, seed: 9, bookmarkIntervalMs: 1_000_000 });
    const at = (frame: number, work: () => void): void => void scheduler.schedule(work, frame);
    body(cluster, { expectObservable, at });
    flush();
    cluster.close();
  });
}

/** `TYPE:name` of a watch line, `bad` for a line that is not JSON, the error's code or reason as a value. */
function lines(watch$: Observable<string>): Observable<string> {
  return watch$.pipe(
    map((line) => {
      try {
        const event = JSON.parse(line) as { type: string; object: { metadata?: { name?: string }; code?: number } };
        return `${event.type}:${event.object.metadata?.name ?? event.object.code}`;
      } catch {
        return 'bad';
      }
    }),
    catchError((error: unknown) =>
      of(error instanceof ApiError ? `api${error.code}` : error instanceof TransportError ? error.reason : 'other'),
    ),
  );
}

/** The object names of each chunk of a `watchChunks` stream, joined with `+` (one value per chunk). */
function chunkNames(chunks$: Observable<readonly string[]>): Observable<string> {
  return chunks$.pipe(
    map((chunk) =>
      chunk
        .map((line) => (JSON.parse(line) as { object: { metadata: { name: string } } }).object.metadata.name)
        .join('+'),
    ),
  );
}

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } });

describe('virtualCluster faults (marbles)', () => {
  it('a write reaches an open watch in the frame it commits', () => {
    marbles((cluster, { expectObservable, at }) => {
      const rv = cluster.resourceVersion();
      at(3, () => cluster.seed([cm('a')]));
      at(6, () => cluster.seed([cm('b')]));
      expectObservable(lines(cluster.watch(PATH, { resourceVersion: rv })), '^ 9ms !').toBe('---a--b', {
        a: 'ADDED:a',
        b: 'ADDED:b',
      });
    });
  });

  it('dropWatches clean completes the watch; abrupt cuts it with ConnectionClosed', () => {
    marbles((cluster, { expectObservable, at }) => {
      at(4, () => cluster.faults.dropWatches());
      expectObservable(lines(cluster.watch(PATH, { resourceVersion: cluster.resourceVersion() }))).toBe('----|');
    });
    marbles((cluster, { expectObservable, at }) => {
      at(4, () => cluster.faults.dropWatches({ mode: 'abrupt' }));
      expectObservable(lines(cluster.watch(PATH, { resourceVersion: cluster.resourceVersion() }))).toBe('----(c|)', {
        c: 'ConnectionClosed',
      });
    });
  });

  it('compact expires a later watch from an older resourceVersion: one 410 ERROR line, then the end', () => {
    marbles((cluster, { expectObservable, at }) => {
      const old = cluster.resourceVersion();
      cluster.seed([cm('a'), cm('b')]);
      at(2, () => cluster.faults.compact());
      expectObservable(lines(cluster.watch(PATH, { resourceVersion: old })), '-----^').toBe('-----(e|)', {
        e: 'ERROR:410',
      });
    });
  });

  it('stallWatches holds lines for its duration, then flushes them in order', () => {
    marbles((cluster, { expectObservable, at }) => {
      at(1, () => cluster.faults.stallWatches(10));
      at(2, () => cluster.seed([cm('a')]));
      at(5, () => cluster.seed([cm('b')]));
      at(16, () => cluster.seed([cm('c')]));
      // Stalled from frame 1 for 10 ms: a (frame 2) and b (frame 5) arrive together at 11; c is live at 16.
      expectObservable(lines(cluster.watch(PATH, { resourceVersion: cluster.resourceVersion() })), '^ 20ms !').toBe(
        '-----------(ab)-c',
        { a: 'ADDED:a', b: 'ADDED:b', c: 'ADDED:c' },
      );
    });
  });

  it('watchChunks delivers the lines a stall held back as one array, where watch gives them one by one', () => {
    marbles((cluster, { expectObservable, at }) => {
      at(1, () => cluster.faults.stallWatches(10));
      at(2, () => cluster.seed([cm('a')]));
      at(5, () => cluster.seed([cm('b')]));
      at(16, () => cluster.seed([cm('c')]));
      const chunks = chunkNames(cluster.watchChunks!(PATH, { resourceVersion: cluster.resourceVersion() }));
      expectObservable(chunks, '^ 20ms !').toBe('-----------x----y', { x: 'a+b', y: 'c' });
    });
  });

  it('writes made in one synchronous run arrive as one chunk, as bytes waiting in a socket are read together', () => {
    marbles((cluster, { expectObservable, at }) => {
      at(3, () => cluster.seed([cm('a'), cm('b')]));
      at(3, () => cluster.seed([cm('c')]));
      at(6, () => cluster.seed([cm('d')]));
      const chunks = chunkNames(cluster.watchChunks!(PATH, { resourceVersion: cluster.resourceVersion() }));
      // c is written at frame 3 too, before the consumer has read a and b, so it joins their chunk.
      expectObservable(chunks, '^ 9ms !').toBe('---x--y', { x: 'a+b+c', y: 'd' });
    });
  });

  it('injectMalformedLine writes one bad line into every open watch at its frame', () => {
    marbles((cluster, { expectObservable, at }) => {
      at(3, () => cluster.faults.injectMalformedLine());
      at(4, () => cluster.seed([cm('a')]));
      const rv = cluster.resourceVersion();
      expectObservable(lines(cluster.watch(PATH, { resourceVersion: rv })), '^ 6ms !').toBe('---xa', {
        x: 'bad',
        a: 'ADDED:a',
      });
      expectObservable(lines(cluster.watch(PATH, { resourceVersion: rv })), '^ 6ms !').toBe('---xa', {
        x: 'bad',
        a: 'ADDED:a',
      });
    });
  });

  it('latency delays answers by its duration; failNext answers the next matching request with its Status', () => {
    marbles((cluster, { expectObservable, at }) => {
      const list = (): Observable<string> =>
        cluster.get(PATH, {}).pipe(
          map(() => 'ok'),
          catchError((error: unknown) => of(`api${(error as ApiError).code}`)),
        );
      at(0, () => cluster.faults.latency(5));
      at(1, () => cluster.faults.failNext({ status: 503, path: PATH }));
      expectObservable(list()).toBe('-----(o|)', { o: 'ok' });
      expectObservable(list(), '--^').toBe('-------(f|)', { f: 'api503' });
      at(3, () => cluster.faults.latency(0));
      expectObservable(list(), '----^').toBe('----(o|)', { o: 'ok' });
    });
  });

  it('restart cuts every open exchange, a watch and a delayed request alike, with ConnectionClosed', () => {
    marbles((cluster, { expectObservable, at }) => {
      at(0, () => cluster.faults.latency(10));
      at(3, () => cluster.faults.restart());
      const list = cluster.get(PATH, {}).pipe(
        map(() => 'ok'),
        catchError((error: unknown) => of((error as TransportError).reason)),
      );
      expectObservable(list).toBe('---(c|)', { c: 'ConnectionClosed' });
      expectObservable(lines(cluster.watch(PATH, { resourceVersion: cluster.resourceVersion() })), '-^').toBe(
        '---(c|)',
        { c: 'ConnectionClosed' },
      );
    });
  });

  it('the admin endpoint answers a restart first, then cuts every other exchange', () => {
    marbles((cluster, { expectObservable }) => {
      const admin = cluster
        .exchange({ method: 'POST', path: '/__rxkube/faults/restart', body: '{}' })
        .pipe(map((answer) => `${answer.status} ${answer.text}`));
      expectObservable(lines(cluster.watch(PATH, { resourceVersion: cluster.resourceVersion() }))).toBe('--(c|)', {
        c: 'ConnectionClosed',
      });
      expectObservable(admin, '--^').toBe('--(a|)', { a: '200 {"fault":"restart","result":null}' });
    });
  });

  it('dates every answer by the virtual clock, as node:http dates it by the wall clock', () => {
    marbles((cluster, { expectObservable }) => {
      const date = cluster.exchange({ method: 'GET', path: '/version' }).pipe(map((answer) => answer.headers['date']));
      expectObservable(date, '--- 2s ^').toBe('--- 2s (d|)', { d: 'Thu, 01 Jan 1970 00:00:02 GMT' });
    });
  });

  it('a closed cluster cancels its timers and refuses new requests with a TransportError', () => {
    const scheduler = new TestScheduler(() => undefined);
    scheduler.run(({ flush }) => {
      const cluster = virtualCluster({ scheduler, bookmarkIntervalMs: 1000 });
      const seen: string[] = [];
      lines(cluster.watch(PATH, { allowWatchBookmarks: true })).subscribe({
        next: (line) => seen.push(`${scheduler.now()} ${line}`),
        complete: () => seen.push(`${scheduler.now()} end`),
      });
      // Made before the close, subscribed after it: the request is cold, so the close refuses it.
      const late = cluster.get(PATH, {});
      scheduler.schedule(() => cluster.close(), 2500);
      scheduler.schedule(
        () =>
          late.subscribe({
            error: (error: unknown) => seen.push(`${scheduler.now()} ${(error as TransportError).reason}`),
          }),
        3000,
      );
      flush();
      expect(seen.map((line) => line.replace(/BOOKMARK:\S+/, 'BOOKMARK'))).to.deep.equal([
        '1000 BOOKMARK',
        '2000 BOOKMARK',
        '2500 end',
        '3000 NetworkError',
      ]);
      expect(cluster.openWatches()).to.equal(0);
    });
  });
});
