import { expect } from 'chai';
import type { Subscription } from 'rxjs';
import type { LeaseObject } from '../../src/leader/index.js';
import { manager, silentLogger } from '../../src/manager/index.js';
import { scriptedLeases, withSteppedWallClock, type SeenRequest } from '../leader/wall-clock.js';

describe('manager with its default scheduler (a monotonic clock, real timers)', () => {
  it('a wall-clock step forward does not let its leader election take a Lease another replica holds', async () => {
    const held: LeaseObject = {
      metadata: { name: 'lock', namespace: 'default', resourceVersion: '7' },
      spec: { holderIdentity: 'other', leaseDurationSeconds: 3600, acquireTime: null, renewTime: '2030-01-01T00:00:00.000000Z', leaseTransitions: 3 },
    };
    let subscription: Subscription | undefined;
    const seen = await withSteppedWallClock((step) => new Promise<readonly SeenRequest[]>((resolve, reject) => {
      const transport = scriptedLeases((request) => (request.method === 'GET' ? structuredClone(held) : new Error(`unexpected ${request.method}`)), (requests) => {
        if (requests.length === 2) step(7_200_000);
        if (requests.length === 4) resolve([...requests]);
      });
      subscription = manager({
        connection: transport, name: 'lock', controllers: [],
        leaderElection: { namespace: 'default', identity: 'me', leaseDuration: 2000, renewDeadline: 1000, retryPeriod: 5, random: () => 0 },
        metrics: false, health: false, signals: false, events: false, logger: silentLogger(),
      }).subscribe({ error: reject });
    }));
    subscription!.unsubscribe();
    expect(seen.map((request) => request.method)).to.deep.equal(['GET', 'GET', 'GET', 'GET']);
  });
});
