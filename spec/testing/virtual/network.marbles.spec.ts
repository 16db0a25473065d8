/**
 * The network of the virtual cluster in marble form: the `latency` and `watchLag` options, the network faults
 * (refused, stuck and lost requests, partitions) and links, each at exact virtual frames.
 */
import { expect } from 'chai';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { catchError, map, of, takeUntil, timer, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { resourceClient } from '../../../src/client/index.js';
import { informer } from '../../../src/informer/index.js';
import { virtualCluster, type VirtualCluster, type VirtualClusterOptions } from '../../../src/testing/index.js';
import { ApiError, TransportError } from '../../../src/transport/index.js';

const PATH = '/api/v1/namespaces/default/configmaps';
const CONFIG_MAPS = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const cm = (name: string): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
});

interface Helpers {
  expectObservable: TestScheduler['expectObservable'];
  at(frame: number, work: () => void): void;
}

function marbles(
  options: Omit<VirtualClusterOptions, 'scheduler'>,
  body: (cluster: VirtualCluster, helpers: Helpers) => void,
): void {
  const scheduler = new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
  scheduler.run(({ expectObservable, flush }) => {
    const cluster = virtualCluster({ scheduler, seed: 4, bookmarkIntervalMs: 1_000_000, ...options });
    body(cluster, { expectObservable, at: (frame, work) => void scheduler.schedule(work, frame) });
    flush();
    cluster.close();
  });
}

/** `ok` (or the created name), or the error's code or TransportError reason. */
function outcome(answer$: Observable<unknown>): Observable<string> {
  return answer$.pipe(
    map((body) => (body as { metadata?: { name?: string } } | undefined)?.metadata?.name ?? 'ok'),
    catchError((error: unknown) =>
      of(error instanceof ApiError ? `api${error.code}` : error instanceof TransportError ? error.reason : 'other'),
    ),
  );
}

const create = (cluster: { request: VirtualCluster['request'] }, name: string): Observable<string> =>
  outcome(cluster.request({ method: 'POST', path: PATH, body: cm(name) }).pipe(map((response) => response.body)));

/** `TYPE:name` per watch line. */
const names = (watch$: Observable<string>): Observable<string> =>
  watch$.pipe(
    map((line) => {
      const event = JSON.parse(line) as { type: string; object: { metadata: { name: string } } };
      return `${event.type}:${event.object.metadata.name}`;
    }),
  );

/** `<arrival frame> <verb> <code>` per request the log shows. */
const logged = (cluster: VirtualCluster): string[] =>
  cluster.requestLog.records().map((r) => `${Date.parse(r.time)} ${r.verb} ${r.code}`);

describe('virtualCluster: latency and watch lag', () => {
  it('latency holds each request before the server serves it: logged when it arrives, stored and answered when served', () => {
    let stored: string[] = [];
    let log: string[] = [];
    marbles({ latency: 3 }, (cluster, { expectObservable, at }) => {
      expectObservable(create(cluster, 'a'), '-^').toBe('----(a|)', { a: 'a' });
      at(3, () => {
        stored = cluster.list(CONFIG_MAPS, 'default').map((o) => o.metadata!.name!);
      });
      at(10, () => {
        log = logged(cluster);
      });
    });
    // Sent at 1, served at 4: at 3 nothing is stored yet.
    expect(stored).to.deep.equal([]);
    expect(log).to.deep.equal(['1 create 201']);
  });

  it('latency may be a function of the request, drawing from a seeded generator apart from the server\u2019s', () => {
    const run = (latency: VirtualClusterOptions['latency']): { frames: string[]; uids: string[] } => {
      const frames: string[] = [];
      let uids: string[] = [];
      marbles({ latency }, (cluster, { at }) => {
        at(0, () => {
          for (const name of ['a', 'b', 'c'])
            create(cluster, name).subscribe((value) => frames.push(`${cluster.scheduler.now()} ${value}`));
          cluster.get(PATH, {}).subscribe(() => frames.push(`${cluster.scheduler.now()} list`));
        });
        at(1000, () => {
          uids = cluster
            .list(CONFIG_MAPS, 'default')
            .map((o) => o.metadata!.uid!)
            .sort();
        });
      });
      return { frames, uids };
    };
    const jittered = (request: { method: string }, random: () => number) =>
      request.method === 'GET' ? 0 : 10 + Math.floor(random() * 90);
    const first = run(jittered);
    expect(first.frames[0]).to.equal('0 list');
    expect(run(jittered)).to.deep.equal(first);
    expect(first.frames.slice(1)).to.not.deep.equal(['10 a', '10 b', '10 c']);
    // Drawing delays leaves the server's choices alone: the same uids as without any latency.
    expect(first.uids).to.deep.equal(run(0).uids);
  });

  it('watchLag delivers each watch chunk that long after the server wrote it, after the write was answered', () => {
    marbles({ watchLag: 5 }, (cluster, { expectObservable, at }) => {
      at(2, () => create(cluster, 'a').subscribe());
      at(4, () => create(cluster, 'b').subscribe());
      // c is answered at 6, when its watch event has 5 ms still to go.
      expectObservable(create(cluster, 'c'), '------^').toBe('------(c|)', { c: 'c' });
      expectObservable(names(cluster.watch(PATH, { resourceVersion: cluster.resourceVersion() })), '^ 12ms !').toBe(
        '-------a-b-c',
        { a: 'ADDED:a', b: 'ADDED:b', c: 'ADDED:c' },
      );
    });
  });

  it('the chunks of one watch never overtake each other when the lag shrinks: what catches up is read with what it caught up with', () => {
    let lag = 10;
    marbles({ watchLag: () => lag }, (cluster, { expectObservable, at }) => {
      at(1, () => cluster.seed([cm('a')]));
      at(1, () => cluster.seed([cm('b')]));
      at(2, () => {
        lag = 0;
        cluster.seed([cm('c')]);
      });
      const chunks = cluster.watchChunks!(PATH, { resourceVersion: cluster.resourceVersion() }).pipe(
        map((chunk) =>
          chunk
            .map((line) => (JSON.parse(line) as { object: { metadata: { name: string } } }).object.metadata.name)
            .join('+'),
        ),
      );
      // a and b (one frame, one chunk) are due at 11; c, written at 2 with no lag, waits behind them and is read
      // with them, as bytes waiting in a socket are.
      expectObservable(chunks, '^ 20ms !').toBe('-----------x', { x: 'a+b+c' });
    });
  });

  it('an informer over a lagging watch holds a created object only the lag after the create answered', () => {
    const seen: string[] = [];
    marbles({ watchLag: 10 }, (cluster, { at }) => {
      const configMaps = informer<V1ConfigMap>(cluster, CONFIG_MAPS, { scheduler: cluster.scheduler, random: () => 0 });
      configMaps.events$
        .pipe(takeUntil(timer(100, cluster.scheduler)))
        .subscribe((event) => seen.push(`${cluster.scheduler.now()} ${event.type} ${event.object.metadata?.name}`));
      at(20, () =>
        resourceClient<V1ConfigMap>(cluster, CONFIG_MAPS)
          .inNamespace('default')
          .create(cm('a'))
          .subscribe(() => seen.push(`${cluster.scheduler.now()} created a`)),
      );
    });
    expect(seen).to.deep.equal(['20 created a', '30 added a']);
  });

  it('refuses a delay that is negative or not a number', () => {
    const scheduler = new TestScheduler(() => undefined);
    expect(() => virtualCluster({ scheduler, latency: -1 })).to.throw(
      RangeError,
      'virtualCluster: latency must be a non-negative number of ms or a function, got -1',
    );
    expect(() => virtualCluster({ scheduler, watchLag: Number.NaN })).to.throw(RangeError, 'watchLag');
    expect(() => virtualCluster({ scheduler }).link({ latency: -5 })).to.throw(RangeError, 'link: latency');
  });
});

describe('virtualCluster: network faults', () => {
  it('refuseNext fails the next matching requests with NetworkError after their latency; the server never sees them', () => {
    let log: string[] = [];
    marbles({ latency: 2 }, (cluster, { expectObservable, at }) => {
      cluster.faults.refuseNext({ method: 'POST', count: 2 });
      expectObservable(create(cluster, 'a')).toBe('--(n|)', { n: 'NetworkError' });
      expectObservable(outcome(cluster.get(PATH, {}))).toBe('--(o|)', { o: 'ok' });
      expectObservable(create(cluster, 'b'), '-^').toBe('---(n|)', { n: 'NetworkError' });
      expectObservable(create(cluster, 'c'), '--^').toBe('----(c|)', { c: 'c' });
      at(10, () => {
        log = logged(cluster);
      });
    });
    expect(log).to.deep.equal(['0 list 200', '2 create 201']);
  });

  it('hangNext leaves a request unanswered until the client gives up, and a restart cuts it', () => {
    let stored = -1;
    marbles({}, (cluster, { expectObservable, at }) => {
      cluster.faults.hangNext({ path: PATH, count: 2 });
      expectObservable(create(cluster, 'a'), '^!').toBe('');
      expectObservable(create(cluster, 'b'), '^').toBe('--(c|)', { c: 'ConnectionClosed' });
      at(2, () => cluster.faults.restart());
      expectObservable(create(cluster, 'c'), '---^').toBe('---(c|)', { c: 'c' });
      at(60, () => {
        stored = cluster.list(CONFIG_MAPS, 'default').length;
      });
    });
    // Only c reached the server.
    expect(stored).to.equal(1);
  });

  it('loseAnswerNext serves the request, stores its write, and loses the answer: ConnectionClosed when it would have come', () => {
    let stored: string[] = [];
    let log: string[] = [];
    marbles({ latency: 1 }, (cluster, { expectObservable, at }) => {
      cluster.faults.loseAnswerNext({ method: 'POST' });
      expectObservable(create(cluster, 'a')).toBe('-(c|)', { c: 'ConnectionClosed' });
      expectObservable(
        outcome(cluster.request({ method: 'POST', path: PATH, body: cm('a') }).pipe(map((r) => r.body))),
        '--^',
      ).toBe('---(x|)', { x: 'api409' });
      at(10, () => {
        stored = cluster.list(CONFIG_MAPS, 'default').map((o) => o.metadata!.name!);
        log = logged(cluster);
      });
    });
    expect(stored).to.deep.equal(['a']);
    expect(log).to.deep.equal(['0 create 201', '2 create 409']);
  });

  it('a partition refuses (or hangs) every request until it heals, and heal drops armed faults', () => {
    marbles({}, (cluster, { expectObservable, at }) => {
      at(1, () => cluster.faults.partition());
      at(3, () => cluster.faults.partition({ mode: 'hang' }));
      at(5, () => {
        cluster.faults.heal();
        cluster.faults.refuseNext();
        cluster.faults.heal();
      });
      expectObservable(outcome(cluster.get(PATH, {})), '^').toBe('(o|)', { o: 'ok' });
      expectObservable(outcome(cluster.get(PATH, {})), '--^').toBe('--(n|)', { n: 'NetworkError' });
      expectObservable(outcome(cluster.get(PATH, {})), '----^ 20ms !').toBe('');
      expectObservable(outcome(cluster.get(PATH, {})), '------^').toBe('------(o|)', { o: 'ok' });
    });
  });

  it('clear ends a partition and drops armed network faults with the server faults', () => {
    marbles({}, (cluster, { expectObservable, at }) => {
      cluster.faults.partition();
      cluster.faults.hangNext();
      at(1, () => cluster.faults.clear());
      expectObservable(outcome(cluster.get(PATH, {})), '-^').toBe('-(o|)', { o: 'ok' });
    });
  });

  it('refuses a count below 1, an unknown partition mode and an empty warning, arming nothing', () => {
    const scheduler = new TestScheduler(() => undefined);
    const cluster = virtualCluster({ scheduler });
    expect(() => cluster.faults.hangNext({ count: 0 })).to.throw(
      RangeError,
      'hangNext: count must be at least 1, got 0',
    );
    expect(() => cluster.faults.partition({ mode: 'drop' as 'hang' })).to.throw(
      RangeError,
      'partition: mode must be "refuse" or "hang", got drop',
    );
    expect(() => cluster.faults.warnNext({ text: '' })).to.throw(
      RangeError,
      'warnNext: text must be a non-empty string, got ""',
    );
    cluster.close();
  });

  it('the refusal names the request as a refused connection does, and a lost answer the closed connection', () => {
    const messages: string[] = [];
    marbles({}, (cluster) => {
      cluster.faults.refuseNext();
      cluster.faults.loseAnswerNext();
      const note = { error: (error: unknown) => messages.push((error as Error).message) };
      cluster.get(PATH, {}).subscribe(note);
      cluster.request({ method: 'POST', path: PATH, body: cm('a') }).subscribe(note);
    });
    expect(messages).to.deep.equal([
      `GET ${PATH}: connection refused`,
      `POST ${PATH}: the connection closed before the answer arrived`,
    ]);
  });
});

describe('virtualCluster: API warnings', () => {
  it('warnNext adds a warning to the next matching answers, after the server\u2019s own, refusals included', () => {
    const seen: string[] = [];
    marbles({}, (cluster, { at }) => {
      const answered = (response: { warnings?: readonly string[] }) =>
        seen.push(`${cluster.scheduler.now()} ${(response.warnings ?? []).join(' | ')}`);
      cluster.faults.warnNext({ text: 'webhook says hi', method: 'POST', count: 2 });
      cluster.faults.warnNext({ text: 'v1 is "old"', path: PATH });
      // An unknown field, dropped with the server's own warning (fieldValidation=Warn).
      cluster
        .request({ method: 'POST', path: PATH, query: { fieldValidation: 'Warn' }, body: { ...cm('a'), bogus: 1 } })
        .subscribe(answered);
      at(1, () =>
        cluster.request({ method: 'POST', path: PATH, body: cm('a') }).subscribe({
          error: (error: unknown) =>
            seen.push(`1 refused ${(error as ApiError).code}: ${(error as ApiError).warnings.join(' | ')}`),
        }),
      );
      at(2, () => cluster.request({ method: 'POST', path: PATH, body: cm('b') }).subscribe(answered));
    });
    expect(seen).to.deep.equal([
      '0 unknown field "bogus" | webhook says hi | v1 is "old"',
      '1 refused 409: webhook says hi',
      '2 ',
    ]);
  });
});

describe('virtualCluster: network faults, continued', () => {});

describe('virtualCluster: links', () => {
  it('a link shares the server and has its own network: its faults cut it alone, the cluster\u2019s cut every link', () => {
    let agents: string[] = [];
    marbles({}, (cluster, { expectObservable, at }) => {
      const a = cluster.link({ userAgent: 'replica-a', latency: 4 });
      const b = cluster.link({ userAgent: 'replica-b' });
      a.faults.partition();
      expectObservable(create(a, 'x')).toBe('----(n|)', { n: 'NetworkError' });
      expectObservable(create(b, 'y')).toBe('(y|)', { y: 'y' });
      at(5, () => a.faults.heal());
      expectObservable(create(a, 'z'), '-----^').toBe('---------(z|)', { z: 'z' });
      at(20, () => cluster.faults.refuseNext({ count: 2 }));
      expectObservable(create(b, 'v'), '--- 20ms ^').toBe('--- 20ms (n|)', { n: 'NetworkError' });
      expectObservable(create(cluster, 'w'), '--- 20ms ^').toBe('--- 20ms (n|)', { n: 'NetworkError' });
      at(30, () => {
        agents = cluster.requestLog.records().map((r) => `${r.userAgent} ${r.code}`);
      });
    });
    expect(agents).to.deep.equal(['replica-b 201', 'replica-a 201']);
  });

  it('a link takes the cluster\u2019s latency and watch lag unless it has its own', () => {
    marbles({ latency: 2, watchLag: 3 }, (cluster, { expectObservable, at }) => {
      const same = cluster.link();
      const fast = cluster.link({ latency: 0, watchLag: 0 });
      at(1, () => cluster.seed([cm('a')]));
      expectObservable(create(same, 'b')).toBe('--(b|)', { b: 'b' });
      expectObservable(create(fast, 'c')).toBe('(c|)', { c: 'c' });
      const rv = cluster.resourceVersion();
      const added = { a: 'ADDED:a', b: 'ADDED:b', c: 'ADDED:c' };
      // Served at 2 (after b's create, sent earlier), its backlog is one chunk, 3 ms on its way.
      expectObservable(names(same.watch(PATH, { resourceVersion: rv })), '^ 10ms !').toBe('-----(cab)', added);
      // Served at once: c (created at 0), a (seeded at 1), b (served at 2), each as it is written.
      expectObservable(names(fast.watch(PATH, { resourceVersion: rv })), '^ 10ms !').toBe('cab', added);
    });
  });
});
