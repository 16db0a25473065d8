import { expect } from 'chai';
import { config, merge, NEVER, Observable, timer, map } from 'rxjs';
import { reconcile, ReconcileAbortedError, type ReconcileEvent } from '../../src/controller/index.js';
import { leaderElection, microTime } from '../../src/leader/index.js';
import { base, candidate, described, election } from './harness.js';

describe('leaderElection: fencing and endings', () => {
  it('as the reconcile gate: runs start once leading, and losing the lease aborts them and closes intake', () => {
    election(({ scheduler, server }) => {
      const gate = leaderElection(server.transport('a'), {
        ...base,
        identity: 'a',
        scheduler,
        onEvent: () => undefined,
      });
      const lines: string[] = [];
      const slow = ({ key, signal }: { key: string; signal: AbortSignal }) =>
        new Observable<void>((subscriber) => {
          signal.addEventListener('abort', () => {
            const why = signal.reason instanceof ReconcileAbortedError ? signal.reason.why : String(signal.reason);
            lines.push(`${scheduler.now()} ${key} aborted: ${why}`);
            subscriber.complete();
          });
        });
      const keys$ = merge(timer(0).pipe(map(() => 'x')), timer(13000).pipe(map(() => 'y')), NEVER);
      const run = keys$.pipe(reconcile(slow, { gate, scheduler })).subscribe((event: ReconcileEvent) => {
        if (event.type === 'started' || event.type === 'succeeded')
          lines.push(`${scheduler.now()} ${event.type} ${event.key}`);
      });
      scheduler.schedule(() => server.cut('a'), 3000);
      scheduler.schedule(() => run.unsubscribe(), 20000);
      scheduler.schedule(() => {
        // Held from 20; the last renewal went out at 2020, so leadership ends at 12020; y is never started.
        expect(lines).to.deep.equal(['20 started x', '12020 x aborted: gate closed', '12020 succeeded x']);
      }, 19999);
    });
  });

  it("onLost: 'exit' emits false first, then exits with code 1", () => {
    election((env) => {
      const exits: string[] = [];
      const a = candidate(env, 'a', {
        onLost: 'exit',
        exit: (code) => exits.push(`${env.scheduler.now()} exit ${code}`),
      });
      env.scheduler.schedule(() => env.server.cut('a'), 3000);
      env.scheduler.schedule(() => {
        expect(a.timeline).to.deep.equal(['0 false', '20 true', '12020 false', '12020 complete']);
        expect(exits).to.deep.equal(['12020 exit 1']);
      }, 20000);
    });
  });

  it("onLost: 'exit' without onEvent says why on stderr before exiting (a warning would never be printed)", () => {
    const written: string[] = [];
    const warned: string[] = [];
    const exits: number[] = [];
    const write = process.stderr.write;
    const onUnhandledError = config.onUnhandledError;
    process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
    config.onUnhandledError = (error) => warned.push((error as Error).message.replace(/^.* as a: /, ''));
    try {
      election(({ scheduler, server }) => {
        leaderElection(server.transport('a'), {
          ...base,
          identity: 'a',
          scheduler,
          onLost: 'exit',
          exit: (code) => exits.push(code),
        }).subscribe();
        scheduler.schedule(() => server.cut('a'), 3000);
      });
    } finally {
      process.stderr.write = write;
      config.onUnhandledError = onUnhandledError;
    }
    expect(exits).to.deep.equal([1]);
    expect(written).to.deep.equal([
      'leader election on Lease default/lock as a: lost the lease (renewDeadline); exiting\n',
    ]);
    // The loss itself is not also sent as a warning; the renewal failures before it and the release after it are.
    expect(warned.map((m) => m.split(':')[0])).to.deep.equal(['renew failed', 'release failed']);
  });

  it('gives up at once when a read shows another holder', () => {
    election((env) => {
      const a = candidate(env, 'a', { until: 10000 });
      env.scheduler.schedule(
        () =>
          env.server.put({
            metadata: {},
            spec: {
              holderIdentity: 'intruder',
              leaseDurationSeconds: 15,
              renewTime: microTime(3000),
              leaseTransitions: 1,
            },
          }),
        3000,
      );
      env.scheduler.schedule(() => {
        // The renewal at 4030 meets a 409 (new resourceVersion), the read at 4040 shows the intruder.
        expect(a.timeline).to.deep.equal(['0 false', '20 true', '4050 false', '4050 complete']);
        expect(described(a.events).slice(-2)).to.deep.equal(['4050 leader intruder', '4050 lost takenOver intruder']);
        expect(env.server.lease()?.spec?.holderIdentity).to.equal('intruder');
      }, 9999);
    });
  });

  it('a renewal that hangs is abandoned at the deadline', () => {
    election((env) => {
      const a = candidate(env, 'a');
      env.scheduler.schedule(() => env.server.cut('a', 'hang'), 3000);
      env.scheduler.schedule(() => {
        expect(a.timeline).to.deep.equal(['0 false', '20 true', '12020 false', '12020 complete']);
        // The release that follows hangs too, and is given up renewDeadline later.
        expect(env.server.log.filter((s) => s.outcome === 'aborted').map((s) => `${s.at} ${s.method}`)).to.deep.equal([
          '12020 PUT',
          '22020 GET',
        ]);
        expect(described(a.events).slice(-1)).to.deep.equal([
          '22020 failed release leader election on Lease default/lock as a: release got no answer within renewDeadline (10000 ms)',
        ]);
      }, 30000);
    });
  });

  it('stop$: emits false, releases the lease, and completes once the release is written', () => {
    election((env) => {
      const a = candidate(env, 'a', { stop$: timer(5000, env.scheduler) });
      env.scheduler.schedule(() => {
        expect(a.timeline).to.deep.equal(['0 false', '20 true', '5000 false', '5020 complete']);
        expect(env.server.lease()?.spec).to.include({ holderIdentity: '', leaseDurationSeconds: 1 });
        expect(env.server.log.filter((s) => s.at >= 5000).map((s) => `${s.at} ${s.method}`)).to.deep.equal([
          '5010 GET',
          '5020 PUT',
        ]);
      }, 10000);
    });
  });

  it('a create that landed although its answer was lost is taken up at the next try, or released on unsubscribe', () => {
    election((env) => {
      env.server.failNext('a', 'ok', 'lostAnswer');
      env.server.failNext('b', 'ok', 'lostAnswer');
      const a = candidate(env, 'a', { until: 10000 });
      // b's POST meets a's Lease (AlreadyExists), so only a's answer is really lost.
      candidate(env, 'b', { at: 5, until: 100 });
      env.scheduler.schedule(() => {
        expect(a.timeline).to.deep.equal(['0 false', '3240 true']);
        expect(env.server.lease()?.spec).to.include({ holderIdentity: 'a', leaseTransitions: 0 });
      }, 9999);
    });
    election((env) => {
      env.server.failNext('a', 'ok', 'lostAnswer');
      const a = candidate(env, 'a', { until: 100 });
      env.scheduler.schedule(() => {
        expect(a.timeline).to.deep.equal(['0 false']);
        expect(env.server.writes()).to.deep.equal(['20 a a', '120 a ']);
      }, 1000);
    });
  });
});
