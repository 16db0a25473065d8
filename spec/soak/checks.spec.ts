import { expect } from 'chai';
import fc from 'fast-check';
import {
  addTallies,
  cacheDrift,
  heapAfterCollections,
  heapTroughs,
  heapTrend,
  lostUpdates,
  overlappingRuns,
  unconverged,
  type CounterTally,
} from '../../soak/checks.js';
import { restartApiServer, soakControlPlaneOptions } from '../../soak/soak.js';

describe('soak: the checkpoint checks', () => {
  it('finds no drift when the cache holds exactly the server objects at their versions', () => {
    const objects = [
      { key: 'ns/a', resourceVersion: '5' },
      { key: 'ns/b', resourceVersion: '7' },
    ];
    expect(cacheDrift(objects, [...objects].reverse())).to.deep.equal([]);
  });

  it('names every key whose version differs, that the cache misses, or that the server no longer has', () => {
    expect(
      cacheDrift(
        [
          { key: 'ns/a', resourceVersion: '5' },
          { key: 'ns/gone', resourceVersion: '2' },
        ],
        [
          { key: 'ns/a', resourceVersion: '6' },
          { key: 'ns/new', resourceVersion: '9' },
        ],
      ),
    ).to.deep.equal(['ns/a', 'ns/gone', 'ns/new']);
  });

  it('calls a PodSet converged only when its owned Pods and its status both equal spec.replicas', () => {
    expect(
      unconverged([
        { name: 'ok', desired: 2, statusReplicas: 2, ownedPods: 2 },
        { name: 'short', desired: 2, statusReplicas: 2, ownedPods: 1 },
        { name: 'stale-status', desired: 0, statusReplicas: 1, ownedPods: 0 },
        { name: 'no-status', desired: 1, statusReplicas: undefined, ownedPods: 1 },
      ]),
    ).to.deep.equal([
      'no-status (want 1, pods 1, status undefined)',
      'short (want 2, pods 1, status 2)',
      'stale-status (want 0, pods 0, status 1)',
    ]);
  });

  it('accepts a counter between the successful increments and those plus the unknown ones, and names any other', () => {
    const tallies = new Map<string, CounterTally>();
    addTallies(tallies, { c: { succeeded: 3, unknown: 1 }, d: { succeeded: 2, unknown: 0 } });
    addTallies(tallies, { c: { succeeded: 2, unknown: 1 } });
    expect(tallies.get('c')).to.deep.equal({ succeeded: 5, unknown: 2 });
    expect(
      lostUpdates(
        new Map([
          ['c', 6],
          ['d', 2],
        ]),
        tallies,
      ),
    ).to.deep.equal([]);
    expect(
      lostUpdates(
        new Map([
          ['c', 4],
          ['d', 3],
        ]),
        tallies,
      ),
    ).to.deep.equal([
      'c: counter 4, 5 increments succeeded, 2 unknown',
      'd: counter 3, 2 increments succeeded, 0 unknown',
    ]);
  });

  it('finds two replicas running one key at once, and not one replica running it twice in a row', () => {
    expect(
      overlappingRuns([
        { replica: 'r1', key: 'ns/a', start: 0, end: 10 },
        { replica: 'r1', key: 'ns/a', start: 10, end: 20 },
        { replica: 'r2', key: 'ns/a', start: 20, end: 30 },
        { replica: 'r2', key: 'ns/b', start: 0, end: 10 },
        { replica: 'r1', key: 'ns/b', start: 5, end: 6 },
      ]),
    ).to.deep.equal(['ns/b: r2 [0, 10] and r1 [5, 6]']);
  });

  it('finds an overlap whenever two spans of different replicas on one key intersect (property)', () => {
    const span = fc.record({
      replica: fc.constantFrom('r1', 'r2'),
      start: fc.integer({ min: 0, max: 100 }),
      length: fc.integer({ min: 1, max: 20 }),
    });
    fc.assert(
      fc.property(fc.array(span, { maxLength: 8 }), (drawn) => {
        const spans = drawn.map((s) => ({ replica: s.replica, key: 'k', start: s.start, end: s.start + s.length }));
        const intersecting = spans.some((a) =>
          spans.some((b) => a.replica !== b.replica && a.start < b.end && b.start < a.end),
        );
        return overlappingRuns(spans).length > 0 === intersecting;
      }),
    );
  });

  it('fits the heap slope by least squares: flat for noise around a level, not flat for a steady climb', () => {
    const noise = [0, 3, -2, 1, -3, 2, 0, -1, 2, -2];
    const level = heapTrend(noise.map((n, i) => ({ at: i * 60_000, bytes: 100e6 + n * 1e6 })));
    expect(level.flat).to.equal(true);
    expect(level.minutes).to.equal(9);
    const climb = heapTrend(noise.map((n, i) => ({ at: i * 60_000, bytes: 100e6 + i * 5e6 + n * 1e5 })));
    expect(climb.flat).to.equal(false);
    expect(climb.slopePerMinute).to.be.closeTo(5e6, 1e5);
    expect(() => heapTrend([{ at: 0, bytes: 1 }])).to.throw(RangeError, /at least 3 samples/);
  });

  it('fits a takeover as a step, not a slope: flat for a level that rises once when the replica leads, and still sees a leak across it', () => {
    // Five minutes a follower at 70 MB, then ten the leader at 85 MB (the run SOAK.md records), with noise.
    const noise = [0, 3, -2, 1, -3, 2, 0, -1, 2, -2, 1, -1, 3, -3, 0, 2];
    const reading = (i: number, climb: number) => ({
      at: i * 60_000,
      bytes: (i < 5 ? 70e6 : 85e6) + i * climb + noise[i]! * 3e5,
      leading: i >= 5,
    });
    const takeover = heapTrend(noise.map((_, i) => reading(i, 0)));
    expect(takeover.flat).to.equal(true);
    expect(takeover.leadingSamples).to.equal(11);
    expect(takeover.leaderStep).to.be.closeTo(15e6, 1e6);
    expect(Math.abs(takeover.slopePerMinute)).to.be.lessThan(2 * takeover.standardError + 1e5);
    // The plain line through the same readings climbs 1.3 MB a minute, 20 MB over 75 MB: what the fit used to say.
    const roleUnknown = heapTrend(noise.map((_, i) => ({ at: i * 60_000, bytes: reading(i, 0).bytes })));
    expect(roleUnknown).to.include({ flat: false, leaderStep: 0 });
    // A leak of 2 MB a minute through both roles is still a slope.
    const leak = heapTrend(noise.map((_, i) => reading(i, 2e6)));
    expect(leak.flat).to.equal(false);
    expect(leak.slopePerMinute).to.be.closeTo(2e6, 2e5);
    expect(leak.leaderStep).to.be.closeTo(15e6, 2e6);
  });

  it('fits the plain line when every reading has one role, or too few readings to tell a step from the slope', () => {
    const follower = heapTrend([0, 1, 2, 3].map((i) => ({ at: i * 60_000, bytes: 50e6 + i * 1e6, leading: false })));
    expect(follower).to.include({ leaderStep: 0, leadingSamples: 0 });
    expect(follower.slopePerMinute).to.be.closeTo(1e6, 1);
    const three = heapTrend([0, 1, 2].map((i) => ({ at: i * 60_000, bytes: 50e6 + i * 1e6, leading: i === 2 })));
    expect(three.leaderStep).to.equal(0);
    expect(three.slopePerMinute).to.be.closeTo(1e6, 1);
  });

  it('reads a sawtooth heap by its troughs, and calls a falling heap flat', () => {
    // Climbs 10 MB a reading, collected back to 50 MB every fourth: a steady heap, however steep each tooth is.
    const saw = Array.from({ length: 24 }, (_, i) => ({ at: i * 5_000, bytes: 50e6 + (i % 4) * 10e6 }));
    const troughs = heapTroughs(saw, 20_000);
    expect(troughs.map((t) => t.bytes)).to.deep.equal(Array(6).fill(50e6));
    expect(heapTrend(troughs)).to.include({ slopePerMinute: 0, flat: true });
    const falling = heapTrend([0, 1, 2, 3].map((i) => ({ at: i * 60_000, bytes: 100e6 - i * 10e6 })));
    expect(falling.flat).to.equal(true);
  });

  it('reads the heap after each full collection, where 20 s windows without one stand above the live heap', () => {
    // A steady 80 MB live heap; 3 MB allocated a reading (every 2 s); a full collection every 30 readings (60 s).
    // The readings before the first collection hold the start's garbage: 150 MB more.
    const readings = Array.from({ length: 300 }, (_, i) => ({
      at: i * 2_000,
      bytes: 80e6 + (i % 30) * 3e6 + (i < 30 ? 150e6 : 0),
      fullCollections: 4 + Math.floor(i / 30),
    }));
    const lowest = heapAfterCollections(readings)!;
    // Eight complete cycles of ten: the one before the first collection seen and the one still open are left out.
    expect(lowest.map((sample) => sample.bytes)).to.deep.equal(Array(8).fill(80e6));
    expect(lowest.map((sample) => sample.at)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8].map((k) => k * 60_000));
    expect(heapTrend(lowest)).to.include({ slopePerMinute: 0, flat: true });
    // The same readings by 20 s windows: two windows in three see no collection, and the start's garbage tilts
    // the line down.
    const windows = heapTroughs(readings, 20_000);
    expect(windows.filter((sample) => sample.bytes > 80e6)).to.have.length(21);
    expect(heapTrend(windows).slopePerMinute).to.be.below(-1e6);
  });

  it('leaves the heap to the window troughs when readings do not count collections, or saw fewer than three', () => {
    const uncounted = Array.from({ length: 10 }, (_, i) => ({ at: i * 2_000, bytes: 80e6 }));
    expect(heapAfterCollections(uncounted)).to.equal(undefined);
    const mixed = uncounted.map((sample, i) => (i === 5 ? sample : { ...sample, fullCollections: i }));
    expect(heapAfterCollections(mixed)).to.equal(undefined);
    const twoCycles = uncounted.map((sample, i) => ({ ...sample, fullCollections: Math.floor(i / 3) }));
    expect(heapAfterCollections(twoCycles)).to.equal(undefined);
    expect(heapAfterCollections(twoCycles, 2)).to.have.length(2);
    expect(heapAfterCollections([])).to.equal(undefined);
  });
});

describe('the soak restarting kube-apiserver', () => {
  it('tries a restart that missed its readiness bound again, and gives up with one clear line after the third', async () => {
    const lines: string[] = [];
    let calls = 0;
    const flaky = {
      restartApiServer: async () => {
        calls += 1;
        if (calls < 3) throw new Error('kube-apiserver not ready after 240000 ms (last probe: HTTP 500)\nlog tail …');
      },
    };
    await restartApiServer(flaky, (line) => lines.push(line));
    expect(calls).to.equal(3);
    expect(lines).to.deep.equal([
      'kube-apiserver restart 1 failed, trying again: Error: kube-apiserver not ready after 240000 ms (last probe: HTTP 500)',
      'kube-apiserver restart 2 failed, trying again: Error: kube-apiserver not ready after 240000 ms (last probe: HTTP 500)',
    ]);
    const dead = { restartApiServer: async () => Promise.reject(new Error('not ready after 240000 ms\ntail')) };
    let failure: unknown;
    await restartApiServer(dead, () => undefined).catch((error: unknown) => (failure = error));
    expect(String(failure)).to.equal(
      'Error: kube-apiserver did not come back after 3 restarts: Error: not ready after 240000 ms',
    );
  });

  it('gives kube-apiserver minutes to be ready, not the launcher default of 60 s', () => {
    // With 100,000 objects in etcd on a loaded machine its post-start hooks took over 60 s, and every restart
    // killed the one before just short of ready.
    expect(soakControlPlaneOptions({ minRequestTimeoutS: 60 }).startTimeoutMs).to.be.at.least(180_000);
  });
});
