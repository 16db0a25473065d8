import { expect } from 'chai';
import { of, throwError } from 'rxjs';
import { ApiError, TransportError } from '../../src/transport/index.js';
import { exponentialBackoff, ListWatchError } from '../../src/watch/index.js';
import { line, page, pod, seeded } from './fake-transport.js';
import { backoffDelays, errorReasons, scenario, summary } from './harness.js';

const networkError = (): TransportError => new TransportError('NetworkError', 'connect ECONNREFUSED');

describe('listWatch: backoff and timers in virtual time', () => {
  it('waits exactly random() · min(30 s, 800 ms · 2^n) between failed lists with a seeded random source', () => {
    const failures = 7;
    const o = scenario(
      (fake, { cold }) => {
        for (let i = 0; i < failures; i += 1) fake.onGet(throwError(networkError));
        fake.onGet(of(page([pod('a', '1')], '10'))).onWatch(cold('-'));
      },
      { random: seeded(42) },
      200_000,
    );
    const replay = seeded(42);
    const expected = Array.from({ length: failures }, (_, n) => exponentialBackoff(n, replay()));
    expect(backoffDelays(o)).to.deep.equal(expected);
    let at = 0;
    const expectedTimes = [0, ...expected.map((d) => (at += d))];
    expect(o.fake.of('get').map((c) => c.at)).to.deep.equal(expectedTimes);
    expect(summary(o)).to.deep.equal(['relistStarted', 'listed:a', 'relistDone:10']);
  });

  for (const [healthyMs, expectedDelay] of [
    [130_000, 400],
    [100_000, 1600],
  ] as const) {
    it(`${healthyMs >= 120_000 ? 'resets' : 'does not reset'} the backoff after ${healthyMs / 1000} s of healthy watching`, () => {
      const o = scenario(
        (fake, { cold }) => {
          fake
            .onGet(throwError(networkError))
            .onGet(throwError(networkError))
            .onGet(of(page([], '10')))
            .onWatch(cold(`${healthyMs}ms #`, undefined, networkError()))
            .onWatch(cold('-'));
        },
        {},
        400_000,
      );
      expect(backoffDelays(o)).to.deep.equal([400, 800, expectedDelay]);
    });
  }

  it('honours Retry-After on 429 instead of the exponential delay', () => {
    const o = scenario((fake, { cold }) => {
      fake
        .onGet(throwError(() => new ApiError(429, 'TooManyRequests', 'slow down', 7)))
        .onGet(of(page([], '10')))
        .onWatch(cold('-'));
    });
    expect(backoffDelays(o)).to.deep.equal([7000]);
    expect(o.fake.of('get').map((c) => c.at)).to.deep.equal([0, 7000]);
  });

  it('aborts a watch that sends no bytes for timeoutSeconds + 30 s and resumes from the last resourceVersion', () => {
    const o = scenario(
      (fake, { cold }) => {
        fake
          .onGet(of(page([], '10')))
          .onWatch(cold('a', { a: line('ADDED', pod('a', '11')) }))
          .onWatch(cold('-'));
      },
      {},
      600_000,
    );
    const [first, second] = o.fake.of('watch');
    expect(first!.query.timeoutSeconds).to.equal(450);
    expect([first!.aborted, first!.abortedAt]).to.deep.equal([true, 480_000]);
    expect(errorReasons(o)).to.deep.equal(['DeadConnection']);
    expect([second!.at, second!.query.resourceVersion]).to.deep.equal([480_400, '11']);
  });

  it("allows a watch without timeoutSeconds ('server') 3630 s of silence before it counts as dead", () => {
    const o = scenario(
      (fake, { cold }) => {
        fake
          .onGet(of(page([], '10')))
          .onWatch(cold('a', { a: line('ADDED', pod('a', '11')) }))
          .onWatch(cold('-'));
      },
      { minWatchTimeout: 'server' },
      3_700_000,
    );
    const [first] = o.fake.of('watch');
    expect(first!.query.timeoutSeconds).to.equal(undefined);
    expect([first!.aborted, first!.abortedAt]).to.deep.equal([true, 3_630_000]);
    expect(errorReasons(o)).to.deep.equal(['DeadConnection']);
  });

  it('keeps a watch that receives a line every 100 s alive', () => {
    // Event lines, not bookmarks: a server that has sent a bookmark is held to idleTimeout (90 s) instead, see
    // reflector-idle.spec.ts.
    const o = scenario(
      (fake, { cold }) => {
        fake.onGet(of(page([], '10'))).onWatch(
          cold('100s a 100s b 100s c 100s d 100s e 100s f', {
            a: line('ADDED', pod('a', '11')),
            b: line('MODIFIED', pod('a', '12')),
            c: line('MODIFIED', pod('a', '13')),
            d: line('MODIFIED', pod('a', '14')),
            e: line('MODIFIED', pod('a', '15')),
            f: line('MODIFIED', pod('a', '16')),
          }),
        );
      },
      {},
      700_000,
    );
    expect(errorReasons(o)).to.deep.equal([]);
    expect(o.fake.of('watch')).to.have.length(1);
  });

  for (const [code, reason] of [
    [401, 'Unauthorized'],
    [403, 'Forbidden'],
    [404, 'NotFound'],
  ] as const) {
    it(`reports ${code} ${reason} on status and keeps retrying with backoff`, () => {
      const o = scenario((fake, { cold }) => {
        for (let i = 0; i < 3; i += 1) fake.onGet(throwError(() => new ApiError(code, reason, `pods is ${reason}`)));
        fake.onGet(of(page([pod('a', '1')], '10'))).onWatch(cold('-'));
      });
      expect(errorReasons(o)).to.deep.equal([reason, reason, reason]);
      expect(backoffDelays(o)).to.deep.equal([400, 800, 1600]);
      expect(o.error).to.equal(undefined);
      expect(summary(o)).to.deep.equal(['relistStarted', 'listed:a', 'relistDone:10']);
    });
  }

  it('errors with a clear ListWatchError under failFast instead of retrying a 403', () => {
    const o = scenario(
      (fake) => fake.onGet(throwError(() => new ApiError(403, 'Forbidden', 'pods is forbidden: User "x" cannot list'))),
      {
        failFast: true,
      },
    );
    expect(o.error).to.be.instanceOf(ListWatchError);
    expect((o.error as Error).message).to.equal(
      'listWatch /api/v1/pods: 403 Forbidden: pods is forbidden: User "x" cannot list; stopped, not retried',
    );
    expect(o.statuses().map(([, s]) => s.state)).to.deep.equal(['connecting', 'listing', 'failed']);
    expect(o.fake.calls).to.have.length(1);
    expect(backoffDelays(o)).to.deep.equal([]);
  });

  it('still retries network errors under failFast', () => {
    const o = scenario(
      (fake, { cold }) =>
        fake
          .onGet(throwError(networkError))
          .onGet(of(page([], '1')))
          .onWatch(cold('-')),
      { failFast: true },
    );
    expect(o.error).to.equal(undefined);
    expect(backoffDelays(o)).to.deep.equal([400]);
  });

  it('resumes a watch cut by a network error from the last resourceVersion after backoff, without relisting', () => {
    const o = scenario((fake, { cold }) => {
      fake
        .onGet(of(page([], '10')))
        .onWatch(
          cold('a 5s #', { a: line('ADDED', pod('a', '11')) }, new TransportError('ConnectionClosed', 'stream cut')),
        )
        .onWatch(cold('-'));
    });
    expect(o.fake.of('get')).to.have.length(1);
    expect(o.fake.of('watch').map((c) => [c.at, c.query.resourceVersion])).to.deep.equal([
      [0, '10'],
      [5401, '11'],
    ]);
  });
});

describe('listWatch: list timeout', () => {
  it('abandons a list page the server never answers after listTimeout, backs off and lists again', () => {
    const o = scenario(
      (fake, { cold }) =>
        fake
          .onGet(cold('-'))
          .onGet(of(page([pod('a', '1')], '10')))
          .onWatch(cold('-')),
      {},
      100_000,
    );
    const [first, second] = o.fake.of('get');
    expect([first!.aborted, first!.abortedAt]).to.deep.equal([true, 70_000]);
    expect(errorReasons(o)).to.deep.equal(['ListTimeout']);
    expect(second!.at).to.equal(70_400);
    expect(summary(o)).to.deep.equal(['relistStarted', 'listed:a', 'relistDone:10']);
  });

  it('takes its time limit from the listTimeout option and applies it to every page', () => {
    const o = scenario(
      (fake, { cold }) =>
        fake
          .onGet(of(page([], '10', 'tok')))
          .onGet(cold('-'))
          .onGet(of(page([], '11')))
          .onWatch(cold('-')),
      { listTimeout: 5_000 },
      20_000,
    );
    expect(o.fake.of('get').map((c) => [c.at, c.abortedAt, c.query.continue])).to.deep.equal([
      [0, undefined, undefined],
      [0, 5_000, 'tok'],
      [5_400, undefined, undefined],
    ]);
  });

  it('rejects a listTimeout that is not a positive number of ms, naming it', () => {
    const o = scenario(() => {}, { listTimeout: 0 });
    expect((o.error as Error).message).to.match(/listTimeout must be a number of ms > 0/);
  });
});

describe('listWatch: watching means the server accepted the watch', () => {
  it('announces watching only once the server accepted the watch, never for one it refused', () => {
    const o = scenario((fake, { cold }) => {
      fake
        .onGet(of(page([], '10')))
        .onWatch(throwError(() => new ApiError(403, 'Forbidden', 'watch is forbidden')))
        .onWatch(cold('-'));
    });
    expect(o.statuses().map(([t, s]) => [t, s.state])).to.deep.equal([
      [0, 'connecting'],
      [0, 'listing'],
      [0, 'connecting'],
      [0, 'error'],
      [0, 'backingOff'],
      [400, 'connecting'],
      [400, 'watching'],
    ]);
  });
});

describe('listWatch: unsubscribe', () => {
  it('aborts the in-flight watch at once and makes no further request', () => {
    const o = scenario((fake, { cold }) => fake.onGet(of(page([], '10'))).onWatch(cold('-')), {}, 5000);
    expect(o.fake.of('watch').map((c) => [c.aborted, c.abortedAt])).to.deep.equal([[true, 5000]]);
    expect(o.fake.calls).to.have.length(2);
  });

  it('aborts an in-flight list page', () => {
    const o = scenario((fake, { cold }) => fake.onGet(cold('10s (a|)', { a: page([], '10') })), {}, 3000);
    expect(o.fake.calls.map((c) => [c.kind, c.abortedAt])).to.deep.equal([['get', 3000]]);
  });

  it('cancels a pending backoff so no request follows', () => {
    const o = scenario(
      (fake) => fake.onGet(throwError(() => new ApiError(429, 'TooManyRequests', 'later', 60))),
      {},
      10_000,
    );
    expect(backoffDelays(o)).to.deep.equal([60_000]);
    expect(o.fake.calls).to.have.length(1);
  });
});
