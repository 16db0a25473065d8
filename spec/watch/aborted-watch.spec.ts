import { expect } from 'chai';
import { concat, NEVER, Observable, of, throwError } from 'rxjs';
import type { KubernetesObject } from '@kubernetes/client-node';
import { TestScheduler } from 'rxjs/testing';
import { ApiError } from '../../src/transport/index.js';
import type { QueryParams, Transport, WatchRequestOptions } from '../../src/transport/index.js';
import { listWatch } from '../../src/watch/index.js';
import type { WatchHealthReport, WatchStatus } from '../../src/watch/index.js';
import { kc, page, PODS, statusLine } from './fake-transport.js';
import { scenario } from './harness.js';

/**
 * A server whose first watch sends a 410 while it is being subscribed and only then says it accepted the watch;
 * every later watch never gets its headers. Lists answer at once.
 */
class LateAcceptance implements Transport {
  private lists = 0;
  private watches = 0;
  readonly onHealth = (): void => {};

  get(): Observable<unknown> {
    return of(page([], String(10 * ++this.lists)));
  }

  watch(_path: string, _query: QueryParams, options?: Omit<WatchRequestOptions, 'signal'>): Observable<string> {
    return new Observable<string>((subscriber) => {
      if (++this.watches > 1) return;
      subscriber.next(statusLine(410, 'Expired'));
      options?.onOpen?.();
    });
  }

  request(): Observable<never> {
    return NEVER;
  }
}

describe('listWatch: a watch it aborted says nothing of the next one', () => {
  it('ignores the acceptance of a watch aborted while it was being subscribed, so it never announces watching while backing off', () => {
    // The first watch's first line (a 410, delivered during the subscribe call) has the reflector abort it, relist and
    // open a second watch, which the server refuses; the fake then reports the first watch as accepted.
    const reports: WatchHealthReport[] = [];
    const o = scenario(
      (fake, { cold }) => {
        fake
          .onGet(of(page([], '10')))
          .onWatch(concat(of(statusLine(410, 'Expired')), NEVER))
          .onGet(of(page([], '20')))
          .onWatch(throwError(() => new ApiError(500, 'InternalError', 'etcd is slow')))
          .onWatch(cold('-'));
      },
      { onHealth: (report) => reports.push(report) },
    );
    expect(o.statuses().map(([t, s]) => `${t} ${s.state}`)).to.deep.equal([
      '0 connecting',
      '0 listing',
      '0 connecting',
      '0 watching',
      '0 error',
      '0 connecting',
      '0 listing',
      '0 connecting',
      '0 error',
      '0 backingOff',
      '400 connecting',
      '400 watching',
    ]);
    expect(reports.map((r) => r.type)).to.deep.equal(['failing', 'recovered']);
  });

  it('does not take the late acceptance of an aborted watch for that of the watch opened after it', () => {
    const statuses: WatchStatus[] = [];
    new TestScheduler(() => {}).run(() => {
      listWatch<KubernetesObject>(kc, PODS, { transport: new LateAcceptance(), random: () => 0.5 })
        .subscribe((event) => event.type === 'status' && statuses.push(event.status))
        .unsubscribe();
    });
    expect(statuses).to.deep.equal([
      { state: 'connecting' },
      { state: 'listing', page: 1 },
      { state: 'connecting' },
      { state: 'watching', resourceVersion: '10' },
      { state: 'error', cause: { reason: 'Expired', message: 'Expired', code: 410 } },
      { state: 'connecting' },
      { state: 'listing', page: 1 },
      { state: 'connecting' },
    ]);
  });
});
