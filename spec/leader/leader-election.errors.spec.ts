import { expect } from 'chai';
import { config, of, repeat, type Subscription } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { ApiError, TransportError, type Transport } from '../../src/transport/index.js';
import { leaderElection, type LeaderElectionOptions, type LeaseObject } from '../../src/leader/index.js';
import { scriptedLeases } from './wall-clock.js';
import { base, candidate, described, election } from './harness.js';

describe('leaderElection: failures, reporting, sharing and options', () => {
  it('never errors on 403 or 500: each failure is reported and retried at the next jittered period', () => {
    election((env) => {
      env.server.failNext('a', 403, 403, 500);
      const a = candidate(env, 'a', { until: 20000 });
      env.scheduler.schedule(() => {
        expect(a.timeline).to.deep.equal(['0 false', '9650 true']);
        expect(described(a.events).slice(0, 3)).to.deep.equal([
          '10 failed acquire injected 403',
          '3220 failed acquire injected 403',
          '6430 failed acquire injected 500',
        ]);
        const first = a.events[0];
        expect(first?.type === 'failed' && first.error).to.be.instanceOf(ApiError);
      }, 19999);
    });
  });

  it('without onEvent, reports the first failure of each run, and the loss, through reportError', () => {
    const reported: string[] = [];
    const previous = config.onUnhandledError;
    config.onUnhandledError = (error) => reported.push((error as Error).message.replace(/^.* as a: /, ''));
    try {
      election(({ scheduler, server }) => {
        server.failNext('a', 500, 500);
        const sub = leaderElection(server.transport('a'), { ...base, identity: 'a', scheduler }).subscribe();
        scheduler.schedule(() => server.cut('a'), 9000);
        scheduler.schedule(() => sub.unsubscribe(), 30000);
      });
    } finally {
      config.onUnhandledError = previous;
    }
    expect(reported).to.deep.equal([
      'acquire failed: injected 500',
      // The fast-path replace failed first; the read of the slow path is the failure reported.
      'renew failed: GET /apis/coordination.k8s.io/v1/namespaces/default/leases/lock: connection refused',
      'lost the lease (renewDeadline)',
      'release failed: GET /apis/coordination.k8s.io/v1/namespaces/default/leases/lock: connection refused',
    ]);
  });

  it('an onEvent that throws is reported, and the election carries on', () => {
    const reported: unknown[] = [];
    const previous = config.onUnhandledError;
    config.onUnhandledError = (error) => reported.push(error);
    try {
      election((env) => {
        const a = candidate(env, 'a', {
          until: 5000,
          onEvent: () => {
            throw new Error('broken handler');
          },
        });
        env.scheduler.schedule(() => expect(a.timeline).to.deep.equal(['0 false', '20 true']), 4999);
      });
    } finally {
      config.onUnhandledError = previous;
    }
    expect(reported.length).to.be.greaterThan(2);
    expect((reported[0] as Error).message).to.equal('broken handler');
  });

  it('a 2xx answer that is not a Lease is a reported failure', () => {
    const scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
    const garbage: Transport = {
      get: () => of(undefined),
      watch: () => of(''),
      request: () => of({ status: 200, body: '<html>proxy login</html>', headers: {} }),
    };
    const errors: unknown[] = [];
    scheduler.run(({ expectObservable }) => {
      const leading$ = leaderElection(garbage, {
        ...base,
        identity: 'a',
        scheduler,
        onEvent: (e) => e.type === 'failed' && errors.push(e.error),
      });
      expectObservable(leading$, '^ 5000ms !').toBe('f', { f: false });
    });
    expect(errors.length).to.equal(2);
    expect(errors[0]).to.be.instanceOf(TransportError).and.to.have.property('reason', 'MalformedResponse');
  });

  it('is one campaign per Observable, shared by its subscribers; the latest value is replayed to a late one', () => {
    election(({ scheduler, server }) => {
      const leading$ = leaderElection(server.transport('a'), {
        ...base,
        identity: 'a',
        scheduler,
        onEvent: () => undefined,
      });
      const seen: string[] = [];
      let first: Subscription | undefined;
      let second: Subscription | undefined;
      scheduler.schedule(() => {
        first = leading$.subscribe((v) => seen.push(`${scheduler.now()} first ${v}`));
      }, 0);
      scheduler.schedule(() => {
        second = leading$.subscribe((v) => seen.push(`${scheduler.now()} second ${v}`));
      }, 100);
      scheduler.schedule(() => first?.unsubscribe(), 3000);
      scheduler.schedule(() => second?.unsubscribe(), 5000);
      scheduler.schedule(() => {
        expect(seen).to.deep.equal(['0 first false', '20 first true', '100 second true']);
        // One GET and one POST to acquire, renewals, then one release after the last unsubscribe.
        expect(server.log.map((s) => `${s.at} ${s.method}`)).to.deep.equal([
          '10 GET',
          '20 POST',
          '2030 PUT',
          '4040 PUT',
          '5010 GET',
          '5020 PUT',
        ]);
      }, 6000);
    });
  });

  it('subscribing again after a loss starts a new campaign (repeat)', () => {
    election(({ scheduler, server }) => {
      const seen: string[] = [];
      const sub = leaderElection(server.transport('a'), { ...base, identity: 'a', scheduler, onEvent: () => undefined })
        .pipe(repeat())
        .subscribe((v) => seen.push(`${scheduler.now()} ${v}`));
      scheduler.schedule(() => server.cut('a'), 3000);
      scheduler.schedule(() => server.heal('a'), 13000);
      scheduler.schedule(() => sub.unsubscribe(), 20000);
      scheduler.schedule(() => {
        // Lost at 12020; the new campaign's first try fails (still cut), its second finds the Lease still its own.
        expect(seen).to.deep.equal(['0 false', '20 true', '12020 false', '12020 false', '15250 true']);
      }, 19999);
    });
  });

  it('keeps preferredHolder, strategy, labels and unknown spec fields as it found them', () => {
    // A Lease from a newer server, with a field the in-memory one (1.36) would prune: a scripted read, and the write
    // the candidate sends.
    const found: LeaseObject = {
      metadata: { name: 'lock', namespace: 'default', resourceVersion: '7', labels: { team: 'x' } },
      spec: {
        holderIdentity: '',
        preferredHolder: 'b',
        strategy: 'OldestEmulationVersion',
        futureField: 7,
        leaseTransitions: 2,
      } as LeaseObject['spec'],
    };
    let written: LeaseObject | undefined;
    election(({ scheduler }) => {
      const transport = scriptedLeases(
        (request) => (request.method === 'GET' ? found : (request.body as LeaseObject)),
        (seen) => {
          written ??= seen.find((request) => request.method === 'PUT')?.body;
        },
      );
      const sub = leaderElection(transport, { ...base, identity: 'a', scheduler }).subscribe();
      scheduler.schedule(() => sub.unsubscribe(), 500);
    });
    expect(written!.metadata.labels).to.deep.equal({ team: 'x' });
    expect(written!.spec).to.include({
      holderIdentity: 'a',
      preferredHolder: 'b',
      strategy: 'OldestEmulationVersion',
      futureField: 7,
      leaseTransitions: 3,
    });
  });

  describe('options are checked at call time, as client-go checks them', () => {
    const transport: Transport = {
      get: () => of(undefined),
      watch: () => of(''),
      request: () => of({ status: 200, body: {}, headers: {} }),
    };
    const call = (options: Partial<LeaderElectionOptions>) => () =>
      leaderElection(transport, { ...base, ...options } as LeaderElectionOptions);
    const cases: Array<[string, Partial<LeaderElectionOptions>, RegExp]> = [
      [
        'leaseDuration > renewDeadline',
        { leaseDuration: 10_000, renewDeadline: 10_000 },
        /leaseDuration \(10000 ms\) must be greater than renewDeadline/,
      ],
      [
        'renewDeadline > retryPeriod × 1.2',
        { renewDeadline: 2_400, retryPeriod: 2_000 },
        /renewDeadline \(2400 ms\) must be greater than retryPeriod × 1.2/,
      ],
      ['positive durations', { retryPeriod: -1 }, /retryPeriod must be a number of ms > 0/],
      ['finite durations', { leaseDuration: Number.NaN }, /leaseDuration must be a number of ms > 0/],
      ['whole seconds for the Lease', { leaseDuration: 15_500 }, /leaseDuration must be a whole number of seconds/],
      ['a non-empty identity', { identity: '' }, /identity must be a non-empty string/],
      ['a valid name', { name: 'Not/Valid' }, /name must be a DNS-1123 subdomain/],
      ['a valid namespace', { namespace: '' }, /namespace must be a DNS-1123 label/],
      ['a known onLost', { onLost: 'restart' as never }, /onLost must be 'stop' or 'exit'/],
    ];
    for (const [what, options, message] of cases) {
      it(`requires ${what}`, () => expect(call(options)).to.throw(RangeError, message));
    }

    it('refuses an onWarning that is not a function', () => {
      expect(call({ onWarning: 'log' as never })).to.throw(TypeError, 'leaderElection: onWarning must be a function');
    });

    it('hands the API warnings of its Lease reads and writes to onWarning', () => {
      election(({ scheduler, server }) => {
        server.warnings = ['coordination.k8s.io/v1 Lease is fine; this is a test'];
        const seen: string[] = [];
        const sub = leaderElection(server.transport('a'), {
          ...base,
          identity: 'a',
          scheduler,
          onWarning: ({ method, path, text }) => seen.push(`${method} ${path} ${text}`),
        }).subscribe();
        scheduler.schedule(() => {
          const lease = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
          // The first GET answers 404 (no Lease yet), with no warning; then the create, and the renewal's replace.
          expect(seen).to.deep.equal([
            `POST ${lease} coordination.k8s.io/v1 Lease is fine; this is a test`,
            `PUT ${lease}/lock coordination.k8s.io/v1 Lease is fine; this is a test`,
          ]);
          sub.unsubscribe();
        }, 2100);
      });
    });

    it("defaults to client-go's 15 s / 10 s / 2 s and a hostname_uuid identity", () => {
      election(({ scheduler, server }) => {
        const sub = leaderElection(server.transport('a'), {
          namespace: 'default',
          name: 'lock',
          scheduler,
        }).subscribe();
        scheduler.schedule(() => {
          const spec = server.lease()!.spec!;
          expect(spec.leaseDurationSeconds).to.equal(15);
          expect(spec.holderIdentity).to.match(/^.+_[0-9a-f-]{36}$/);
          sub.unsubscribe();
        }, 100);
      });
    });
  });
});
