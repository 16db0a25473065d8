import { expect } from 'chai';
import { throwError, timer } from 'rxjs';
import { ApiError, controller, type ReconcileAbortedError } from '../../src/index.js';
import type { Transport } from '../../src/extend.js';
import type { ControllerDefinition } from '../../src/controller/context/index.js';
import { virtual } from '../controller/helpers.js';
import { VirtualLeaseServer } from '../leader/lease-server.js';
import { pod } from '../store/fixtures.js';
import { LISTED, listed, scriptedSource, startVirtualManager } from './harness.js';

const PODS = { apiVersion: 'v1', kind: 'Pod' } as const;

/** A pods controller whose reconcile takes `ms` (a cold timer) and records its signal's aborts. */
function slowPods(ms: number, aborts: string[] = [], needLeaderElection = true): ControllerDefinition {
  return {
    name: 'pods',
    needLeaderElection,
    start: (context) =>
      controller({
        context,
        for: PODS,
        reconcile: ({ key, signal }) => {
          signal.addEventListener('abort', () =>
            aborts.push(
              `${context.scheduler.now()} ${key} ${(signal.reason as Error).name}: ${(signal.reason as ReconcileAbortedError).why}`,
            ),
          );
          return timer(ms, context.scheduler);
        },
      }),
  };
}

describe('manager (virtual time)', () => {
  it('keeps the cache warm while another replica leads, and starts runs the moment it leads', () => {
    virtual(({ scheduler, cold, flush }) => {
      const server = new VirtualLeaseServer(scheduler);
      // Another replica renewed the Lease just before we started, and then died.
      server.put({
        metadata: {},
        spec: {
          holderIdentity: 'other',
          leaseDurationSeconds: 15,
          renewTime: '2026-01-01T00:00:00.000000Z',
          leaseTransitions: 0,
        },
      });
      const run = startVirtualManager(
        scheduler,
        [slowPods(0)],
        { informers: { source: scriptedSource({ cold }, LISTED, listed('web')) } },
        server,
      );
      scheduler.schedule(() => run.subscription!.unsubscribe(), 20_000);
      flush();
      // Observed at 10 ms, expired at 15 010 ms by our clock: a GET and a PUT later we lead, and run at once.
      expect(run.timeline).to.deep.equal([
        '0 started',
        '2 synced',
        '2 ready true',
        '15030 leading true',
        '15030 pods: started default/web#1',
        '15030 pods: succeeded default/web',
      ]);
    });
  });

  it('logs the API warnings of its Lease writes once per text, on its own log', () => {
    virtual(({ scheduler, cold, flush }) => {
      const server = new VirtualLeaseServer(scheduler);
      server.warnings = ['coordination.k8s.io/v1 Lease: a test warning'];
      const run = startVirtualManager(
        scheduler,
        [slowPods(0)],
        { informers: { source: scriptedSource({ cold }, LISTED, listed('web')) } },
        server,
      );
      scheduler.schedule(() => run.subscription!.unsubscribe(), 10_000);
      flush();
      const warned = run.logger.records.filter((record) => record.msg === 'the API server sent a warning');
      // The create at 20 and every renewal after it carry the warning; the manager logs the text once.
      expect(server.writes().length).to.be.greaterThan(2);
      expect(warned).to.deep.equal([
        {
          manager: 'lock',
          msg: 'the API server sent a warning',
          warning: 'coordination.k8s.io/v1 Lease: a test warning',
          method: 'POST',
          path: '/apis/coordination.k8s.io/v1/namespaces/default/leases',
        },
      ]);
    });
  });

  it('runs a controller that opted out of leader election on every replica, before any lease', () => {
    virtual(({ scheduler, cold, flush }) => {
      const server = new VirtualLeaseServer(scheduler);
      server.cut('me', 'hang');
      const run = startVirtualManager(
        scheduler,
        [slowPods(0, [], false)],
        { informers: { source: scriptedSource({ cold }, LISTED, listed('web')) } },
        server,
      );
      scheduler.schedule(() => run.subscription!.unsubscribe(), 100);
      flush();
      expect(run.timeline).to.deep.equal([
        '0 started',
        '2 synced',
        '2 ready true',
        '2 pods: started default/web#1',
        '2 pods: succeeded default/web',
      ]);
    });
  });

  it('closes the gate when leadership is lost, aborting the run in flight, and leads again warm in standby', () => {
    virtual(({ scheduler, cold, flush }) => {
      const aborts: string[] = [];
      const run = startVirtualManager(scheduler, [slowPods(60_000, aborts)], {
        informers: { source: scriptedSource({ cold }, LISTED, listed('web')) },
      });
      scheduler.schedule(() => run.server.cut('me', 'network'), 1_000);
      scheduler.schedule(() => run.server.heal('me'), 12_000);
      scheduler.schedule(() => run.subscription!.unsubscribe(), 40_000);
      flush();
      const leading = run.timeline.filter((line) => line.includes('leading'));
      // Acquired at 20 (a GET answered 404, then a POST sent at 10); the first renewal comes after the cut at
      // 1 000, so the POST is the last success: the gate closes renewDeadline after it was sent.
      expect(leading[0]).to.equal('20 leading true');
      expect(leading[1]).to.equal('10010 leading false');
      expect(aborts).to.deep.equal(['10010 default/web ReconcileAbortedError: gate closed']);
      // Standby: the manager campaigns again once the lost term's release has settled (its read failed at 10 020)
      // and the network is back, and the same run goes on in its slot.
      expect(leading[2]).to.equal('13250 leading true');
      expect(run.timeline).to.not.include('complete');
      expect(run.logger.lines).to.include('10010 error leadership lost');
    });
  });

  describe('graceful stop', () => {
    /** A list of `web` at frame 2, and a pod `late` added at frame 200. */
    const WITH_LATE = `${LISTED} 196ms e`;
    const withLate = { ...listed('web'), e: { type: 'added', object: pod('late', '9') } } as const;

    /** Reconciles take `ms` and record an Event for their pod first. */
    function recordingPods(ms: number): ControllerDefinition {
      return {
        name: 'pods',
        start: (context) =>
          controller({
            context,
            for: PODS,
            reconcile: ({ object }) => {
              if (object) context.recorder!.event(object, { type: 'Normal', reason: 'Synced', action: 'Sync' });
              return timer(ms, context.scheduler);
            },
          }),
      };
    }

    it('on SIGTERM stops intake, drains the run in flight, flushes events, releases the Lease, completes, exits 0', () => {
      virtual(({ scheduler, cold, hot, flush }) => {
        const run = startVirtualManager(scheduler, [recordingPods(500)], {
          informers: { source: scriptedSource({ cold }, WITH_LATE, withLate) },
          signals: { source: hot('100ms s', { s: 'SIGTERM' }) },
        });
        flush();
        expect(run.timeline).to.deep.equal([
          '0 started',
          '2 synced',
          '2 ready true',
          '20 leading true',
          '20 pods: started default/web#1',
          '100 stopping (signal SIGTERM)',
          '100 ready false',
          '520 pods: succeeded default/web',
          '520 drained clean cancelled=0',
          '520 leading false',
          '540 stopped',
          '540 complete',
        ]);
        expect(run.eventWrites).to.deep.equal(['30 POST Synced']);
        expect(run.exits).to.deep.equal(['540 exit 0']);
        expect(run.server.writes().at(-1)).to.equal('540 me ');
        expect(
          run.logger.lines.filter((line) => / (stopping|drained|events flushed|lease released|stopped)$/.test(line)),
        ).to.deep.equal([
          '100 info stopping',
          '520 info drained',
          '520 info events flushed',
          '540 info lease released',
          '540 info stopped',
        ]);
      });
    });

    it('cancels a run that outlasts shutdownTimeout, reports the drain unclean, and exits 1', () => {
      virtual(({ scheduler, cold, hot, flush }) => {
        const run = startVirtualManager(scheduler, [recordingPods(60_000)], {
          informers: { source: scriptedSource({ cold }, LISTED, listed('web')) },
          signals: { source: hot('100ms s', { s: 'SIGTERM' }) },
          shutdownTimeout: 300,
        });
        flush();
        expect(run.timeline.slice(5)).to.deep.equal([
          '100 stopping (signal SIGTERM)',
          '100 ready false',
          '400 pods: failed default/web',
          '400 drained cancelled=1',
          '400 leading false',
          '420 stopped',
          '420 complete',
        ]);
        expect(run.exits).to.deep.equal(['420 exit 1']);
      });
    });

    it('exits at once with 1 on a second signal', () => {
      virtual(({ scheduler, cold, hot, flush }) => {
        const run = startVirtualManager(scheduler, [recordingPods(60_000)], {
          informers: { source: scriptedSource({ cold }, LISTED, listed('web')) },
          signals: { source: hot('100ms s 49ms t', { s: 'SIGTERM', t: 'SIGINT' }) },
        });
        flush();
        expect(run.exits).to.deep.equal(['150 exit 1']);
        expect(run.timeline.at(-1)).to.equal('150 error manager: stopped at once by a second SIGINT');
      });
    });

    it('logs every Event it loses as it happens: a refused write and a rejected call, each when it happens', () => {
      virtual(({ scheduler, cold, hot, flush }) => {
        const refusing: ControllerDefinition = {
          name: 'pods',
          start: (context) =>
            controller({
              context,
              for: PODS,
              reconcile: ({ object }) => {
                if (object) {
                  context.recorder!.event(object, { type: 'Normal', reason: 'Refused', action: 'Sync' });
                  context.recorder!.event(object, { type: 'Normal', reason: '', action: 'Sync' });
                }
                return timer(10, context.scheduler);
              },
            }),
        };
        const events403 = (connection: Transport): Transport => ({
          ...connection,
          request: (request) =>
            request.path.startsWith('/apis/events.k8s.io/')
              ? throwError(() => new ApiError(403, 'Forbidden', 'events.events.k8s.io is forbidden'))
              : connection.request(request),
        });
        const server = new VirtualLeaseServer(scheduler);
        const run = startVirtualManager(
          scheduler,
          [refusing],
          {
            connection: events403(server.transport('me')),
            informers: { source: scriptedSource({ cold }, LISTED, listed('web')) },
            stop$: hot('100ms x'),
          },
          server,
        );
        flush();
        const lost = run.logger.records.filter((record) => record.msg.startsWith('event '));
        expect(lost.map((record) => `${record.msg} ${String(record.reason ?? '')}`)).to.deep.equal([
          'event rejected ',
          'event write failed Refused',
        ]);
        expect(run.logger.lines.filter((line) => / event /.test(line))).to.deep.equal([
          '20 warn event rejected',
          '20 error event write failed',
        ]);
        expect(lost[1]).to.include({ regarding: 'Pod default/web', attempts: 1 });
      });
    });

    it('in standby, leadership lost during a drain after SIGTERM ends the drain and exits, not an error', () => {
      virtual(({ scheduler, cold, hot, flush }) => {
        const aborts: string[] = [];
        const run = startVirtualManager(scheduler, [slowPods(60_000, aborts)], {
          informers: { source: scriptedSource({ cold }, LISTED, listed('web')) },
          signals: { source: hot('5000ms s', { s: 'SIGTERM' }) },
        });
        // Renewals fail from 1 000: the POST sent at 10 is the last success, so leadership ends at 10 010, mid-drain.
        scheduler.schedule(() => run.server.cut('me', 'network'), 1000);
        flush();
        // The gate closes at 10 010 (the run ignores its signal); the drain goes on until shutdownTimeout cancels the
        // run, and the stop ends as after any signal: stopped, completed, and the process exits, 1 for the cancel.
        expect(run.timeline.slice(5)).to.deep.equal([
          '5000 stopping (signal SIGTERM)',
          '5000 ready false',
          '10010 leading false',
          '35000 pods: failed default/web',
          '35000 drained cancelled=1',
          '35000 stopped',
          '35000 complete',
        ]);
        expect(aborts).to.deep.equal(['10010 default/web ReconcileAbortedError: gate closed']);
        expect(run.exits).to.deep.equal(['35000 exit 1']);
      });
    });

    it('drains on stop$ without exiting the process', () => {
      virtual(({ scheduler, cold, hot, flush }) => {
        const run = startVirtualManager(scheduler, [recordingPods(50)], {
          informers: { source: scriptedSource({ cold }, LISTED, listed('web')) },
          stop$: hot('30ms x'),
        });
        flush();
        expect(run.timeline.slice(5)).to.deep.equal([
          '30 stopping (stop$)',
          '30 ready false',
          '70 pods: succeeded default/web',
          '70 drained clean cancelled=0',
          '70 leading false',
          '90 stopped',
          '90 complete',
        ]);
        expect(run.exits).to.deep.equal([]);
      });
    });

    it('stops at once on unsubscribe: the run in flight is aborted and the Lease released', () => {
      virtual(({ scheduler, cold, flush }) => {
        const aborts: string[] = [];
        const run = startVirtualManager(scheduler, [slowPods(60_000, aborts)], {
          informers: { source: scriptedSource({ cold }, LISTED, listed('web')) },
        });
        scheduler.schedule(() => run.subscription!.unsubscribe(), 100);
        flush();
        expect(aborts).to.deep.equal(['100 default/web ReconcileAbortedError: unsubscribed']);
        expect(run.timeline.at(-1)).to.equal('20 pods: started default/web#1');
        expect(run.server.writes().at(-1)).to.equal('120 me ');
        expect(run.exits).to.deep.equal([]);
      });
    });
  });
});
