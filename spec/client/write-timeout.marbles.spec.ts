/**
 * The write timeout in virtual time over a scripted transport: every write has a time limit, reads do not, and only
 * server-side apply is sent again after one.
 */
import { expect } from 'chai';
import { NEVER, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { resourceClient } from '../../src/client/resource/index.js';
import type { ResourceClient } from '../../src/client/resource/index.js';
import { defaults } from '../../src/defaults/index.js';
import { TransportError, isWriteTimeout } from '../../src/transport/index.js';
import type { TransportRequest, TransportResponse } from '../../src/transport/index.js';
import { ok, scriptedTransport } from './support/scripted-transport.js';

interface ConfigMap {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  data?: Record<string, string>;
}

const web = (resourceVersion = '1', data: Record<string, string> = {}): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'web', namespace: 'ns', resourceVersion },
  data,
});

interface Run {
  readonly lines: string[];
  readonly error: unknown;
}

/** Runs `call` on a client over the script in virtual time; each line is `<time> <what>`. */
function run(
  script: (request: TransportRequest, index: number) => Observable<TransportResponse>,
  call: (client: ResourceClient<ConfigMap>) => Observable<unknown>,
  clientOptions: ResourceClient.Options = {},
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
      { namespace: 'ns', scheduler, random: () => 0, statusSubresource: false, ...clientOptions },
    );
    const { lines } = scripted;
    let error: unknown;
    call(client).subscribe({
      next: () => lines.push(`${scheduler.now()} value`),
      error: (err: unknown) => {
        error = err;
        lines.push(`${scheduler.now()} error ${err instanceof TransportError ? err.reason : String(err)}`);
      },
      complete: () => lines.push(`${scheduler.now()} complete`),
    });
    scheduler.flush();
    result = { lines, error };
  });
  return result;
}

const path = '/api/v1/namespaces/ns/configmaps/web';
const collection = '/api/v1/namespaces/ns/configmaps';

describe('client: every write has a time limit, writeTimeout (marbles)', () => {
  it('fails a write left unanswered after defaults.client.writeTimeout (70 s), aborting its request', () => {
    const { lines, error } = run(
      () => NEVER,
      (client) => client.create(web('')),
    );
    expect(defaults.client.writeTimeout).to.equal(70_000);
    expect(lines).to.deep.equal([
      `0 POST ${collection}`,
      `70000 unsubscribed POST ${collection}`,
      '70000 error WriteTimeout',
    ]);
    expect(isWriteTimeout(error)).to.equal(true);
    expect((error as Error).message).to.equal(
      `POST ${collection}: no answer within 70000 ms (writeTimeout); the request was aborted, and the server may ` +
        'or may not have applied it: read the object before writing again',
    );
  });

  it('lets an answer that arrives before the limit through, and leaves no timer behind', () => {
    const { lines } = run(
      () => ok(web('2'), 69_999),
      (client) => client.replace(web('1')),
    );
    expect(lines).to.deep.equal([`0 PUT ${path}`, '69999 value', '69999 complete']);
  });

  it('uses the client option writeTimeout, and a per-call writeTimeout over it', () => {
    const client = run(
      () => NEVER,
      (c) => c.patch('web', { type: 'merge', body: {} }),
      { writeTimeout: 500 },
    );
    expect(client.lines).to.deep.equal([`0 PATCH ${path}`, `500 unsubscribed PATCH ${path}`, '500 error WriteTimeout']);
    const call = run(
      () => NEVER,
      (c) => c.delete('web', { writeTimeout: 20 }),
      { writeTimeout: 500 },
    );
    expect(call.lines).to.deep.equal([`0 DELETE ${path}`, `20 unsubscribed DELETE ${path}`, '20 error WriteTimeout']);
  });

  it('sets no limit with writeTimeout: false, on the client or on the call', () => {
    for (const [clientOptions, callTimeout] of [
      [{ writeTimeout: false }, undefined],
      [{}, false],
    ] as const) {
      const { lines } = run(
        () => ok(web('2'), 1_000_000),
        (c) => c.replaceStatus(web('1'), { writeTimeout: callTimeout }),
        clientOptions,
      );
      expect(lines).to.deep.equal([`0 PUT ${path}/status`, '1000000 value', '1000000 complete']);
    }
  });

  it('does not limit reads: a GET answered after the write limit succeeds', () => {
    const { lines } = run(
      () => ok(web('1'), 100_000),
      (c) => c.get('web'),
      { writeTimeout: 500 },
    );
    expect(lines).to.deep.equal([`0 GET ${path}`, '100000 value', '100000 complete']);
  });

  it('sends a timed-out server-side apply once more, since applying it again changes nothing more', () => {
    const { lines } = run(
      (_request, index) => (index === 0 ? NEVER : ok(web('2'), 1)),
      (c) => c.apply({ metadata: { name: 'web' }, data: { a: '1' } }, { fieldManager: 'me' }),
      { writeTimeout: 500 },
    );
    expect(lines).to.deep.equal([
      `0 PATCH ${path}`,
      `500 unsubscribed PATCH ${path}`,
      `500 PATCH ${path}`,
      '501 value',
      '501 complete',
    ]);
  });

  it('fails an apply that times out twice, after its second try', () => {
    const { lines } = run(
      () => NEVER,
      (c) => c.applyStatus({ metadata: { name: 'web' } }, { fieldManager: 'me' }),
      { writeTimeout: 500 },
    );
    expect(lines).to.deep.equal([
      `0 PATCH ${path}/status`,
      `500 unsubscribed PATCH ${path}/status`,
      `500 PATCH ${path}/status`,
      `1000 unsubscribed PATCH ${path}/status`,
      '1000 error WriteTimeout',
    ]);
  });

  it('never sends a timed-out write of mutate again: its recipe need not be idempotent', () => {
    let runs = 0;
    const { lines } = run(
      () => NEVER,
      (c) =>
        c.mutate(web('1', { count: '1' }), (draft) => {
          runs++;
          draft.data = { count: String(Number(draft.data?.count) + 1) };
        }),
      { writeTimeout: 500 },
    );
    expect(lines).to.deep.equal([`0 PATCH ${path}`, `500 unsubscribed PATCH ${path}`, '500 error WriteTimeout']);
    expect(runs).to.equal(1);
  });

  it("applies mutate's own writeTimeout option to each of its writes", () => {
    const { lines } = run(
      () => NEVER,
      (c) => c.mutate(web('1'), (draft) => void (draft.data = { a: 'b' }), { writeTimeout: 30 }),
    );
    expect(lines).to.deep.equal([`0 PATCH ${path}`, `30 unsubscribed PATCH ${path}`, '30 error WriteTimeout']);
  });

  it('refuses a writeTimeout that is not a finite number of ms > 0 or false, naming it', () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '500', true]) {
      expect(() =>
        resourceClient(
          scriptedTransport(new TestScheduler(() => undefined), () => NEVER).transport,
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
          },
          { writeTimeout: bad as never },
        ),
      ).to.throw(RangeError, /resourceClient: writeTimeout must be a finite number of ms > 0, or false for none/);
    }
    const { lines, error } = run(
      () => NEVER,
      (c) => c.create(web(''), { writeTimeout: 0 }),
    );
    expect(lines).to.deep.equal([
      '0 error RangeError: resourceClient: POST: writeTimeout must be a finite number of ms > 0, or false for none, got 0',
    ]);
    expect(error).to.be.instanceOf(RangeError);
  });
});
