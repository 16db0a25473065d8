/**
 * `list` over every page in virtual time, over a scripted transport: which pages it asks for, what it emits, and a
 * continue token that expires while it pages.
 */
import { expect } from 'chai';
import { TestScheduler } from 'rxjs/testing';
import type { Observable } from 'rxjs';
import { resourceClient } from '../../src/client/resource/index.js';
import type { ResourceClient } from '../../src/client/resource/index.js';
import { ApiError, isExpired } from '../../src/transport/index.js';
import type { TransportRequest, TransportResponse } from '../../src/transport/index.js';
import { apiError, fail, ok, scriptedTransport } from './support/scripted-transport.js';

interface ConfigMap {
  metadata?: { name?: string };
}

const path = '/api/v1/namespaces/ns/configmaps';
const item = (name: string): ConfigMap => ({ metadata: { name } });
const page = (names: string[], resourceVersion: string, next?: string): ResourceClient.ObjectList<ConfigMap> => ({
  apiVersion: 'v1',
  kind: 'ConfigMapList',
  metadata: { resourceVersion, ...(next ? { continue: next } : {}), remainingItemCount: 9 },
  items: names.map(item),
});
const expired = (): ApiError =>
  apiError(
    410,
    'Expired',
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
  );

interface Run {
  readonly lines: string[];
  readonly queries: Array<TransportRequest['query']>;
  readonly value: ResourceClient.ObjectList<ConfigMap> | undefined;
  readonly error: unknown;
}

function run(
  script: (request: TransportRequest, index: number) => Observable<TransportResponse>,
  call: (client: ResourceClient<ConfigMap>) => Observable<ResourceClient.ObjectList<ConfigMap>>,
): Run {
  const scheduler = new TestScheduler((a, b) => {
    expect(a).to.deep.equal(b);
  });
  let result!: Run;
  scheduler.run(() => {
    const scripted = scriptedTransport(scheduler, script);
    const client = resourceClient<ConfigMap>(
      scripted.transport,
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { namespace: 'ns' },
    );
    let value: ResourceClient.ObjectList<ConfigMap> | undefined;
    let error: unknown;
    call(client).subscribe({
      next: (list) => {
        value = list;
        scripted.lines.push(`${scheduler.now()} value ${list.items.length} items at ${list.metadata.resourceVersion}`);
      },
      error: (err: unknown) => {
        error = err;
        scripted.lines.push(`${scheduler.now()} error ${err instanceof ApiError ? err.code : String(err)}`);
      },
      complete: () => scripted.lines.push(`${scheduler.now()} complete`),
    });
    scheduler.flush();
    result = { lines: scripted.lines, queries: scripted.requests.map((r) => r.query), value, error };
  });
  return result;
}

/** The query of a list request, without the parameters left out. */
const sent = (query: TransportRequest['query']): Record<string, unknown> =>
  Object.fromEntries(Object.entries(query ?? {}).filter(([, value]) => value !== undefined));

describe('client: list over every page (marbles)', () => {
  it('reads every page one after the other, following continue tokens, and emits one list of every item', () => {
    const answers = [ok(page(['a', 'b'], '10', 'tok-1')), ok(page(['c', 'd'], '10', 'tok-2')), ok(page(['e'], '10'))];
    const { lines, queries, value } = run(
      (_, i) => answers[i]!,
      (c) => c.list({ labelSelector: 'app=web', pageSize: 2 }),
    );
    expect(lines).to.deep.equal([
      `0 GET ${path}`,
      `1 GET ${path}`,
      `2 GET ${path}`,
      '3 value 5 items at 10',
      '3 complete',
    ]);
    expect(queries.map(sent)).to.deep.equal([
      { labelSelector: 'app=web', limit: 2 },
      { labelSelector: 'app=web', limit: 2, continue: 'tok-1' },
      { labelSelector: 'app=web', limit: 2, continue: 'tok-2' },
    ]);
    expect(value).to.deep.equal({
      apiVersion: 'v1',
      kind: 'ConfigMapList',
      metadata: { resourceVersion: '10' },
      items: ['a', 'b', 'c', 'd', 'e'].map(item),
    });
  });

  it("asks for pages of 500 by default, and sends the caller's resourceVersion with the first page only", () => {
    const answers = [ok(page(['a'], '10', 'tok-1')), ok(page(['b'], '10'))];
    const { queries } = run(
      (_, i) => answers[i]!,
      (c) => c.list({ resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' }),
    );
    expect(queries.map(sent)).to.deep.equal([
      { limit: 500, resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' },
      { limit: 500, continue: 'tok-1' },
    ]);
  });

  it('restarts once without a limit when a continue token expires while paging, dropping the pages read', () => {
    const answers = [ok(page(['a', 'b'], '10', 'tok-1')), fail(expired()), ok(page(['a', 'c', 'd'], '14'))];
    const { lines, queries, value } = run(
      (_, i) => answers[i]!,
      (c) => c.list({ pageSize: 2 }),
    );
    expect(lines).to.deep.equal([
      `0 GET ${path}`,
      `1 GET ${path}`,
      `2 GET ${path}`,
      '3 value 3 items at 14',
      '3 complete',
    ]);
    expect(queries.map(sent)).to.deep.equal([{ limit: 2 }, { limit: 2, continue: 'tok-1' }, {}]);
    expect(value!.items).to.deep.equal(['a', 'c', 'd'].map(item));
  });

  it('fails with the error of the list that restarted, and with a 410 of the first page as it is', () => {
    const restarted = run(
      (_, i) => [ok(page(['a'], '10', 'tok-1')), fail(expired()), fail(expired())][i]!,
      (c) => c.list({ pageSize: 1 }),
    );
    expect(restarted.lines.at(-1)).to.equal('3 error 410');
    const first = run(
      () => fail(expired()),
      (c) => c.list({ resourceVersion: '5', resourceVersionMatch: 'Exact' }),
    );
    expect(first.lines).to.deep.equal([`0 GET ${path}`, '1 error 410']);
  });

  it('reads exactly one page when given a limit or a continue token, and leaves an expired token to the caller', () => {
    const one = run(
      () => ok(page(['a', 'b'], '10', 'tok-1')),
      (c) => c.list({ limit: 2 }),
    );
    expect(one.lines).to.deep.equal([`0 GET ${path}`, '1 value 2 items at 10', '1 complete']);
    expect(one.value!.metadata.continue).to.equal('tok-1');
    const stale = run(
      () => fail(expired()),
      (c) => c.list({ continue: 'tok-1' }),
    );
    expect(stale.lines).to.deep.equal([`0 GET ${path}`, '1 error 410']);
    expect(isExpired(stale.error)).to.equal(true);
  });

  it('refuses a page size that is not a whole number of at least 1, at subscription, sending nothing', () => {
    for (const pageSize of [0, 1.5, -1, Number.NaN]) {
      const { lines, error } = run(
        () => ok(page([], '1')),
        (c) => c.list({ pageSize }),
      );
      expect(lines).to.deep.equal([`0 error ${String(error)}`]);
      expect(error).to.be.instanceOf(RangeError);
    }
  });

  it('aborts the page in flight and asks for no more when unsubscribed', () => {
    const scheduler = new TestScheduler(() => undefined);
    scheduler.run(({ expectObservable }) => {
      const scripted = scriptedTransport(scheduler, (_, i) => ok(page([`x${i}`], '10', `tok-${i + 1}`), 5));
      const client = resourceClient<ConfigMap>(
        scripted.transport,
        { apiVersion: 'v1', kind: 'ConfigMap' },
        { namespace: 'ns' },
      );
      expectObservable(client.list(), '^ 6ms !').toBe('');
      scheduler.flush();
      expect(scripted.lines).to.deep.equal([`0 GET ${path}`, `5 GET ${path}`, `7 unsubscribed GET ${path}`]);
    });
  });
});
