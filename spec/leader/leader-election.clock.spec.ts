import { expect } from 'chai';
import type { Subscription } from 'rxjs';
import { leaderElection, type LeaderEvent, type LeaseObject } from '../../src/leader/index.js';
import { ApiError, TransportError, type TransportRequest } from '../../src/transport/index.js';
import { scriptedLeases, withSteppedWallClock, type SeenRequest } from './wall-clock.js';

const TWO_HOURS = 7_200_000;

/** What the server stores for a write: the body under a new resourceVersion. */
function stored(request: TransportRequest, index: number): LeaseObject {
  const body = request.body as LeaseObject;
  return {
    ...body,
    metadata: { ...body.metadata, name: 'lock', namespace: 'default', resourceVersion: String(100 + index) },
  };
}

describe('leaderElection with its default scheduler (a monotonic clock, real timers)', () => {
  it('a wall-clock step forward does not make a held Lease look expired', async () => {
    const held: LeaseObject = {
      metadata: { name: 'lock', namespace: 'default', resourceVersion: '7' },
      spec: {
        holderIdentity: 'other',
        leaseDurationSeconds: 3600,
        acquireTime: null,
        renewTime: '2030-01-01T00:00:00.000000Z',
        leaseTransitions: 3,
      },
    };
    let subscription: Subscription | undefined;
    const seen = await withSteppedWallClock(
      (step) =>
        new Promise<readonly SeenRequest[]>((resolve) => {
          const transport = scriptedLeases(
            (request, index) => (request.method === 'GET' ? structuredClone(held) : stored(request, index)),
            (requests) => {
              // The first read starts the expiry clock (an hour); the wall clock jumps two hours ahead before the second
              // read is answered.
              if (requests.length === 2) step(TWO_HOURS);
              if (requests.length === 4) resolve([...requests]);
            },
          );
          subscription = leaderElection(transport, {
            namespace: 'default',
            name: 'lock',
            identity: 'me',
            leaseDuration: 2000,
            renewDeadline: 1000,
            retryPeriod: 5,
            random: () => 0,
            onEvent: () => undefined,
          }).subscribe();
        }),
    );
    subscription!.unsubscribe();
    // Read by Date.now(), the hour-long lease would have expired at the second read, and been taken.
    expect(seen.map((request) => request.method)).to.deep.equal(['GET', 'GET', 'GET', 'GET']);
  });

  it('a wall-clock step back while a renewal is in flight does not push the renew deadline back', async () => {
    const events: LeaderEvent[] = [];
    let subscription: Subscription | undefined;
    const outcome = await withSteppedWallClock(
      (step) =>
        new Promise<string>((resolve) => {
          let failed = 0;
          const transport = scriptedLeases(
            (request, index) => {
              if (index === 0) return new ApiError(404, 'NotFound', 'leases.coordination.k8s.io "lock" not found');
              if (index === 1) return stored(request, index);
              if (index === 2) {
                // The first renewal is answered after the wall clock went two hours back; nothing succeeds after it.
                step(-TWO_HOURS);
                return stored(request, index);
              }
              failed += 1;
              return new TransportError('NetworkError', `${request.method} ${request.path}: connection refused`);
            },
            () => {
              // 500 failed requests take at least 250 retry periods: far past a 100 ms renew deadline, by any clock.
              if (failed === 500) resolve('still leading after 500 failed requests');
            },
          );
          subscription = leaderElection(transport, {
            namespace: 'default',
            name: 'lock',
            identity: 'me',
            leaseDuration: 1000,
            renewDeadline: 100,
            retryPeriod: 5,
            random: () => 0,
            onEvent: (event) => {
              events.push(event);
              if (event.type === 'lost') resolve(`lost: ${event.reason}`);
            },
          }).subscribe();
        }),
    );
    subscription!.unsubscribe();
    expect(outcome).to.equal('lost: renewDeadline');
    expect(
      events.filter((event) => event.type === 'acquired' || event.type === 'renewed').map((event) => event.type),
    ).to.deep.equal(['acquired', 'renewed']);
  });

  it('writes acquireTime and renewTime from the wall clock', async () => {
    const writes: LeaseObject[] = [];
    let subscription: Subscription | undefined;
    await withSteppedWallClock(
      (step) =>
        new Promise<void>((resolve) => {
          step(Date.UTC(2031, 0, 2, 3, 4, 5) - Date.now());
          const transport = scriptedLeases(
            (request, index) => {
              if (request.method === 'GET')
                return new ApiError(404, 'NotFound', 'leases.coordination.k8s.io "lock" not found');
              writes.push(request.body as LeaseObject);
              return stored(request, index);
            },
            () => {
              if (writes.length === 1) resolve();
            },
          );
          subscription = leaderElection(transport, {
            namespace: 'default',
            name: 'lock',
            identity: 'me',
            onEvent: () => undefined,
          }).subscribe();
        }),
    );
    subscription!.unsubscribe();
    // The real clock runs on under the offset: the stamp is a few milliseconds past the step.
    const written = writes[0]!.spec!;
    expect(written.acquireTime).to.equal(written.renewTime);
    expect(written.renewTime).to.match(/^2031-01-02T03:04:\d{2}\.\d{3}000Z$/);
  });
});
