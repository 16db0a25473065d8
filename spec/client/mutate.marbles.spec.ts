/**
 * `mutate` in virtual time over a scripted transport: what it sends, when it retries, and when it gives up.
 */
import { expect } from 'chai';
import { TestScheduler } from 'rxjs/testing';
import type { Observable } from 'rxjs';
import { resourceClient } from '../../src/client/resource/index.js';
import type { ResourceClient } from '../../src/client/resource/index.js';
import { ApiError, isConflict } from '../../src/transport/index.js';
import type { TransportRequest, TransportResponse } from '../../src/transport/index.js';
import { apiError, conflict, fail, ok, scriptedTransport, unapplied } from './support/scripted-transport.js';

interface ConfigMap {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  status?: Record<string, unknown>;
}

const at = (resourceVersion: string, data: Record<string, string> = {}): ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'web', namespace: 'ns', resourceVersion },
  data,
});

interface Run {
  /** `<time> <METHOD> <path>` per request, then `<time> value <rv>` / `<time> error <code>` / `<time> complete`. */
  readonly lines: string[];
  readonly requests: TransportRequest[];
  readonly error: unknown;
}

/** Subscribes to `client.mutate(...)` built over the script and runs virtual time to the end. */
function run(
  script: (request: TransportRequest, index: number) => Observable<TransportResponse>,
  call: (client: ReturnType<typeof resourceClient<ConfigMap>>) => Observable<ConfigMap>,
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
      {
        namespace: 'ns',
        scheduler,
        random: () => 0,
        statusSubresource: false,
        ...clientOptions,
      },
    );
    const lines = scripted.lines;
    let error: unknown;
    call(client).subscribe({
      next: (value) => lines.push(`${scheduler.now()} value ${value.metadata?.resourceVersion}`),
      error: (err: unknown) => {
        error = err;
        lines.push(`${scheduler.now()} error ${err instanceof ApiError ? err.code : String(err)}`);
      },
      complete: () => lines.push(`${scheduler.now()} complete`),
    });
    scheduler.flush();
    result = { lines, requests: scripted.requests, error };
  });
  return result;
}

const path = '/api/v1/namespaces/ns/configmaps/web';
const setColor = (draft: ConfigMap): void => {
  (draft.data ??= {}).color = 'blue';
};

describe('client: mutate conflict retry (marbles)', () => {
  it('sends one JSON Patch that tests the resourceVersion before the change', () => {
    const { lines, requests } = run(
      () => ok(at('6', { color: 'blue' })),
      (c) => c.mutate(at('5'), setColor),
    );
    expect(lines).to.deep.equal([`0 PATCH ${path}`, '1 value 6', '1 complete']);
    expect(requests[0]!.contentType).to.equal('application/json-patch+json');
    expect(requests[0]!.body).to.deep.equal([
      { op: 'test', path: '/metadata/resourceVersion', value: '5' },
      { op: 'add', path: '/data/color', value: 'blue' },
    ]);
  });

  it('sends nothing when the recipe changes nothing, and emits the object it was given', () => {
    const base = at('5', { color: 'blue' });
    const { lines } = run(
      () => ok(base),
      (c) => c.mutate(base, setColor),
    );
    expect(lines).to.deep.equal(['0 value 5', '0 complete']);
  });

  it('retries a 409 after 10 ms with a fresh GET and the recipe run again', () => {
    const recipeBases: string[] = [];
    const answers = [fail(conflict()), ok(at('7', { other: 'x' })), ok(at('8'))];
    const { lines, requests } = run(
      (_, i) => answers[i]!,
      (c) =>
        c.mutate(at('5'), (draft) => {
          recipeBases.push(draft.metadata!.resourceVersion!);
          setColor(draft);
        }),
    );
    expect(lines).to.deep.equal([`0 PATCH ${path}`, `11 GET ${path}`, `12 PATCH ${path}`, '13 value 8', '13 complete']);
    expect(recipeBases).to.deep.equal(['5', '7']);
    expect((requests[2]!.body as unknown[])[0]).to.deep.equal({
      op: 'test',
      path: '/metadata/resourceVersion',
      value: '7',
    });
  });

  it('stretches each delay by up to 10% (client-go wait.Jitter): random 0.5 waits 10.5 ms', () => {
    const answers = [fail(conflict()), ok(at('7')), ok(at('8'))];
    const { lines } = run(
      (_, i) => answers[i]!,
      (c) => c.mutate(at('5'), setColor),
      { random: () => 0.5 },
    );
    expect(lines[1]).to.equal(`11.5 GET ${path}`);
  });

  it('gives up after 5 attempts (4 delays of 10 ms) with the last 409', () => {
    const { lines, error } = run(
      (request) => (request.method === 'GET' ? ok(at('9')) : fail(conflict())),
      (c) => c.mutate(at('5'), setColor),
    );
    expect(lines).to.deep.equal([
      `0 PATCH ${path}`,
      `11 GET ${path}`,
      `12 PATCH ${path}`,
      `23 GET ${path}`,
      `24 PATCH ${path}`,
      `35 GET ${path}`,
      `36 PATCH ${path}`,
      `47 GET ${path}`,
      `48 PATCH ${path}`,
      '49 error 409',
    ]);
    expect(isConflict(error)).to.equal(true);
  });

  it('follows a custom retry policy: 2 attempts, 100 ms × 2', () => {
    const answers = [fail(conflict()), ok(at('7')), fail(conflict())];
    const { lines } = run(
      (_, i) => answers[i]!,
      (c) => c.mutate(at('5'), setColor, { retry: { steps: 2, durationMs: 100, factor: 2, jitter: 0 } }),
    );
    expect(lines).to.deep.equal([`0 PATCH ${path}`, `101 GET ${path}`, `102 PATCH ${path}`, '103 error 409']);
  });

  it('re-reads from the store, without a GET, when the store holds a newer resourceVersion than the one that failed', () => {
    const store = { current: () => ({ get: (key: string) => (key === 'ns/web' ? at('12') : undefined) }) };
    const answers = [fail(conflict()), ok(at('13'))];
    const { lines, requests } = run(
      (_, i) => answers[i]!,
      (c) => c.mutate(at('5'), setColor, { store }),
    );
    expect(lines).to.deep.equal([`0 PATCH ${path}`, `11 PATCH ${path}`, '12 value 13', '12 complete']);
    expect((requests[1]!.body as unknown[])[0]).to.deep.equal({
      op: 'test',
      path: '/metadata/resourceVersion',
      value: '12',
    });
  });

  it('re-reads with a GET when the store has not caught up (same, older or incomparable resourceVersion)', () => {
    for (const cachedVersion of ['5', '4', 'opaque']) {
      const store: ResourceClient.MutateOptions<ConfigMap>['store'] = {
        current: () => ({ get: () => at(cachedVersion) }),
      };
      const answers = [fail(conflict()), ok(at('9')), ok(at('10'))];
      const { lines } = run(
        (_, i) => answers[i]!,
        (c) => c.mutate(at('5'), setColor, { store }),
      );
      expect(lines, `cached ${cachedVersion}`).to.deep.equal([
        `0 PATCH ${path}`,
        `11 GET ${path}`,
        `12 PATCH ${path}`,
        '13 value 10',
        '13 complete',
      ]);
    }
  });

  it('treats the 422 of a failed test as a conflict once a re-read shows the object changed', () => {
    const answers = [fail(unapplied()), ok(at('7')), ok(at('8'))];
    const { lines } = run(
      (_, i) => answers[i]!,
      (c) => c.mutate(at('5'), setColor),
    );
    expect(lines).to.deep.equal([`0 PATCH ${path}`, `11 GET ${path}`, `12 PATCH ${path}`, '13 value 8', '13 complete']);
  });

  it('fails with the 422 when a re-read shows the object did not change (the patch itself cannot apply)', () => {
    const answers = [fail(unapplied()), ok(at('5'))];
    const { lines, error } = run(
      (_, i) => answers[i]!,
      (c) => c.mutate(at('5'), setColor),
    );
    expect(lines).to.deep.equal([`0 PATCH ${path}`, `11 GET ${path}`, '12 error 422']);
    expect((error as ApiError).reason).to.equal('Invalid');
  });

  it("runs the recipe again on the server's object when a guard fails on a trimmed base, without replacing what the base lacked", () => {
    // An informer transform dropped the labels: the recipe creates them, its guard fails on the server's labels.
    const server: ConfigMap = { ...at('5'), metadata: { ...at('5').metadata, labels: { team: 'a' } } };
    const answers = [fail(unapplied()), ok(server), ok(at('6'))];
    const { lines, requests } = run(
      (_, i) => answers[i]!,
      (c) =>
        c.mutate(at('5'), (draft) => {
          draft.metadata!.labels = { ...draft.metadata!.labels, seen: 'yes' };
        }),
    );
    expect(lines).to.deep.equal([`0 PATCH ${path}`, `11 GET ${path}`, `12 PATCH ${path}`, '13 value 6', '13 complete']);
    expect(requests[0]!.body).to.deep.equal([
      { op: 'test', path: '/metadata/resourceVersion', value: '5' },
      { op: 'test', path: '/metadata/labels', value: null },
      { op: 'add', path: '/metadata/labels', value: { seen: 'yes' } },
    ]);
    expect(requests[2]!.body).to.deep.equal([
      { op: 'test', path: '/metadata/resourceVersion', value: '5' },
      { op: 'add', path: '/metadata/labels/seen', value: 'yes' },
    ]);
  });

  it("fails with the 422 when the patch computed on the server's own object does not apply either", () => {
    const server: ConfigMap = { ...at('5'), metadata: { ...at('5').metadata, labels: { team: 'a' } } };
    const answers = [fail(unapplied()), ok(server), fail(unapplied()), ok(server)];
    const { lines, error } = run(
      (_, i) => answers[i]!,
      (c) =>
        c.mutate(at('5'), (draft) => {
          draft.metadata!.labels = { ...draft.metadata!.labels, seen: 'yes' };
        }),
    );
    expect(lines).to.deep.equal([
      `0 PATCH ${path}`,
      `11 GET ${path}`,
      `12 PATCH ${path}`,
      `23 GET ${path}`,
      '24 error 422',
    ]);
    expect((error as ApiError).reason).to.equal('Invalid');
  });

  it('gives up with a 409 Conflict, caused by the last 422, when the object keeps changing', () => {
    let version = 5;
    const { lines, error } = run(
      (request) => (request.method === 'GET' ? ok(at(String(++version))) : fail(unapplied())),
      (c) => c.mutate(at('5'), setColor),
    );
    expect(lines.slice(-3)).to.deep.equal([`48 PATCH ${path}`, `49 GET ${path}`, '50 error 409']);
    expect(isConflict(error)).to.equal(true);
    expect((error as ApiError).message).to.equal(
      'Operation cannot be fulfilled on configmaps "web": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect((error as ApiError).details).to.deep.equal({ name: 'web', kind: 'configmaps' });
    expect(((error as Error).cause as ApiError).code).to.equal(422);
  });

  for (const [what, error] of [
    ['a 500', apiError(500, 'InternalError', 'injected')],
    ['a 429 with Retry-After', new ApiError(429, 'TooManyRequests', 'slow down', 3)],
    ['a 403', apiError(403, 'Forbidden', 'configmaps "web" is forbidden')],
    [
      'a 422 that names its fields',
      apiError(422, 'Invalid', 'invalid', { causes: [{ field: 'data', reason: 'FieldValueInvalid' }] }),
    ],
    ['a 404', apiError(404, 'NotFound', 'configmaps "web" not found')],
  ] as const) {
    it(`does not retry ${what}: one request, then that error`, () => {
      const { lines, error: got } = run(
        () => fail(error),
        (c) => c.mutate(at('5'), setColor),
      );
      expect(lines).to.deep.equal([`0 PATCH ${path}`, `1 error ${error.code}`]);
      expect(got).to.equal(error);
    });
  }

  it('fails with the error a recipe throws, sending nothing', () => {
    const boom = new Error('recipe failed');
    const { lines, error } = run(
      () => ok(at('6')),
      (c) =>
        c.mutate(at('5'), () => {
          throw boom;
        }),
    );
    expect(lines).to.deep.equal(['0 error Error: recipe failed']);
    expect(error).to.equal(boom);
  });

  it('reads the object first when given a name', () => {
    const answers = [ok(at('5')), ok(at('6'))];
    const { lines } = run(
      (_, i) => answers[i]!,
      (c) => c.mutate('web', setColor),
    );
    expect(lines).to.deep.equal([`0 GET ${path}`, `1 PATCH ${path}`, '2 value 6', '2 complete']);
  });

  it('does not write a part rebuilt with equal content', () => {
    const base = { ...at('5', { color: 'blue' }), status: { ready: false } };
    const { lines, requests } = run(
      () => ok(at('6')),
      (c) =>
        c.mutate(base, (draft) => {
          draft.data = { ...draft.data };
          draft.status = { ready: true };
        }),
      { statusSubresource: true },
    );
    expect(lines).to.deep.equal([`0 PATCH ${path}/status`, '1 value 6', '1 complete']);
    expect(requests[0]!.body).to.deep.equal([
      { op: 'test', path: '/metadata/resourceVersion', value: '5' },
      { op: 'replace', path: '/status/ready', value: true },
    ]);
  });

  it('writes the resource first, then status guarded by the resourceVersion the first write produced', () => {
    const answers = [ok(at('6')), ok(at('7'))];
    const { lines, requests } = run(
      (_, i) => answers[i]!,
      (c) =>
        c.mutate(at('5'), (draft) => {
          draft.metadata!.labels = { seen: 'yes' };
          draft.status = { ready: true };
        }),
      { statusSubresource: true },
    );
    expect(lines).to.deep.equal([`0 PATCH ${path}`, `1 PATCH ${path}/status`, '2 value 7', '2 complete']);
    expect(requests[0]!.body).to.deep.equal([
      { op: 'test', path: '/metadata/resourceVersion', value: '5' },
      { op: 'test', path: '/metadata/labels', value: null },
      { op: 'add', path: '/metadata/labels', value: { seen: 'yes' } },
    ]);
    expect(requests[1]!.body).to.deep.equal([
      { op: 'test', path: '/metadata/resourceVersion', value: '6' },
      { op: 'test', path: '/status', value: null },
      { op: 'add', path: '/status', value: { ready: true } },
    ]);
  });

  it('sends status changes with the rest when the kind has no status subresource', () => {
    const { lines, requests } = run(
      () => ok(at('6')),
      (c) =>
        c.mutate(at('5'), (draft) => {
          draft.status = { ready: true };
        }),
      { statusSubresource: false },
    );
    expect(lines[0]).to.equal(`0 PATCH ${path}`);
    expect(requests).to.have.length(1);
  });

  it('retries a status conflict after the resource write with only what is left to write', () => {
    const answers = [ok(at('6', { color: 'blue' })), fail(conflict()), ok(at('7', { color: 'blue' })), ok(at('8'))];
    const { lines, requests } = run(
      (_, i) => answers[i]!,
      (c) =>
        c.mutate(at('5'), (draft) => {
          setColor(draft);
          draft.status = { ready: true };
        }),
      { statusSubresource: true },
    );
    expect(lines).to.deep.equal([
      `0 PATCH ${path}`,
      `1 PATCH ${path}/status`,
      `12 GET ${path}`,
      `13 PATCH ${path}/status`,
      '14 value 8',
      '14 complete',
    ]);
    expect((requests[3]!.body as unknown[])[0]).to.deep.equal({
      op: 'test',
      path: '/metadata/resourceVersion',
      value: '7',
    });
  });

  it('aborts the request in flight and sends nothing more when unsubscribed during a retry delay or a request', () => {
    const scheduler = new TestScheduler((a, b) => {
      expect(a).to.deep.equal(b);
    });
    scheduler.run(() => {
      const scripted = scriptedTransport(scheduler, (request) =>
        request.method === 'GET' ? ok(at('7'), 5) : fail(conflict()),
      );
      const client = resourceClient<ConfigMap>(
        scripted.transport,
        { apiVersion: 'v1', kind: 'ConfigMap' },
        {
          namespace: 'ns',
          scheduler,
          random: () => 0,
          statusSubresource: false,
        },
      );
      const subscription = client.mutate(at('5'), setColor).subscribe({ error: () => undefined });
      scheduler.schedule(() => subscription.unsubscribe(), 13);
      scheduler.flush();
      expect(scripted.lines).to.deep.equal([`0 PATCH ${path}`, `11 GET ${path}`, `13 unsubscribed GET ${path}`]);
    });
  });

  it('errors with the reason of an aborted signal, and sends nothing when it is aborted already', () => {
    const scheduler = new TestScheduler((a, b) => {
      expect(a).to.deep.equal(b);
    });
    scheduler.run(() => {
      const scripted = scriptedTransport(scheduler, () => fail(conflict()));
      const client = resourceClient<ConfigMap>(
        scripted.transport,
        { apiVersion: 'v1', kind: 'ConfigMap' },
        {
          namespace: 'ns',
          scheduler,
          random: () => 0,
          statusSubresource: false,
        },
      );
      const controller = new AbortController();
      const errors: unknown[] = [];
      client
        .mutate(at('5'), setColor, { signal: controller.signal })
        .subscribe({ error: (err: unknown) => errors.push(err) });
      scheduler.schedule(() => controller.abort(new Error('lost leadership')), 5);
      scheduler.flush();
      expect(scripted.lines).to.deep.equal([`0 PATCH ${path}`]);
      expect(errors.map(String)).to.deep.equal(['Error: lost leadership']);

      client
        .mutate(at('5'), setColor, { signal: controller.signal })
        .subscribe({ error: (err: unknown) => errors.push(err) });
      scheduler.flush();
      expect(scripted.lines).to.have.length(1);
      expect(errors).to.have.length(2);
    });
  });
});
