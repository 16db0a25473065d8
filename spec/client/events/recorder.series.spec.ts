import { expect } from 'chai';
import { GuardedTestScheduler } from '../../../src/testing/simulate/guarded-scheduler.js';
import { virtual } from '../../controller/helpers.js';
import { pod, setup } from './events-server.js';

const MINUTE = 60_000;
const normal = (reason: string, note?: string) => ({
  type: 'Normal' as const,
  reason,
  action: 'Reconcile',
  ...(note === undefined ? {} : { note }),
});

describe('eventRecorder: series and spam filter (marbles)', () => {
  it('returns from event() before any request is made, and writes on the scheduler', () => {
    const probe = { requestsDuringCall: -1 };
    const { server, lines } = virtual(({ scheduler }) => {
      const { server, recorder, lines, at } = setup(scheduler);
      at(5, () => {
        recorder.event(pod(), normal('Started'));
        probe.requestsDuringCall = server.calls.length;
      });
      return { server, lines };
    });
    expect(probe.requestsDuringCall).to.equal(0);
    expect(server.lines).to.deep.equal(['5 POST Started']);
    expect(lines).to.deep.equal(['6 created Started']);
  });

  it("writes what events.k8s.io/v1 requires, in the regarding object's namespace, with MicroTime timestamps", () => {
    const server = virtual(({ scheduler }) => {
      const { server, recorder, at } = setup(scheduler);
      at(1500, () =>
        recorder.event(pod('web', { resourceVersion: '7' }), {
          type: 'Warning',
          reason: 'Failed',
          action: 'Pull',
          note: 'no such image',
        }),
      );
      at(2000, () =>
        recorder.event(
          { apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'n1' },
          { type: 'Normal', reason: 'Labeled', action: 'Label' },
        ),
      );
      return server;
    });
    expect(server.calls[0]!.path).to.equal('/apis/events.k8s.io/v1/namespaces/default/events');
    expect(server.calls[0]!.body).to.deep.equal({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'web.59682f00', namespace: 'default' },
      eventTime: '1970-01-01T00:00:01.500000Z',
      reportingController: 'example.com/test',
      reportingInstance: 'test-0',
      action: 'Pull',
      reason: 'Failed',
      type: 'Warning',
      note: 'no such image',
      regarding: {
        apiVersion: 'v1',
        kind: 'Pod',
        namespace: 'default',
        name: 'web',
        uid: 'uid-web',
        resourceVersion: '7',
      },
    });
    // A cluster-scoped object's events go to `default`, as client-go's.
    expect(server.calls[1]!.body.metadata).to.deep.equal({ name: 'node-1.77359401', namespace: 'default' });
  });

  it('filters the 26th event about one object within the burst and lets one more through after 5 minutes', () => {
    const { server, lines, counts } = virtual(({ scheduler }) => {
      const { server, recorder, lines, at } = setup(scheduler);
      at(0, () => {
        for (let i = 0; i < 26; i++) recorder.event(pod(), normal(`R${i}`));
      });
      at(5 * MINUTE - 1, () => recorder.event(pod(), normal('Early')));
      at(5 * MINUTE, () => recorder.event(pod(), normal('Refilled')));
      at(5 * MINUTE + 1, () => recorder.event(pod(), normal('Again')));
      return { server, lines, counts: () => recorder.counts() };
    });
    expect(lines.filter((line) => line.includes('filtered'))).to.deep.equal([
      '0 filtered R25',
      `${5 * MINUTE - 1} filtered Early`,
      `${5 * MINUTE + 1} filtered Again`,
    ]);
    expect(server.lines.filter((line) => line.startsWith(`${5 * MINUTE} `))).to.deep.equal([
      `${5 * MINUTE} POST Refilled`,
    ]);
    expect(counts()).to.include({ recorded: 26, filtered: 3, created: 26 });
  });

  it('keeps one bucket per object and event type', () => {
    const counts = virtual(({ scheduler }) => {
      const { recorder, at } = setup(scheduler, { spamFilter: { burst: 2 } });
      at(0, () => {
        for (const reason of ['A', 'B', 'C']) {
          recorder.event(pod('web'), normal(reason));
          recorder.event(pod('db'), normal(reason));
          recorder.event(pod('web'), { type: 'Warning', reason, action: 'Reconcile' });
        }
      });
      return () => recorder.counts();
    });
    expect(counts()).to.include({ recorded: 6, filtered: 3 });
  });

  it("counts folded repeats against the burst, as client-go's filter sees every occurrence", () => {
    const { server, counts } = virtual(({ scheduler }) => {
      const { server, recorder, at } = setup(scheduler);
      at(0, () => {
        for (let i = 0; i < 30; i++) recorder.event(pod(), normal('Repeated'));
      });
      return { server, counts: () => recorder.counts() };
    });
    expect(counts()).to.include({ recorded: 25, folded: 24, filtered: 5 });
    // The occurrences came before the creation was sent, so it carries the whole series.
    expect(server.lines).to.deep.equal(['0 POST Repeated #25']);
  });

  it('lets every event through with spamFilter: false', () => {
    const counts = virtual(({ scheduler }) => {
      const { recorder, at } = setup(scheduler, { spamFilter: false });
      at(0, () => {
        for (let i = 0; i < 40; i++) recorder.event(pod(), normal(`R${i}`));
      });
      return () => recorder.counts();
    });
    expect(counts()).to.include({ recorded: 40, filtered: 0, created: 40 });
  });

  it('folds a repeat within 6 minutes into one Event: count 2 at once, the final count when the series ends', () => {
    const { server, lines } = virtual(({ scheduler }) => {
      const { server, recorder, lines, at } = setup(scheduler);
      for (const t of [0, 1, 2, 3]) at(t * MINUTE, () => recorder.event(pod(), normal('Synced')));
      return { server, lines };
    });
    expect(server.lines).to.deep.equal(['0 POST Synced', `${MINUTE} PATCH web.0 #2`, `${9 * MINUTE} PATCH web.0 #4`]);
    expect(lines).to.deep.equal([
      '1 created Synced',
      `${MINUTE + 1} updated Synced #2`,
      `${9 * MINUTE + 1} updated Synced #4`,
    ]);
    const patch = server.calls[1]!;
    expect(patch.body).to.deep.equal({ series: { count: 2, lastObservedTime: '1970-01-01T00:01:00.000000Z' } });
  });

  it('starts a new Event for a repeat 6 minutes or more after the previous occurrence, and folds one just before', () => {
    const server = virtual(({ scheduler }) => {
      const { server, recorder, at } = setup(scheduler);
      at(0, () => recorder.event(pod('late'), normal('Late')));
      at(6 * MINUTE, () => recorder.event(pod('late'), normal('Late')));
      at(0, () => recorder.event(pod('early'), normal('Early')));
      at(6 * MINUTE - 1, () => recorder.event(pod('early'), normal('Early')));
      return server;
    });
    expect(server.lines).to.deep.equal([
      '0 POST Late',
      '0 POST Early',
      `${6 * MINUTE - 1} PATCH early.1 #2`,
      `${6 * MINUTE} POST Late`,
    ]);
  });

  it('writes the count of a long series at least every 30 minutes while it goes on', () => {
    const server = virtual(({ scheduler }) => {
      const { server, recorder, at } = setup(scheduler);
      for (let i = 0; i < 12; i++) at(i * 4 * MINUTE, () => recorder.event(pod(), normal('Flapping')));
      return server;
    });
    expect(server.lines).to.deep.equal([
      '0 POST Flapping',
      `${4 * MINUTE} PATCH web.0 #2`,
      `${34 * MINUTE} PATCH web.0 #9`,
      `${50 * MINUTE} PATCH web.0 #12`,
    ]);
  });

  it("folds events that differ only in their note, keeping the first note, as client-go's getKey ignores it", () => {
    const server = virtual(({ scheduler }) => {
      const { server, recorder, at } = setup(scheduler);
      at(0, () => recorder.event(pod(), normal('Failed', 'first')));
      at(10, () => recorder.event(pod(), normal('Failed', 'second')));
      return server;
    });
    expect(server.lines).to.deep.equal(['0 POST Failed', '10 PATCH web.0 #2']);
    expect([...server.objects.values()][0]!.note).to.equal('first');
  });

  it('keeps events apart that differ in type, reason, action, regarding (resourceVersion included) or related', () => {
    const server = virtual(({ scheduler }) => {
      const { server, recorder, at } = setup(scheduler);
      const base = { type: 'Normal' as const, reason: 'Synced', action: 'Reconcile' };
      const variants = [
        () => recorder.event(pod(), base),
        () => recorder.event(pod(), { ...base, type: 'Warning' }),
        () => recorder.event(pod(), { ...base, reason: 'Other' }),
        () => recorder.event(pod(), { ...base, action: 'Other' }),
        () => recorder.event(pod('db'), base),
        () => recorder.event(pod('web', { resourceVersion: '9' }), base),
        () => recorder.event(pod(), { ...base, related: { apiVersion: 'v1', kind: 'Node', name: 'node-1' } }),
      ];
      at(0, () => variants.forEach((record) => record()));
      at(MINUTE, () => variants.forEach((record) => record()));
      return server;
    });
    expect(server.lines.filter((line) => line.includes('POST'))).to.have.length(7);
    expect(server.lines.filter((line) => line.includes('PATCH') && line.endsWith('#2'))).to.have.length(7);
  });

  it('rejects invalid input on reports$ and never throws at the caller', () => {
    const { server, lines } = virtual(({ scheduler }) => {
      const { server, recorder, lines, at } = setup(scheduler);
      at(0, () => {
        recorder.event({ metadata: { name: 'listed', namespace: 'default' } }, normal('NoKind'));
        recorder.event(pod(), { type: 'Info' as never, reason: 'Bad', action: 'Reconcile' });
        recorder.event(pod(), { type: 'Normal', reason: '', action: 'Reconcile' });
        recorder.event(pod(), { type: 'Normal', reason: 'R', action: 'x'.repeat(129) });
        recorder.event(null as never, normal('NoSubject'));
        recorder.event(pod(), undefined as never);
      });
      return { server, lines };
    });
    expect(server.calls).to.have.length(0);
    expect(lines).to.have.length(6);
    expect(lines[0]).to.match(/^0 rejected regarding\.kind: is required: the items of a list call carry no kind/);
    expect(lines[1]).to.equal('0 rejected type: must be "Normal" or "Warning", got "Info"');
    expect(lines[2]).to.equal('0 rejected reason: is required (a non-empty string)');
    expect(lines[3]).to.equal('0 rejected action: can have at most 128 characters, got 129');
    expect(lines[4]).to.equal('0 rejected regarding: must be an object or an object reference');
    expect(lines[5]).to.match(/^0 rejected details: must be an object/);
  });
});

describe('eventRecorder: series timers at fractional times', () => {
  it("ends a series at the end of its window even when the window's end is one rounding step past the timer", () => {
    // At this time, `t + ((t + 6 min) - t)` lands one rounding step short of `t + 6 min`.
    const t = 1917962.0546838094;
    // Fails instead of spinning when one instant runs too many actions.
    const scheduler = new GuardedTestScheduler();
    scheduler.maxFrames = t + 30 * MINUTE;
    const { server, recorder, at } = setup(scheduler);
    at(t, () => recorder.event(pod(), normal('Started')));
    at(t + 1000, () => recorder.event(pod(), normal('Started')));
    expect(() => scheduler.flush()).not.to.throw();
    // The repeat's count was written when the series ended, 6 min after it.
    expect(server.calls.map((call) => call.method)).to.deep.equal(['POST', 'PATCH']);
  });
});
