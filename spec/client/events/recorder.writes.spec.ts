import { expect } from 'chai';
import { TimeoutError } from 'rxjs';
import { virtual } from '../../controller/helpers.js';
import { ApiError, TransportError } from '../../../src/transport/index.js';
import type { EventFlushResult, EventReport } from '../../../src/client/events/index.js';
import { apiError, pod, setup } from './events-server.js';

const normal = (reason: string) => ({ type: 'Normal' as const, reason, action: 'Reconcile' });
const flushLine = (time: number, what: string, result: EventFlushResult) =>
  `${time} ${what} ${result.complete ? 'complete' : `incomplete, ${result.pending} pending`}`;

describe('eventRecorder: retries, queue bound, flush and close (marbles)', () => {
  it('retries a 500 after 1 s, then 2 s, and a 429 no sooner than its Retry-After', () => {
    const { lines, server } = virtual(({ scheduler }) => {
      const { server, recorder, lines, at } = setup(scheduler);
      server
        .failNext(apiError(500, 'InternalError'))
        .failNext(apiError(500, 'InternalError'))
        .failNext(apiError(429, 'TooManyRequests', 'slow down', 5));
      at(0, () => recorder.event(pod(), normal('Synced')));
      return { lines, server };
    });
    expect(lines).to.deep.equal([
      '1 retrying Synced +1000',
      '1002 retrying Synced +2000',
      '3003 retrying Synced +5000',
      '8004 created Synced',
    ]);
    expect(server.lines).to.deep.equal(['0 POST Synced', '1001 POST Synced', '3002 POST Synced', '8003 POST Synced']);
  });

  it('jitters a retry by up to 25 % and never shortens it', () => {
    const lines = virtual(({ scheduler }) => {
      const { server, recorder, lines, at } = setup(scheduler, { random: () => 0.999 });
      server.failNext(new TransportError('NetworkError', 'connection reset'));
      at(0, () => recorder.event(pod(), normal('Synced')));
      return lines;
    });
    expect(lines[0]).to.equal('1 retrying Synced +1250');
  });

  it('hands the warnings of its writes to onWarning, those of a refused write included', () => {
    const seen = virtual(({ scheduler }) => {
      const seen: string[] = [];
      const { server, recorder, at } = setup(scheduler, {
        onWarning: (w) => seen.push(`${scheduler.now()} ${w.method} ${w.path} ${w.text}`),
      });
      const refusal = new ApiError(500, 'InternalError', 'try again', undefined, undefined, ['etcd is slow']);
      server.failNext(refusal);
      at(0, () => recorder.event(pod(), normal('Synced')));
      at(2000, () => {
        server.warnings = ['events.k8s.io/v1 Event is fine'];
      });
      at(3000, () => recorder.event(pod(), normal('Synced')));
      return seen;
    });
    expect(seen).to.deep.equal([
      '1 POST /apis/events.k8s.io/v1/namespaces/default/events etcd is slow',
      '3001 PATCH /apis/events.k8s.io/v1/namespaces/default/events/web.0 events.k8s.io/v1 Event is fine',
    ]);
  });

  it('gives a write up after maxAttempts tries and reports it failed', () => {
    const { lines, counts } = virtual(({ scheduler }) => {
      const { server, recorder, lines, at } = setup(scheduler, { maxAttempts: 3 });
      for (let i = 0; i < 3; i++) server.failNext(apiError(503, 'ServiceUnavailable'));
      at(0, () => recorder.event(pod(), normal('Synced')));
      return { lines, counts: () => recorder.counts() };
    });
    expect(lines).to.deep.equal([
      '1 retrying Synced +1000',
      '1002 retrying Synced +2000',
      '3003 failed Synced after 3',
    ]);
    expect(counts()).to.include({ retried: 2, failed: 1, created: 0, pending: 0 });
  });

  it('fails a 403 at once and starts a new Event at the next occurrence', () => {
    const { lines, server } = virtual(({ scheduler }) => {
      const { server, recorder, lines, at } = setup(scheduler);
      server.failNext(apiError(403, 'Forbidden'));
      at(0, () => recorder.event(pod(), normal('Synced')));
      at(10, () => recorder.event(pod(), normal('Synced')));
      return { lines, server };
    });
    expect(lines).to.deep.equal(['1 failed Synced after 1', '11 created Synced']);
    expect(server.lines).to.deep.equal(['0 POST Synced', '10 POST Synced']);
  });

  it('abandons a request that does not answer within requestTimeoutMs and retries it', () => {
    const { reports, server } = virtual(({ scheduler }) => {
      const { server, recorder, at } = setup(scheduler, { requestTimeoutMs: 500 });
      const reports: EventReport[] = [];
      recorder.reports$.subscribe((report) => reports.push(report));
      server.hangNext();
      at(0, () => recorder.event(pod(), normal('Synced')));
      return { reports, server };
    });
    expect(reports.map((r) => `${r.time} ${r.type}`)).to.deep.equal(['500 retrying', '1501 created']);
    expect((reports[0] as { error: unknown }).error).to.be.instanceOf(TimeoutError);
    expect(server.lines).to.deep.equal(['0 POST Synced', '1500 POST Synced']);
  });

  it('recreates the Event with its series under the same name when the series update gets 404', () => {
    const { lines, server } = virtual(({ scheduler }) => {
      const { server, recorder, lines, at } = setup(scheduler);
      at(0, () => recorder.event(pod(), normal('Synced')));
      at(100, () => server.objects.clear());
      at(1000, () => recorder.event(pod(), normal('Synced')));
      return { lines, server };
    });
    expect(server.lines).to.deep.equal(['0 POST Synced', '1000 PATCH web.0 #2', '1001 POST Synced #2']);
    expect(lines).to.deep.equal(['1 created Synced', '1002 created Synced #2']);
    expect([...server.objects.keys()]).to.deep.equal(['/apis/events.k8s.io/v1/namespaces/default/events/web.0']);
  });

  it('retries a series update that gets 409 Conflict', () => {
    const server = virtual(({ scheduler }) => {
      const { server, recorder, at } = setup(scheduler);
      server.failNext(apiError(409, 'Conflict'), 'PATCH');
      at(0, () => recorder.event(pod(), normal('Synced')));
      at(10, () => recorder.event(pod(), normal('Synced')));
      return server;
    });
    expect(server.lines).to.deep.equal(['0 POST Synced', '10 PATCH web.0 #2', '1011 PATCH web.0 #2']);
  });

  it('takes an Event it finds under its name for its own creation when it is its own, as after a lost answer', () => {
    const { lines, server } = virtual(({ scheduler }) => {
      const { server, recorder, lines, at } = setup(scheduler);
      // The first creation lands; only its answer is lost.
      server.failNext(new TransportError('ConnectionClosed', 'response closed before its end'));
      at(0, () => recorder.event(pod(), normal('Synced')));
      return { lines, server };
    });
    expect(server.lines).to.deep.equal(['0 POST Synced', '1001 POST Synced', '1002 GET web.0']);
    expect(lines).to.deep.equal(['1 retrying Synced +1000', '1003 created Synced']);
    expect(server.objects.size).to.equal(1);
  });

  it("renames its Event once when the name is taken by someone else's", () => {
    const { reports, server } = virtual(({ scheduler }) => {
      const { server, recorder, at } = setup(scheduler);
      const reports: EventReport[] = [];
      recorder.reports$.subscribe((report) => reports.push(report));
      server.objects.set('/apis/events.k8s.io/v1/namespaces/default/events/web.0', {
        reportingInstance: 'other',
      } as never);
      at(0, () => recorder.event(pod(), normal('Synced')));
      return { reports, server };
    });
    expect(server.lines).to.deep.equal(['0 POST Synced', '1 GET web.0', '2 POST Synced']);
    expect(reports.map((r) => `${r.time} ${r.type} ${'event' in r ? r.event.metadata.name : ''}`)).to.deep.equal([
      '3 created web.1e8481',
    ]);
  });

  it('drops the newest write when maxPending writes are outstanding, and reports it', () => {
    const { lines, counts } = virtual(({ scheduler }) => {
      const { server, recorder, lines, at } = setup(scheduler, {
        maxPending: 2,
        concurrency: 1,
        requestTimeoutMs: 100,
      });
      server.latencyMs = 50;
      at(0, () => ['A', 'B', 'C'].forEach((reason) => recorder.event(pod(), normal(reason))));
      at(200, () => recorder.event(pod(), normal('C')));
      return { lines, counts: () => recorder.counts() };
    });
    expect(lines).to.deep.equal(['0 dropped C QueueFull', '50 created A', '100 created B', '250 created C']);
    expect(counts()).to.include({ dropped: 1, created: 3, pending: 0 });
  });

  it('never writes one series twice at once: an update asked for during its creation follows it', () => {
    const server = virtual(({ scheduler }) => {
      const { server, recorder, at } = setup(scheduler);
      server.latencyMs = 10;
      at(0, () => recorder.event(pod(), normal('Synced')));
      at(5, () => recorder.event(pod(), normal('Synced')));
      return server;
    });
    expect(server.lines).to.deep.equal(['0 POST Synced', '10 PATCH web.0 #2']);
  });

  it('has at most `concurrency` requests in flight', () => {
    const server = virtual(({ scheduler }) => {
      const { server, recorder, at } = setup(scheduler, { concurrency: 2 });
      server.latencyMs = 10;
      at(0, () => ['A', 'B', 'C', 'D', 'E'].forEach((reason) => recorder.event(pod(), normal(reason))));
      return server;
    });
    expect(server.lines).to.deep.equal(['0 POST A', '0 POST B', '10 POST C', '10 POST D', '20 POST E']);
  });

  it('flush writes the count the server lacks and completes once it is written', () => {
    const { lines, server } = virtual(({ scheduler }) => {
      const { server, recorder, lines, at } = setup(scheduler);
      for (const t of [0, 1000, 2000]) at(t, () => recorder.event(pod(), normal('Synced')));
      at(5000, () => recorder.flush().subscribe((result) => lines.push(flushLine(scheduler.now(), 'flush', result))));
      return { lines, server };
    });
    expect(server.lines).to.deep.equal(['0 POST Synced', '1000 PATCH web.0 #2', '5000 PATCH web.0 #3']);
    expect(lines).to.deep.equal([
      '1 created Synced',
      '1001 updated Synced #2',
      '5001 updated Synced #3',
      '5001 flush complete',
    ]);
  });

  it('flush completes at once when nothing is pending', () => {
    const lines = virtual(({ scheduler }) => {
      const { recorder, lines, at } = setup(scheduler);
      at(0, () => recorder.event(pod(), normal('Synced')));
      at(10, () => recorder.flush().subscribe((result) => lines.push(flushLine(scheduler.now(), 'flush', result))));
      return lines;
    });
    expect(lines).to.deep.equal(['1 created Synced', '10 flush complete']);
  });

  it('flush stops waiting at its time limit and says how much is still pending', () => {
    const lines = virtual(({ scheduler }) => {
      const { server, recorder, lines, at } = setup(scheduler, { requestTimeoutMs: 10_000 });
      server.hangNext();
      at(0, () => recorder.event(pod(), normal('Synced')));
      at(1, () =>
        recorder
          .flush({ timeoutMs: 100 })
          .subscribe((result) => lines.push(flushLine(scheduler.now(), 'flush', result))),
      );
      return lines;
    });
    expect(lines).to.deep.equal([
      '101 flush incomplete, 1 pending',
      '10000 retrying Synced +1000',
      '11001 created Synced',
    ]);
  });

  it('close writes what is pending, drops what does not finish in time, completes reports$ and cancels every timer', () => {
    const { lines, server, counts } = virtual(({ scheduler }) => {
      const { server, recorder, lines, at } = setup(scheduler, { drainTimeoutMs: 300 });
      at(0, () => ['A', 'B'].forEach((reason) => recorder.event(pod(), normal(reason))));
      at(1000, () => ['A', 'B'].forEach((reason) => recorder.event(pod(), normal(reason))));
      at(2000, () => {
        ['A', 'B'].forEach((reason) => recorder.event(pod(), normal(reason)));
        server.hangNext('PATCH');
        recorder.close().subscribe((result) => lines.push(flushLine(scheduler.now(), 'close', result)));
        recorder.event(pod(), normal('DuringClose'));
      });
      at(3000, () => recorder.event(pod(), normal('AfterClose')));
      return { lines, server, counts: () => recorder.counts() };
    });
    expect(server.lines).to.deep.equal([
      '0 POST A',
      '0 POST B',
      '1000 PATCH web.0 #2',
      '1000 PATCH web.1 #2',
      '2000 PATCH web.0 #3',
      '2000 PATCH web.1 #3',
    ]);
    expect(lines.slice(4)).to.deep.equal([
      '2000 dropped DuringClose Closed',
      '2001 updated B #3',
      '2300 dropped A #3 Closed',
      '2300 complete',
      '2300 close incomplete, 1 pending',
    ]);
    expect(counts()).to.include({ dropped: 3, pending: 0 });
  });

  it('close emits its result once the last pending write has landed', () => {
    const lines = virtual(({ scheduler }) => {
      const { recorder, lines, at } = setup(scheduler);
      at(0, () => {
        recorder.event(pod(), normal('Synced'));
        recorder.close().subscribe({
          next: (result) => lines.push(flushLine(scheduler.now(), 'close', result)),
          complete: () => lines.push(`${scheduler.now()} close done`),
        });
      });
      return lines;
    });
    expect(lines).to.deep.equal(['1 created Synced', '1 complete', '1 close complete', '1 close done']);
  });

  it('close twice is harmless', () => {
    const lines = virtual(({ scheduler }) => {
      const { recorder, lines, at } = setup(scheduler);
      at(0, () => recorder.close().subscribe((result) => lines.push(flushLine(scheduler.now(), 'close', result))));
      at(5, () => recorder.close().subscribe((result) => lines.push(flushLine(scheduler.now(), 'close', result))));
      return lines;
    });
    expect(lines).to.deep.equal(['0 complete', '0 close complete', '5 close complete']);
  });
});
