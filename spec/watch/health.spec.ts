import { expect } from 'chai';
import { asyncScheduler, NEVER, of, throwError } from 'rxjs';
import { ApiError, TransportError } from '../../src/transport/index.js';
import type { Transport } from '../../src/transport/index.js';
import { ListWatchError, listWatch, WATCH_HEALTH_WARNING, type WatchHealthReport } from '../../src/watch/index.js';
import { bookmark, kc, line, page, pod, PODS, statusLine } from './fake-transport.js';
import { backoffDelays, errorReasons, scenario, summary } from './harness.js';

/** A network failure as the HTTP transport reports it: a TransportError whose cause carries Node's error code. */
const network = (code: string, message: string) => () =>
  new TransportError('NetworkError', `GET /api/v1/pods: ${message}`, {
    cause: Object.assign(new Error(message), { code }),
  });
const refused = network('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1');
const api = (code: number, reason: string) => () => new ApiError(code, reason, `${reason} by the server`);

/** Reports as `[virtual ms, type, what]`. */
function collect(into: Array<[number, string, string]>): (report: WatchHealthReport) => void {
  return (report) =>
    into.push([
      asyncScheduler.now(),
      report.type,
      report.type === 'recovered'
        ? report.causes.map((c) => c.reason).join(',')
        : `${report.cause.code ?? ''} ${report.cause.reason}`.trim(),
    ]);
}

describe('listWatch: health reports (onHealth)', () => {
  it('reports a refused connection on its first failure, once while it lasts, and its recovery once the watch is accepted', () => {
    const seen: Array<[number, string, string]> = [];
    const o = scenario(
      (fake, { cold }) => {
        for (let i = 0; i < 3; i += 1) fake.onGet(throwError(refused));
        fake.onGet(of(page([pod('a', '1')], '10'))).onWatch(cold('-'));
      },
      { onHealth: collect(seen) },
    );
    expect(backoffDelays(o)).to.deep.equal([400, 800, 1600]);
    expect(seen).to.deep.equal([
      [0, 'failing', 'NetworkError'],
      [2800, 'recovered', 'NetworkError'],
    ]);
  });

  it('says each distinct cause once per outage: a 401, then a 403, then the 401 again is not repeated; after a recovery it is', () => {
    const reports: WatchHealthReport[] = [];
    scenario(
      (fake, { cold }) => {
        fake
          .onGet(throwError(api(401, 'Unauthorized')))
          .onGet(throwError(api(403, 'Forbidden')))
          .onGet(throwError(api(401, 'Unauthorized')));
        fake
          .onGet(of(page([], '10')))
          .onWatch(cold('--#', undefined, new ApiError(401, 'Unauthorized', 'token expired')));
        fake.onWatch(cold('-'));
      },
      { onHealth: (report) => reports.push(report) },
    );
    expect(reports.map((r) => r.message)).to.deep.equal([
      'Pod v1: 401 Unauthorized: Unauthorized by the server (retrying with backoff)',
      'Pod v1: 403 Forbidden: Forbidden by the server (retrying with backoff)',
      'Pod v1: recovered, watching again after 401 Unauthorized, 403 Forbidden',
      'Pod v1: 401 Unauthorized: token expired (retrying with backoff)',
      'Pod v1: recovered, watching again after 401 Unauthorized',
    ]);
  });

  it('tells apart a refused connection, a DNS failure and a TLS failure, which all have the reason NetworkError', () => {
    const reports: WatchHealthReport[] = [];
    scenario(
      (fake) => {
        fake.onGet(throwError(refused)).onGet(throwError(network('ENOTFOUND', 'getaddrinfo ENOTFOUND kube.example')));
        fake
          .onGet(throwError(network('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate')))
          .onGet(throwError(refused));
      },
      { onHealth: (report) => reports.push(report) },
    );
    expect(reports.map((r) => r.type === 'failing' && r.cause.errorCode)).to.deep.equal([
      'ECONNREFUSED',
      'ENOTFOUND',
      'DEPTH_ZERO_SELF_SIGNED_CERT',
    ]);
  });

  it('says nothing of routine events: a 410 that relists, a streaming list the server does not serve, a clean close', () => {
    const reports: WatchHealthReport[] = [];
    const o = scenario(
      (fake, { cold }) => {
        fake.onWatch(cold('a', { a: bookmark('5') }));
        fake.onGet(of(page([], '10'))).onWatch(cold('a 500ms |', { a: line('ADDED', pod('b', '11')) }));
        fake.onWatch(cold('a', { a: statusLine(410, 'Expired') }));
        fake.onGet(of(page([], '20'))).onWatch(cold('-'));
      },
      { streamingList: true, onHealth: (report) => reports.push(report) },
    );
    expect(errorReasons(o)).to.deep.equal(['StreamingListUnsupported', 'Expired']);
    expect(reports).to.deep.equal([]);
  });

  it('reports the failure that stops a watch as stopped', () => {
    const reports: WatchHealthReport[] = [];
    scenario((fake) => fake.onGet(throwError(api(403, 'Forbidden'))), {
      failFast: true,
      onHealth: (report) => reports.push(report),
    });
    expect(reports.map((r) => [r.type, r.message])).to.deep.equal([
      ['stopped', 'Pod v1: 403 Forbidden: Forbidden by the server (stopped: retrying cannot fix this)'],
    ]);
  });

  it('names the watch by kind, apiVersion, namespace and selectors', () => {
    const reports: WatchHealthReport[] = [];
    scenario((fake) => fake.onGet(throwError(refused)), {
      namespace: 'default',
      labelSelector: 'app=web',
      fieldSelector: 'spec.nodeName=n1',
      onHealth: (report) => reports.push(report),
    });
    expect(reports.map((r) => r.watch)).to.deep.equal(['Pod v1 in default app=web spec.nodeName=n1']);
  });

  it("goes to the connection's own handler when it was given none, so a scripted or virtual cluster collects them", () => {
    const o = scenario((fake) => fake.onGet(throwError(refused)));
    expect(o.fake.health.map((r) => r.type)).to.deep.equal(['failing']);
  });

  it('prints each report on stderr as a KubernetesWatchHealth process warning by default', () => {
    const printed: Array<[string, string | undefined]> = [];
    const emit = process.emitWarning;
    process.emitWarning = ((warning: string | Error, options?: { type?: string }) => {
      printed.push([String(warning), options?.type]);
    }) as typeof process.emitWarning;
    try {
      // A transport that routes no health of its own, as a KubeConfig's does not.
      const transport: Transport = {
        get: () => throwError(refused),
        watch: () => NEVER,
        request: () => NEVER,
      };
      const subscription = listWatch(kc, PODS, { transport, scheduler: asyncScheduler }).subscribe();
      subscription.unsubscribe();
    } finally {
      process.emitWarning = emit;
    }
    expect(printed).to.deep.equal([
      [
        'Pod v1: NetworkError: GET /api/v1/pods: connect ECONNREFUSED 127.0.0.1:1 (retrying with backoff)',
        WATCH_HEALTH_WARNING,
      ],
    ]);
  });

  it('carries on when onHealth throws, and refuses an onHealth that is not a function', () => {
    const emit = process.emitWarning;
    const warned: string[] = [];
    process.emitWarning = ((warning: string | Error) => {
      warned.push(String(warning));
    }) as typeof process.emitWarning;
    let o;
    try {
      o = scenario(
        (fake, { cold }) =>
          fake
            .onGet(throwError(refused))
            .onGet(of(page([pod('a', '1')], '10')))
            .onWatch(cold('-')),
        {
          onHealth: () => {
            throw new Error('handler broke');
          },
        },
      );
    } finally {
      process.emitWarning = emit;
    }
    expect(summary(o)).to.deep.equal(['relistStarted', 'listed:a', 'relistDone:10']);
    expect(warned).to.deep.equal(['Error: handler broke', 'Error: handler broke']);
    const refusedOption = scenario(() => {}, { onHealth: 'log' as never });
    expect((refusedOption.error as Error).message).to.equal('listWatch: onHealth must be a function');
  });
});

describe('listWatch: failures no retry can fix', () => {
  for (const [code, reason] of [
    [400, 'BadRequest'],
    [405, 'MethodNotAllowed'],
    [406, 'NotAcceptable'],
    [414, 'RequestURITooLong'],
    [422, 'Invalid'],
  ] as const) {
    it(`stops on a ${code} from the list: status failed, then a ListWatchError, and no second request`, () => {
      const o = scenario((fake) =>
        fake.onGet(throwError(() => new ApiError(code, reason, `the server says ${reason}`))).onGet(of(page([], '1'))),
      );
      expect(o.statuses().map(([, s]) => s.state)).to.deep.equal(['connecting', 'listing', 'failed']);
      expect(o.error).to.be.instanceOf(ListWatchError);
      expect((o.error as Error).message).to.equal(
        `listWatch /api/v1/pods: ${code} ${reason}: the server says ${reason}; stopped, not retried`,
      );
      expect(o.fake.calls).to.have.length(1);
      expect(o.fake.health.map((r) => r.type)).to.deep.equal(['stopped']);
    });
  }

  it('stops on a 400 that a watch answers, and on a 400 ERROR event inside a watch', () => {
    const refusedWatch = scenario((fake, { cold }) =>
      fake.onGet(of(page([], '10'))).onWatch(cold('#', undefined, new ApiError(400, 'BadRequest', 'bad'))),
    );
    expect(refusedWatch.statuses().at(-1)?.[1].state).to.equal('failed');
    expect(refusedWatch.fake.of('watch')).to.have.length(1);
    const inBand = scenario((fake, { cold }) =>
      fake.onGet(of(page([], '10'))).onWatch(cold('a', { a: statusLine(400, 'BadRequest') })),
    );
    expect(inBand.error).to.be.instanceOf(ListWatchError);
    expect(inBand.fake.of('watch')).to.have.length(1);
  });

  it('keeps retrying 401, 403, 404, 429 and 5xx without failFast', () => {
    for (const [code, reason] of [
      [401, 'Unauthorized'],
      [403, 'Forbidden'],
      [404, 'NotFound'],
      [429, 'TooManyRequests'],
      [500, 'InternalError'],
      [503, 'ServiceUnavailable'],
    ] as const) {
      const o = scenario((fake, { cold }) =>
        fake
          .onGet(throwError(api(code, reason)))
          .onGet(of(page([], '1')))
          .onWatch(cold('-')),
      );
      expect(o.error, `${code}`).to.equal(undefined);
      expect(o.fake.of('get'), `${code}`).to.have.length(2);
    }
  });

  for (const [code, reason] of [
    [401, 'Unauthorized'],
    [403, 'Forbidden'],
    [404, 'NotFound'],
  ] as const) {
    it(`retries a ${code} to a streaming list as a streaming list, instead of taking it for a server without streaming lists`, () => {
      const o = scenario(
        (fake, { cold }) => {
          fake.onWatch(cold('#', undefined, new ApiError(code, reason, `${reason} by the server`)));
          fake.onWatch(cold('a b', { a: line('ADDED', pod('x', '21')), b: bookmark('25', true) }));
        },
        { streamingList: true },
      );
      expect(errorReasons(o)).to.deep.equal([reason]);
      expect(o.fake.of('get')).to.deep.equal([]);
      expect(o.fake.of('watch').map((c) => c.query.sendInitialEvents)).to.deep.equal([true, true]);
      expect(summary(o)).to.deep.equal(['relistStarted', 'listed:x', 'relistDone:25']);
    });
  }

  it("falls back to list and watch when a streaming list's first request gets a 400 or 422, instead of stopping", () => {
    const o = scenario(
      (fake, { cold }) => {
        fake.onWatch(cold('#', undefined, new ApiError(422, 'Invalid', 'sendInitialEvents is forbidden')));
        fake.onGet(of(page([pod('a', '1')], '10'))).onWatch(cold('-'));
      },
      { streamingList: true },
    );
    expect(o.error).to.equal(undefined);
    expect(summary(o)).to.deep.equal(['relistStarted', 'listed:a', 'relistDone:10']);
  });
});
