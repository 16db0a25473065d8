import { expect } from 'chai';
import { filter, of, throwError } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { ApiError, TransportError } from '../../src/transport/index.js';
import { listWatch, ListWatchError, METADATA_LIST_ACCEPT, METADATA_WATCH_ACCEPT } from '../../src/watch/index.js';
import type { WatchEvent } from '../../src/watch/index.js';
import { FakeTransport, bookmark, kc, line, page, pod, PODS, statusLine } from './fake-transport.js';
import { backoffDelays, errorReasons, scenario, summary } from './harness.js';
import type { QueryParams } from '../../src/transport/index.js';
import type { KubernetesObject } from '@kubernetes/client-node';
import { everythingFrozen } from '../store/fixtures.js';

/** Drops undefined query values, which the transport leaves out anyway. */
function defined(query: QueryParams): Record<string, unknown> {
  return Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined));
}

describe('listWatch: list, watch, resume and relist', () => {
  it('lists in pages of 500 with continue, then watches from the list resourceVersion with bookmarks', () => {
    const o = scenario((fake, { cold }) => {
      fake
        .onGet(of(page([pod('a', '1'), pod('b', '2')], '10', 'tok')))
        .onGet(of(page([pod('c', '3')], '10')))
        .onWatch(cold('a', { a: line('ADDED', pod('d', '11')) }));
    });
    expect(o.fake.of('get').map((c) => defined(c.query))).to.deep.equal([
      { limit: 500 },
      { limit: 500, continue: 'tok' },
    ]);
    expect(o.fake.of('get').map((c) => c.path)).to.deep.equal(['/api/v1/pods', '/api/v1/pods']);
    expect(defined(o.fake.of('watch')[0]!.query)).to.deep.equal({
      allowWatchBookmarks: true,
      timeoutSeconds: 450,
      resourceVersion: '10',
    });
    expect(summary(o)).to.deep.equal(['relistStarted', 'listed:a', 'listed:b', 'listed:c', 'relistDone:10', 'added:d']);
  });

  it('gives listed items without apiVersion or kind those of the resource, as watched objects carry them', () => {
    const bare = { metadata: { name: 'a', namespace: 'default', resourceVersion: '1' } };
    const custom = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'b', namespace: 'default', resourceVersion: '2' },
      spec: { nodeName: 'n' },
    };
    const o = scenario((fake, { cold }) => {
      fake.onGet(of(page([bare, custom], '10'))).onWatch(cold('-'));
    });
    const listed = o.deltas().flatMap(({ e }) => (e.type === 'listed' ? [e.object] : []));
    expect(listed).to.deep.equal([{ apiVersion: 'v1', kind: 'Pod', ...bare }, custom]);
    // An item that has both is passed through as the same object: no copy on the common path of a typed server.
    expect(listed[1]).to.equal(custom);
  });

  it('puts apiVersion and kind first on listed items of every shape, keeping their own fields in order', () => {
    const items = [
      { metadata: { name: 'a', namespace: 'default', resourceVersion: '1' }, data: { x: '1' } },
      { metadata: { name: 'b', namespace: 'default', resourceVersion: '2' }, data: { x: '2' } },
      { metadata: { name: 'c', namespace: 'default', resourceVersion: '3' }, spec: {}, status: { phase: 'Ready' } },
      { kind: 'Pod', metadata: { name: 'd', namespace: 'default', resourceVersion: '4' } },
      JSON.parse('{"metadata":{"name":"e","namespace":"default","resourceVersion":"5"},"__proto__":{"odd":"key"}}'),
    ];
    const o = scenario((fake, { cold }) => {
      fake.onGet(of(page(items, '10'))).onWatch(cold('-'));
    });
    const listed = o.deltas().flatMap(({ e }) => (e.type === 'listed' ? [e.object] : []));
    expect(listed.map((object) => Object.keys(object))).to.deep.equal([
      ['apiVersion', 'kind', 'metadata', 'data'],
      ['apiVersion', 'kind', 'metadata', 'data'],
      ['apiVersion', 'kind', 'metadata', 'spec', 'status'],
      ['apiVersion', 'kind', 'metadata'],
      // A `__proto__` key cannot be written by a literal: that item is spread, its own key kept.
      ['metadata', '__proto__', 'apiVersion', 'kind'],
    ]);
    expect(listed.slice(0, 4)).to.deep.equal(
      items.slice(0, 4).map((item) => ({ apiVersion: 'v1', kind: 'Pod', ...item })),
    );
    expect(Object.getPrototypeOf(listed[4])).to.equal(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(listed[4], '__proto__')?.value).to.deep.equal({ odd: 'key' });
    for (const object of listed) expect(Object.isFrozen(object)).to.equal(true);
  });

  it('reports connecting, listing(page), watching(rv), error(cause) and backingOff(delay, attempt, cause) in order', () => {
    const cause = { reason: 'ConnectionClosed', message: 'stream cut' };
    const o = scenario((fake, { cold }) => {
      fake
        .onGet(of(page([], '10', 'tok')))
        .onGet(of(page([], '10')))
        .onWatch(cold('1s #', undefined, new TransportError(cause.reason, cause.message)))
        .onWatch(cold('-'));
    });
    expect(o.statuses()).to.deep.equal([
      [0, { state: 'connecting' }],
      [0, { state: 'listing', page: 1 }],
      [0, { state: 'listing', page: 2 }],
      [0, { state: 'connecting' }],
      [0, { state: 'watching', resourceVersion: '10' }],
      [1000, { state: 'error', cause }],
      [1000, { state: 'backingOff', delayMs: 400, attempt: 1, cause }],
      [1400, { state: 'connecting' }],
      [1400, { state: 'watching', resourceVersion: '10' }],
    ]);
  });

  it('restarts the list without pagination after 410 Expired on a continue token', () => {
    const o = scenario((fake, { cold }) => {
      fake
        .onGet(of(page([pod('a', '1')], '10', 'tok')))
        .onGet(throwError(() => new ApiError(410, 'Expired', 'continue token too old')))
        .onGet(of(page([pod('a', '1'), pod('b', '2')], '20')))
        .onWatch(cold('-'));
    });
    expect(o.fake.of('get').map((c) => defined(c.query))).to.deep.equal([
      { limit: 500 },
      { limit: 500, continue: 'tok' },
      {},
    ]);
    expect(summary(o)).to.deep.equal(['relistStarted', 'listed:a', 'listed:b', 'relistDone:20']);
    expect(backoffDelays(o)).to.deep.equal([]);
  });

  it('chooses timeoutSeconds uniformly in [300, 600] from the random source', () => {
    const timeoutFor = (r: number): unknown =>
      scenario((fake, { cold }) => fake.onGet(of(page([], '1'))).onWatch(cold('-')), { random: () => r }, 10).fake.of(
        'watch',
      )[0]!.query.timeoutSeconds;
    expect([0, 0.5, 0.999999].map(timeoutFor)).to.deep.equal([300, 450, 600]);
  });

  it('chooses timeoutSeconds uniformly in [minWatchTimeout, 2 × minWatchTimeout] when minWatchTimeout is given', () => {
    const timeoutFor = (r: number): unknown =>
      scenario(
        (fake, { cold }) => fake.onGet(of(page([], '1'))).onWatch(cold('-')),
        { random: () => r, minWatchTimeout: 20_000 },
        10,
      ).fake.of('watch')[0]!.query.timeoutSeconds;
    expect([0, 0.5, 0.999999].map(timeoutFor)).to.deep.equal([20, 30, 40]);
  });

  it("sends no timeoutSeconds with minWatchTimeout 'server', so the server's --min-request-timeout ends the watch", () => {
    const o = scenario((fake, { cold }) => fake.onGet(of(page([], '1'))).onWatch(cold('-')), {
      minWatchTimeout: 'server',
    });
    expect(defined(o.fake.of('watch')[0]!.query)).to.deep.equal({ allowWatchBookmarks: true, resourceVersion: '1' });
  });

  it('refuses a minWatchTimeout below one second, or one that is not a number or server, naming it', () => {
    for (const minWatchTimeout of [999, 0, -5, Number.NaN, 'client'] as never[]) {
      const o = scenario(() => {}, { minWatchTimeout });
      expect(o.error, String(minWatchTimeout)).to.be.instanceOf(RangeError);
      expect((o.error as Error).message).to.match(/minWatchTimeout must be a number of ms >= 1000 or 'server'/);
      expect(o.fake.of('get')).to.have.length(0);
    }
  });

  it('resumes from the last seen resourceVersion, bookmarks included, after a clean close without relisting', () => {
    const scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
    const fake = new FakeTransport();
    scheduler.run(({ cold, expectObservable }) => {
      fake
        .onGet(of(page([pod('a', '1')], '10')))
        .onWatch(cold('5s a 5s b 10s |', { a: line('MODIFIED', pod('a', '11')), b: bookmark('12') }))
        .onWatch(cold('1s a', { a: line('ADDED', pod('b', '13')) }));
      const deltas$ = listWatch(kc, PODS, { transport: fake, random: () => 0.5 }).pipe(
        filter((e) => e.type !== 'status'),
      );
      const values: Record<string, WatchEvent> = {
        a: { type: 'relistStarted' },
        b: { type: 'listed', object: pod('a', '1') },
        c: { type: 'relistDone', resourceVersion: '10' },
        d: { type: 'modified', object: pod('a', '11') },
        e: { type: 'bookmark', resourceVersion: '12' },
        f: { type: 'added', object: pod('b', '13') },
      };
      expectObservable(deltas$, '^ 30s !').toBe('(abc) 4995ms d 5s e 11s f', values);
    });
    expect(fake.of('get')).to.have.length(1);
    expect(fake.of('watch').map((c) => [c.at, c.query.resourceVersion])).to.deep.equal([
      [0, '10'],
      [20_002, '12'],
    ]);
  });

  it('relists after a watch ERROR event with code 410 as relistStarted, listed…, relistDone', () => {
    const o = scenario((fake, { cold }) => {
      fake
        .onGet(of(page([pod('a', '1'), pod('b', '2')], '10')))
        .onWatch(cold('1s a', { a: statusLine(410, 'Expired', 'too old resource version') }))
        .onGet(of(page([pod('b', '2')], '20')))
        .onWatch(cold('-'));
    });
    expect(summary(o)).to.deep.equal([
      'relistStarted',
      'listed:a',
      'listed:b',
      'relistDone:10',
      'relistStarted',
      'listed:b',
      'relistDone:20',
    ]);
    expect(o.fake.of('get').map((c) => c.at)).to.deep.equal([0, 1000]);
    expect(defined(o.fake.of('get')[1]!.query)).to.deep.equal({ limit: 500 });
    expect(o.fake.of('watch')[1]!.query.resourceVersion).to.equal('20');
    expect(errorReasons(o)).to.deep.equal(['Expired']);
    expect(backoffDelays(o)).to.deep.equal([]);
  });

  it('relists after an HTTP 410 on the watch request', () => {
    const o = scenario((fake, { cold }) => {
      fake
        .onGet(of(page([pod('a', '1')], '10')))
        .onWatch(cold('1s #', undefined, new ApiError(410, 'Expired', 'gone')))
        .onGet(of(page([], '20')))
        .onWatch(cold('-'));
    });
    expect(summary(o)).to.deep.equal(['relistStarted', 'listed:a', 'relistDone:10', 'relistStarted', 'relistDone:20']);
    expect(o.fake.of('get').map((c) => c.at)).to.deep.equal([0, 1000]);
  });

  it('backs off before relisting on a second 410 in a row', () => {
    const o = scenario((fake, { cold }) => {
      fake
        .onGet(of(page([], '10')))
        .onWatch(cold('1s #', undefined, new ApiError(410, 'Expired', 'gone')))
        .onGet(of(page([], '20')))
        .onWatch(cold('#', undefined, new ApiError(410, 'Expired', 'gone again')))
        .onGet(of(page([], '30')))
        .onWatch(cold('-'));
    });
    expect(o.fake.of('get').map((c) => c.at)).to.deep.equal([0, 1000, 1400]);
    expect(backoffDelays(o)).to.deep.equal([400]);
  });

  it('treats a clean close within a second without any event as a failure and backs off', () => {
    const o = scenario((fake, { cold }) => {
      fake
        .onGet(of(page([], '10')))
        .onWatch(cold('10ms |'))
        .onWatch(cold('-'));
    });
    expect(errorReasons(o)).to.deep.equal(['WatchClosedEarly']);
    expect(o.fake.of('watch').map((c) => [c.at, c.query.resourceVersion])).to.deep.equal([
      [0, '10'],
      [410, '10'],
    ]);
  });
});

describe('listWatch: streaming list', () => {
  it('emits the initial events as a relist ending at the initial-events-end bookmark, then keeps watching', () => {
    const o = scenario(
      (fake, { cold }) => {
        fake.onWatch(
          cold('a b c d', {
            a: line('ADDED', pod('x', '21')),
            b: line('ADDED', pod('y', '22')),
            c: bookmark('30', true),
            d: line('MODIFIED', pod('x', '31')),
          }),
        );
      },
      { streamingList: true },
    );
    expect(o.fake.of('get')).to.have.length(0);
    expect(defined(o.fake.of('watch')[0]!.query)).to.deep.equal({
      allowWatchBookmarks: true,
      timeoutSeconds: 450,
      sendInitialEvents: true,
      resourceVersionMatch: 'NotOlderThan',
    });
    expect(summary(o)).to.deep.equal(['relistStarted', 'listed:x', 'listed:y', 'relistDone:30', 'modified:x']);
  });

  const unsupported = {
    'rejects the parameters with a 4xx': (cold: TestScheduler['createColdObservable']) =>
      cold('#', undefined, new ApiError(400, 'BadRequest', 'unknown parameter sendInitialEvents')),
    'sends a bookmark without the annotation': (cold: TestScheduler['createColdObservable']) =>
      cold('a b', { a: line('ADDED', pod('x', '21')), b: bookmark('25') }),
    'closes before the annotated bookmark': (cold: TestScheduler['createColdObservable']) =>
      cold('a 2s |', { a: line('ADDED', pod('x', '21')) }),
  };
  for (const [what, watch] of Object.entries(unsupported)) {
    it(`falls back to list+watch when the server ${what}`, () => {
      const o = scenario(
        (fake, { cold }) => {
          fake
            .onWatch(watch(cold as TestScheduler['createColdObservable']) as never)
            .onGet(of(page([pod('x', '21')], '40')))
            .onWatch(cold('-'));
        },
        { streamingList: true },
      );
      expect(errorReasons(o)).to.deep.equal(['StreamingListUnsupported']);
      expect(summary(o)).to.deep.equal(['relistStarted', 'listed:x', 'relistDone:40']);
      expect(defined(o.fake.of('watch')[1]!.query)).to.deep.equal({
        allowWatchBookmarks: true,
        timeoutSeconds: 450,
        resourceVersion: '40',
      });
    });
  }
});

describe('listWatch: bad input', () => {
  it('reports a malformed line as a counted problem, not a connection error, and resumes from the last good resourceVersion', () => {
    const o = scenario((fake, { cold }) => {
      fake
        .onGet(of(page([pod('a', '1')], '10')))
        .onWatch(
          cold('a b c', {
            a: line('MODIFIED', pod('a', '11')),
            b: '{"type":"ADDED","obj',
            c: line('MODIFIED', pod('a', '12')),
          }),
        )
        .onWatch(cold('a', { a: line('ADDED', { metadata: { resourceVersion: '13' } }) }))
        .onWatch(cold('-'));
    });
    expect(o.problems().map(([, p]) => [p.reason, p.count])).to.deep.equal([
      ['MalformedLine', 1],
      ['MissingName', 1],
    ]);
    expect(errorReasons(o), 'bad input is not a connection error').to.deep.equal([]);
    expect(o.statuses().flatMap(([, s]) => (s.state === 'backingOff' ? [s.cause.reason] : []))).to.deep.equal([
      'MalformedLine',
      'MissingName',
    ]);
    expect(summary(o)).to.deep.equal(['relistStarted', 'listed:a', 'relistDone:10', 'modified:a']);
    const watches = o.fake.of('watch');
    expect(watches.map((c) => [c.at, c.query.resourceVersion, c.abortedAt])).to.deep.equal([
      [0, '10', 1],
      [401, '11', 401],
      [1201, '11', 60_000],
    ]);
  });

  it('reports and skips listed objects without metadata.name as a problem, leaving the status healthy', () => {
    const o = scenario((fake, { cold }) => {
      fake.onGet(of(page([pod('a', '1'), { metadata: { namespace: 'x' } }], '10'))).onWatch(cold('-'));
    });
    expect(summary(o)).to.deep.equal(['relistStarted', 'listed:a', 'relistDone:10']);
    expect(o.problems().map(([, p]) => [p.reason, p.count])).to.deep.equal([['MissingName', 1]]);
    expect(o.statuses().at(-1)?.[1]).to.deep.equal({ state: 'watching', resourceVersion: '10' });
  });

  it('keeps a listed object whose transform throws, untransformed, and reports the problem with its key', () => {
    const o = scenario(
      (fake, { cold }) =>
        fake
          .onGet(of(page([pod('a', '1'), pod('boom', '2', { managedFields: [{ manager: 'x' }] })], '10')))
          .onWatch(cold('-')),
      {
        transform: (obj) => {
          if (obj.metadata?.name === 'boom') throw new Error('cannot transform boom');
          return { ...obj, kind: 'Transformed' };
        },
      },
    );
    expect(summary(o)).to.deep.equal(['relistStarted', 'listed:a', 'listed:boom', 'relistDone:10']);
    const listed = o.deltas().flatMap(({ e }) => (e.type === 'listed' ? [e.object] : []));
    expect(listed.map((x) => x.kind)).to.deep.equal(['Transformed', 'Pod']);
    expect(listed[1], 'managedFields are still stripped').to.deep.equal(pod('boom', '2'));
    expect(o.problems().map(([, p]) => [p.reason, p.key, p.count])).to.deep.equal([
      ['TransformFailed', 'default/boom', 1],
    ]);
    expect(errorReasons(o)).to.deep.equal([]);
  });

  it('says why a transform failed when it returns no object, or one that cannot be frozen, and keeps the object untransformed', () => {
    // A getter on a nested object: the deep freeze reads it, the transform itself never does.
    const unfreezable = (obj: KubernetesObject) => ({
      ...obj,
      spec: Object.defineProperty({}, 'broken', {
        enumerable: true,
        get: () => {
          throw new Error('getter broke');
        },
      }),
    });
    const o = scenario(
      (fake, { cold }) =>
        fake.onGet(of(page([pod('nothing', '1'), pod('getter', '2'), pod('fine', '3')], '10'))).onWatch(cold('-')),
      {
        transform: (obj) => {
          if (obj.metadata?.name === 'nothing') return undefined as never;
          if (obj.metadata?.name === 'getter') return unfreezable(obj) as never;
          return obj;
        },
      },
    );
    expect(summary(o)).to.deep.equal([
      'relistStarted',
      'listed:nothing',
      'listed:getter',
      'listed:fine',
      'relistDone:10',
    ]);
    const listed = o.deltas().flatMap(({ e }) => (e.type === 'listed' ? [e.object] : []));
    expect(listed.slice(0, 2)).to.deep.equal([pod('nothing', '1'), pod('getter', '2')]);
    expect(o.problems().map(([, p]) => p.message)).to.deep.equal([
      'transform returned undefined, not an object; listed default/nothing kept untransformed (1 so far)',
      'the object transform returned cannot be deep-frozen: getter broke; listed default/getter kept untransformed (2 so far)',
    ]);
  });

  it('applies a watched MODIFIED and DELETED whose transform throws, so the cache never keeps a stale or deleted object', () => {
    const o = scenario(
      (fake, { cold }) =>
        fake.onGet(of(page([pod('a', '1')], '10'))).onWatch(
          cold('a b', {
            a: line('MODIFIED', pod('a', '11', { labels: { v: '2' } })),
            b: line('DELETED', pod('a', '12', { labels: { v: '2' } })),
          }),
        ),
      {
        transform: (obj) =>
          obj.metadata?.resourceVersion === '1'
            ? obj
            : (() => {
                throw new Error('no');
              })(),
      },
    );
    expect(summary(o)).to.deep.equal(['relistStarted', 'listed:a', 'relistDone:10', 'modified:a', 'deleted:a']);
    expect(o.problems().map(([, p]) => [p.reason, p.count])).to.deep.equal([
      ['TransformFailed', 1],
      ['TransformFailed', 2],
    ]);
    expect(o.fake.of('watch'), 'no resume was needed').to.have.length(1);
  });
});

describe('listWatch: options', () => {
  it('sends namespace, selectors and the metadata-only Accept headers', () => {
    const o = scenario((fake, { cold }) => fake.onGet(of(page([], '10'))).onWatch(cold('-')), {
      namespace: 'ns1',
      labelSelector: 'app=web',
      fieldSelector: 'spec.nodeName=n1',
      metadataOnly: true,
    });
    const [list] = o.fake.of('get');
    const [watch] = o.fake.of('watch');
    expect([list!.path, list!.accept, defined(list!.query)]).to.deep.equal([
      '/api/v1/namespaces/ns1/pods',
      METADATA_LIST_ACCEPT,
      { limit: 500, labelSelector: 'app=web', fieldSelector: 'spec.nodeName=n1' },
    ]);
    expect([watch!.path, watch!.accept, watch!.query.labelSelector, watch!.query.fieldSelector]).to.deep.equal([
      '/api/v1/namespaces/ns1/pods',
      METADATA_WATCH_ACCEPT,
      'app=web',
      'spec.nodeName=n1',
    ]);
  });

  it('strips managedFields by default, keeps them on request, and applies transform after stripping', () => {
    const withFields = pod('a', '1', { managedFields: [{ manager: 'kubectl' }] });
    const listed = (options: Parameters<typeof scenario>[1]): unknown[] =>
      scenario((fake, { cold }) => fake.onGet(of(page([withFields], '10'))).onWatch(cold('-')), options)
        .deltas()
        .flatMap(({ e }) => (e.type === 'listed' ? [e.object] : []));
    expect(listed({})).to.deep.equal([pod('a', '1')]);
    expect(listed({ keepManagedFields: true })).to.deep.equal([withFields]);
    const seen: unknown[] = [];
    listed({
      transform: (obj) => {
        seen.push(obj);
        return { ...obj, kind: 'Transformed' };
      },
    });
    expect(seen).to.deep.equal([pod('a', '1')]);
    expect(withFields.metadata.managedFields, 'the input object is not mutated').to.have.length(1);
  });

  it("emits every object deep-frozen: listed, watched, deleted and transformed, and a failed transform's fallback too", () => {
    const events = (options: Parameters<typeof scenario>[1]): WatchEvent<KubernetesObject>[] =>
      scenario((fake, { cold }) => {
        fake.onGet(of(page([pod('a', '1', { labels: { app: 'web' } })], '10'))).onWatch(
          cold('ab', {
            a: line('MODIFIED', pod('a', '11', { labels: { app: 'db' } })),
            b: line('DELETED', pod('a', '12')),
          }),
        );
      }, options)
        .deltas()
        .map(({ e }) => e);
    for (const options of [
      {},
      { transform: (obj: KubernetesObject) => ({ ...obj, spec: { added: [{}] } }) },
      {
        transform: (): never => {
          throw new Error('no');
        },
      },
    ]) {
      const objects = events(options).flatMap((e) => ('object' in e ? [e.object] : []));
      expect(objects.map((o) => o.metadata?.resourceVersion)).to.deep.equal(['1', '11', '12']);
      for (const object of objects) expect(everythingFrozen(object), JSON.stringify(object)).to.equal(true);
    }
  });

  it('resolves a custom kind through discovery and lists its plural', () => {
    const o = scenario(
      (fake, { cold }) =>
        fake
          .onGet(
            of({ groupVersion: 'example.com/v1', resources: [{ name: 'widgets', kind: 'Widget', namespaced: true }] }),
          )
          .onGet(of(page([], '5')))
          .onWatch(cold('-')),
      { namespace: 'ns1' },
      1000,
      { apiVersion: 'example.com/v1', kind: 'Widget' },
    );
    expect(o.fake.calls.map((c) => c.path)).to.deep.equal([
      '/apis/example.com/v1',
      '/apis/example.com/v1/namespaces/ns1/widgets',
      '/apis/example.com/v1/namespaces/ns1/widgets',
    ]);
  });

  it('reports an unknown kind on status and retries with backoff, asking discovery again, until the CRD is served', () => {
    const widgets = {
      groupVersion: 'example.com/v1',
      resources: [{ name: 'widgets', kind: 'Widget', namespaced: true }],
    };
    const o = scenario(
      (fake, { cold }) =>
        fake
          .onGet(throwError(() => new ApiError(404, 'NotFound', 'the server could not find the requested resource')))
          .onGet(of({ groupVersion: 'example.com/v1', resources: [] }))
          .onGet(of(widgets))
          .onGet(of(page([pod('w', '3')], '5')))
          .onWatch(cold('-')),
      {},
      5000,
      { apiVersion: 'example.com/v1', kind: 'Widget' },
    );
    expect(o.error).to.equal(undefined);
    expect(errorReasons(o)).to.deep.equal(['UnknownResource', 'UnknownResource']);
    expect(o.fake.calls.map((c) => [c.at, c.path])).to.deep.equal([
      [0, '/apis/example.com/v1'],
      [400, '/apis/example.com/v1'],
      [1200, '/apis/example.com/v1'],
      [1200, '/apis/example.com/v1/widgets'],
      [1200, '/apis/example.com/v1/widgets'],
    ]);
    expect(summary(o)).to.deep.equal(['relistStarted', 'listed:w', 'relistDone:5']);
  });

  it('errors clearly for an unknown kind under failFast', () => {
    const o = scenario(
      (fake) => fake.onGet(of({ resources: [{ name: 'widgets', kind: 'Widget', namespaced: true }] })),
      { failFast: true },
      1000,
      {
        apiVersion: 'example.com/v1',
        kind: 'Foo',
      },
    );
    expect(o.error).to.be.instanceOf(ListWatchError);
    expect((o.error as Error).message).to.include('unknown resource kind "Foo" in apiVersion "example.com/v1"');
    expect(o.fake.calls).to.have.length(1);
  });

  it('retries a discovery request that fails on the network rather than calling the kind unknown', () => {
    const o = scenario(
      (fake) => fake.onGet(throwError(() => new TransportError('NetworkError', 'connect ECONNREFUSED'))),
      { failFast: true },
      1000,
      { apiVersion: 'example.com/v1', kind: 'Widget' },
    );
    expect(o.error).to.equal(undefined);
    expect(errorReasons(o)).to.deep.equal(['NetworkError']);
  });

  it('hands the warnings of its list pages and watches to onWarning, those of a refused request too', () => {
    const seen: string[] = [];
    const refusal = new ApiError(500, 'InternalError', 'etcd is slow', undefined, undefined, [
      'v1 Pod is fine, etcd is not',
    ]);
    const o = scenario(
      (fake, { cold }) => {
        fake.warnings = ['deprecated'];
        fake
          .onGet(throwError(() => refusal))
          .onGet(of(page([], '10')))
          .onWatch(cold('-'));
      },
      { onWarning: ({ method, path, text }) => seen.push(`${method} ${path} ${text}`) },
    );
    expect(summary(o)).to.deep.equal(['relistStarted', 'relistDone:10']);
    expect(seen).to.deep.equal([
      'GET /api/v1/pods v1 Pod is fine, etcd is not',
      'GET /api/v1/pods deprecated',
      'GET /api/v1/pods deprecated',
    ]);
  });

  it('hands the warnings of its discovery request to onWarning, before those of the list and the watch', () => {
    const seen: string[] = [];
    scenario(
      (fake, { cold }) => {
        fake.warnings = ['example.com/v1 Widget is deprecated'];
        fake
          .onGet(
            of({ groupVersion: 'example.com/v1', resources: [{ name: 'widgets', kind: 'Widget', namespaced: true }] }),
          )
          .onGet(of(page([], '5')))
          .onWatch(cold('-'));
      },
      { onWarning: ({ method, path, text }) => seen.push(`${method} ${path} ${text}`) },
      1000,
      { apiVersion: 'example.com/v1', kind: 'Widget' },
    );
    expect(seen).to.deep.equal([
      'GET /apis/example.com/v1 example.com/v1 Widget is deprecated',
      'GET /apis/example.com/v1/widgets example.com/v1 Widget is deprecated',
      'GET /apis/example.com/v1/widgets example.com/v1 Widget is deprecated',
    ]);
  });

  it('keeps listing and watching when onWarning throws, and refuses an onWarning that is not a function', () => {
    const o = scenario(
      (fake, { cold }) => {
        fake.warnings = ['deprecated'];
        fake.onGet(of(page([pod('a', '1')], '10'))).onWatch(cold('a', { a: line('ADDED', pod('b', '11')) }));
      },
      {
        onWarning: () => {
          throw new Error('handler broke');
        },
      },
    );
    expect(summary(o)).to.deep.equal(['relistStarted', 'listed:a', 'relistDone:10', 'added:b']);
    const refused = scenario(() => {}, { onWarning: 'log' as never });
    expect((refused.error as Error).message).to.equal('listWatch: onWarning must be a function');
  });

  it('errors at once for a malformed apiVersion, which no retry can fix', () => {
    const o = scenario(() => {}, {}, 1000, { apiVersion: 'a/b/c', kind: 'Widget' });
    expect((o.error as Error).message).to.include('malformed apiVersion "a/b/c"');
    expect(o.fake.calls).to.have.length(0);
  });

  it('errors clearly for a namespace on a cluster-scoped kind', () => {
    const o = scenario(() => {}, { namespace: 'ns1' }, 1000, { apiVersion: 'v1', kind: 'Node' });
    expect((o.error as Error).message).to.include('Node is cluster-scoped');
    expect(o.fake.calls).to.have.length(0);
  });
});
