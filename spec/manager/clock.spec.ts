import { expect } from 'chai';
import { defer, NEVER, of, throwError, type Observable, type Subscription } from 'rxjs';
import type { RecordedEvent } from '../../src/client/index.js';
import type { ControllerContext } from '../../src/controller/context/index.js';
import type { LeaseObject } from '../../src/leader/index.js';
import { manager, silentLogger } from '../../src/manager/index.js';
import type { Transport, TransportRequest, TransportResponse } from '../../src/transport/index.js';
import { scriptedLeases, withSteppedWallClock, type SeenRequest } from '../leader/wall-clock.js';
import { pod } from '../store/fixtures.js';

const FIVE_HOURS = 5 * 3_600_000;

/** One Event write: its method, its body, and `Date.now()` (stepped) when it was sent. */
interface EventWrite {
  readonly method: string;
  readonly body: RecordedEvent;
  readonly sentAt: number;
}

/**
 * Runs a manager with its default scheduler and one controller that calls `record(context)` on start, answering
 * Event writes with what was sent; resolves with the writes once `enough` accepts them.
 */
async function eventWrites(
  record: (context: ControllerContext, step: (byMs: number) => void) => void,
  enough: (writes: readonly EventWrite[]) => boolean,
): Promise<readonly EventWrite[]> {
  let subscription: Subscription | undefined;
  try {
    return await withSteppedWallClock(
      (step) =>
        new Promise<readonly EventWrite[]>((resolve, reject) => {
          const writes: EventWrite[] = [];
          const refuse = (): Observable<never> => throwError(() => new Error('unexpected call'));
          const transport: Transport = {
            get: refuse,
            watch: refuse,
            request: (request: TransportRequest) =>
              defer(() => {
                if (!request.path.startsWith('/apis/events.k8s.io/')) return refuse();
                writes.push({
                  method: request.method,
                  body: structuredClone(request.body) as RecordedEvent,
                  sentAt: Date.now(),
                });
                if (enough(writes)) resolve([...writes]);
                return of<TransportResponse>({
                  status: 201,
                  body: {
                    ...(request.body as object),
                    metadata: { name: 'e', namespace: 'default', resourceVersion: '1' },
                  },
                  headers: {},
                });
              }),
          };
          subscription = manager({
            connection: transport,
            name: 'clock',
            metrics: false,
            health: false,
            signals: false,
            logger: silentLogger(),
            controllers: [
              {
                name: 'stamper',
                start: (context) =>
                  defer(() => {
                    record(context, step);
                    return NEVER;
                  }),
              },
            ],
          }).subscribe({ error: reject });
        }),
    );
  } finally {
    subscription?.unsubscribe();
  }
}

/** How far a MicroTime is from `Date.now()` (stepped) at the moment it was sent, ms. */
function offWallClock(microTime: string | undefined, sentAt: number): number {
  return Math.abs(Date.parse(microTime!) - sentAt);
}

describe('manager with its default scheduler (a monotonic clock, real timers)', () => {
  it('a wall-clock step forward does not let its leader election take a Lease another replica holds', async () => {
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
        new Promise<readonly SeenRequest[]>((resolve, reject) => {
          const transport = scriptedLeases(
            (request) => (request.method === 'GET' ? structuredClone(held) : new Error(`unexpected ${request.method}`)),
            (requests) => {
              if (requests.length === 2) step(7_200_000);
              if (requests.length === 4) resolve([...requests]);
            },
          );
          subscription = manager({
            connection: transport,
            name: 'lock',
            controllers: [],
            leaderElection: {
              namespace: 'default',
              identity: 'me',
              leaseDuration: 2000,
              renewDeadline: 1000,
              retryPeriod: 5,
              random: () => 0,
            },
            metrics: false,
            health: false,
            signals: false,
            events: false,
            logger: silentLogger(),
          }).subscribe({ error: reject });
        }),
    );
    subscription!.unsubscribe();
    expect(seen.map((request) => request.method)).to.deep.equal(['GET', 'GET', 'GET', 'GET']);
  });

  it('stamps an Event\u2019s eventTime with the wall clock after a wall-clock step, not with its monotonic reading', async () => {
    const writes = await eventWrites(
      (context, step) => {
        step(FIVE_HOURS);
        context.recorder!.event(pod('web', '1'), { type: 'Normal', reason: 'Stepped', action: 'Stamp' });
      },
      (seen) => seen.length === 1,
    );
    expect(writes[0]!.method).to.equal('POST');
    // A write's stamp and its send are one synchronous step apart; the monotonic reading is five hours off.
    expect(offWallClock(writes[0]!.body.eventTime, writes[0]!.sentAt)).to.be.below(60_000);
  });

  it('stamps a series\u2019 lastObservedTime with the wall clock after a wall-clock step', async () => {
    const writes = await eventWrites(
      (context, step) => {
        const details = { type: 'Normal', reason: 'Repeated', action: 'Stamp' } as const;
        context.recorder!.event(pod('web', '1'), details);
        step(-FIVE_HOURS);
        context.recorder!.event(pod('web', '1'), details);
      },
      (seen) => seen.some((write) => write.body.series !== undefined),
    );
    const update = writes.find((write) => write.body.series !== undefined)!;
    expect(update.body.series!.count).to.equal(2);
    expect(offWallClock(update.body.series!.lastObservedTime, update.sentAt)).to.be.below(60_000);
  });
});
