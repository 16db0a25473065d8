/**
 * The Pod informer against the in-memory API server over HTTPS with a bearer token, through every fault the
 * server can inject: after each one the informer converges to a fresh server list, and its event sequence has no
 * duplicate and no gap (checked by folding it into a model, see `foldEvents`).
 */
import type { V1Pod } from '@kubernetes/client-node';
import { expect } from 'chai';
import type { SchedulerLike } from 'rxjs';
import { informer, type Informer } from '../../../src/informer/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import type { WatchStatus } from '../../../src/watch/index.js';
import { expectConverged, fastClock, podLister, record, waitFor, type Recording } from './support.js';
import { podWriter, type PodWriter } from './writes.js';

const PODS = { apiVersion: 'v1', kind: 'Pod' } as const;
/** Matches watch requests only (the transport adds `watch=true`), never lists. */
const WATCHES = /[?&]watch=true/;
/** Matches pod list requests only. */
const POD_LISTS = /^\/api\/v1\/pods(?!.*[?&]watch=true)/;

describe('informer integration: faults (HTTPS + token)', () => {
  let cluster: TestCluster;
  let pods: PodWriter;
  let listPods: () => Promise<V1Pod[]>;
  let running: Recording<V1Pod> | undefined;
  let ns = 0;

  before(async () => {
    cluster = await startTestCluster({
      tls: true,
      token: 'informer-spec-token',
      bookmarkIntervalMs: 200,
      namespaces: Array.from({ length: 12 }, (_, i) => `case-${i}`),
    });
    listPods = podLister(cluster);
  });
  beforeEach(() => {
    // Each case writes in its own namespace so names never collide; the informer still watches all of them.
    pods = podWriter(cluster, `case-${ns++}`);
  });
  afterEach(() => {
    running?.subscription.unsubscribe();
    running = undefined;
    cluster.faults.clear();
  });
  after(() => cluster.stop());

  const start = async (
    options: { scheduler?: SchedulerLike; random?: () => number } = {},
  ): Promise<[Informer<V1Pod>, Recording<V1Pod>]> => {
    const podInformer = informer<V1Pod>(cluster.kubeConfig, PODS, { random: () => 0.01, ...options });
    running = record(podInformer);
    await waitFor(() => podInformer.current().synced, 'the initial sync');
    return [podInformer, running];
  };
  /** Retries a fault until it reached an open watch (the informer may still be opening its watch). */
  const hitWatch = (fault: () => number): Promise<void> => waitFor(() => fault() === 1, 'an open watch to hit');
  const keyOf = (name: string): string => `case-${ns - 1}/${name}`;
  const backoffs = (recording: Recording<V1Pod>): Extract<WatchStatus, { state: 'backingOff' }>[] =>
    recording.statuses.flatMap((s) => (s.state === 'backingOff' ? [s] : []));
  /**
   * Holds the informer off the server (every watch request gets a 503) while `writes` run, so that the writes
   * certainly fall into the gap, then lets it reconnect.
   */
  const whileDisconnected = async (
    recording: Recording<V1Pod>,
    cut: () => number,
    writes: () => Promise<void>,
  ): Promise<void> => {
    // Armed in the same tick as the cut, so no reconnect can slip in before it (and the open watch is not refused).
    await waitFor(() => {
      const hit = cut() === 1;
      if (hit) cluster.faults.failNext({ status: 503, path: WATCHES, count: 1_000_000 });
      return hit;
    }, 'an open watch to cut');
    await waitFor(() => backoffs(recording).some((s) => s.cause.code === 503), 'a refused reconnect');
    await writes();
    cluster.faults.clear();
  };

  for (const mode of ['clean', 'abrupt'] as const) {
    it(`resumes after ${mode === 'clean' ? 'a clean' : 'an abrupt'} watch drop without relisting and sees every write made while disconnected exactly once`, async () => {
      for (const name of ['a', 'b', 'c']) await pods.create(name);
      const [podInformer, recording] = await start();
      let updated: V1Pod | undefined;
      await whileDisconnected(
        recording,
        () => cluster.faults.dropWatches({ mode }),
        async () => {
          await pods.create('born-in-gap');
          updated = await pods.relabel('b', { touched: 'yes' });
          await pods.remove('c');
        },
      );
      await expectConverged(podInformer, recording, listPods);
      expect(recording.lists(), 'no relist').to.equal(1);
      expect(recording.of('added', keyOf('born-in-gap'))).to.have.length(1);
      expect(recording.of('updated', keyOf('b')).map((e) => e.object.metadata?.resourceVersion)).to.deep.equal([
        updated!.metadata?.resourceVersion,
      ]);
      expect(recording.of('deleted', keyOf('c')).map((e) => e.type === 'deleted' && e.stateUnknown)).to.deep.equal([
        false,
      ]);
      await pods.create('after');
      await expectConverged(podInformer, recording, listPods);
    });
  }

  it('relists after compaction (410) and emits a stateUnknown tombstone for an object deleted during the gap', async () => {
    for (const name of ['keep', 'change', 'vanish']) await pods.create(name);
    const [podInformer, recording] = await start();
    const lastKnown = podInformer.current().get(keyOf('vanish'))!.metadata?.resourceVersion;
    await whileDisconnected(
      recording,
      () => cluster.faults.dropWatches({ mode: 'abrupt' }),
      async () => {
        await pods.remove('vanish');
        await pods.relabel('change', { v: '2' });
        await pods.create('new');
        cluster.faults.compact();
      },
    );
    await expectConverged(podInformer, recording, listPods);
    expect(
      recording.statuses.some((s) => s.state === 'error' && s.cause.code === 410),
      '410 reported',
    ).to.equal(true);
    expect(recording.lists(), 'one initial list and one relist').to.equal(2);
    const tombstones = recording.of('deleted', keyOf('vanish'));
    expect(tombstones.map((e) => e.type === 'deleted' && e.stateUnknown)).to.deep.equal([true]);
    expect(tombstones[0]!.object.metadata?.resourceVersion, 'the tombstone carries the last known object').to.equal(
      lastKnown,
    );
    expect(recording.of('updated', keyOf('change'))).to.have.length(1);
    expect(recording.of('added', keyOf('new'))).to.have.length(1);
    expect(
      recording.of('updated', keyOf('keep')),
      'an unchanged object is not re-delivered by the relist',
    ).to.have.length(0);
    expect(recording.events.filter((e) => e.type === 'deleted' && e.stateUnknown)).to.have.length(1);
  });

  it('honours Retry-After on 429 for the list and the watch, then converges', async () => {
    await pods.create('first');
    cluster.faults.failNext({ status: 429, retryAfterSeconds: 1, path: POD_LISTS, count: 1 });
    const [podInformer, recording] = await start();
    cluster.faults.failNext({ status: 429, retryAfterSeconds: 1, path: WATCHES, count: 1 });
    await hitWatch(() => cluster.faults.dropWatches({ mode: 'abrupt' }));
    await waitFor(() => backoffs(recording).length >= 2, 'the watch 429');
    await pods.create('second');
    await expectConverged(podInformer, recording, listPods);
    const throttled = backoffs(recording).filter((s) => s.cause.code === 429);
    expect(throttled.map((s) => [s.delayMs, s.cause.retryAfterSeconds])).to.deep.equal([
      [1000, 1],
      [1000, 1],
    ]);
    expect(recording.lists(), 'the throttled list and its retry').to.equal(2);
  });

  it('backs off and retries through 5xx on lists and watches, then converges', async () => {
    await pods.create('one');
    cluster.faults.failNext({ status: 500, path: POD_LISTS, count: 2 });
    const [podInformer, recording] = await start();
    cluster.faults.failNext({ status: 503, path: WATCHES, count: 2 });
    cluster.faults.failNext({ status: 504, path: WATCHES, count: 1 });
    await hitWatch(() => cluster.faults.dropWatches({ mode: 'clean' }));
    await pods.create('two');
    await pods.relabel('one', { after: 'errors' });
    await expectConverged(podInformer, recording, listPods);
    // A clean close right after connecting also backs off (WatchClosedEarly, no HTTP code): only codes are compared.
    expect(backoffs(recording).flatMap((s) => s.cause.code ?? [])).to.deep.equal([500, 500, 503, 503, 504]);
    expect(recording.lists(), 'two failed lists and the good one; the watch failures resume').to.equal(3);
  });

  it('aborts a stalled watch as a dead connection and resumes without losing or repeating events', async () => {
    // The dead-connection budget is timeoutSeconds + 30 s (330 s with random() = 0), or idleTimeout (90 s) if a
    // bookmark came before the stall. A clock 150× faster makes it 2.2 s of wall time at most; bookmarks every 200 ms
    // keep healthy watches from tripping it.
    await pods.create('steady');
    const [podInformer, recording] = await start({ scheduler: fastClock(150), random: () => 0 });
    await pods.create('seen-live');
    await expectConverged(podInformer, recording, listPods);
    expect(recording.errorReasons(), 'a healthy watch with bookmarks is never declared dead').to.deep.equal([]);
    cluster.faults.stallWatches(3000);
    await pods.create('during-stall');
    await pods.relabel('steady', { stalled: 'yes' });
    await pods.remove('seen-live');
    await waitFor(() => recording.errorReasons().includes('DeadConnection'), 'the dead-connection abort', 6000);
    await expectConverged(podInformer, recording, listPods);
    expect(recording.lists(), 'resumed, not relisted').to.equal(1);
    expect(recording.of('added', keyOf('during-stall'))).to.have.length(1);
  });

  for (const kind of ['malformed', 'truncated'] as const) {
    it(`reports a ${kind} watch line, resumes from the last good version and converges`, async () => {
      await pods.create('x');
      const [podInformer, recording] = await start();
      await hitWatch(() => cluster.faults.injectMalformedLine({ kind }));
      await pods.create('after-bad-line');
      await pods.relabel('x', { bad: 'line' });
      await expectConverged(podInformer, recording, listPods);
      expect(recording.problemReasons()).to.deep.equal(['MalformedLine']);
      expect(recording.errorReasons(), 'bad input is not a connection error').to.not.include('MalformedLine');
      expect(recording.lists(), 'no relist').to.equal(1);
    });
  }

  it('survives a server restart (every connection cut) and converges', async () => {
    for (const name of ['r1', 'r2']) await pods.create(name);
    const [podInformer, recording] = await start();
    await pods.create('before-restart');
    await expectConverged(podInformer, recording, listPods);
    cluster.faults.restart();
    await pods.remove('r1');
    await pods.create('after-restart');
    await expectConverged(podInformer, recording, listPods);
    expect(recording.errorReasons()).to.include('ConnectionClosed');
    expect(
      recording.events.some((e) => e.type === 'deleted' && e.stateUnknown),
      'no tombstones without a relist',
    ).to.equal(false);
  });
});
