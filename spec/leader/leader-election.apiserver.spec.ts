import { expect } from 'chai';
import { CoordinationV1Api, type KubernetesObject } from '@kubernetes/client-node';
import { Observable, type Subscription } from 'rxjs';
import { leaderElection, type LeaderElectionOptions, type LeaderEvent } from '../../src/leader/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/apiserver/index.js';
import { kubeTransport, TransportError, type Transport, type TransportRequest } from '../../src/transport/index.js';
import { waitFor } from '../support/wait.js';
import { expectDisjoint, spansOf } from './spans.js';

/** A candidate in real time: what it emitted, its leading spans (ms since epoch) and its events. */
interface Live {
  readonly identity: string;
  readonly values: boolean[];
  spans(): ReadonlyArray<readonly [number, number]>;
  readonly events: LeaderEvent[];
  leading(): boolean;
  stop(): void;
}

describe('leaderElection against the in-memory API server (TLS + token)', () => {
  let cluster: TestCluster;
  const running: Live[] = [];

  beforeEach(async () => {
    cluster = await startTestCluster({ tls: true, token: 'spec-token' });
  });
  afterEach(async () => {
    for (const live of running.splice(0)) live.stop();
    await cluster.stop();
  });

  /** A transport whose requests fail as a refused connection while `cut` is set. */
  const cuttable = (inner: Transport): Transport & { cut: boolean } => {
    const link = {
      cut: false,
      get: inner.get.bind(inner),
      watch: inner.watch.bind(inner),
      request: (request: TransportRequest) =>
        link.cut
          ? new Observable<never>((subscriber) =>
              subscriber.error(new TransportError('NetworkError', 'cut by the spec')),
            )
          : inner.request(request),
    };
    return link;
  };

  const start = (identity: string, options: Partial<LeaderElectionOptions> = {}, transport?: Transport): Live => {
    const values: boolean[] = [];
    const spans: Array<[number, number]> = [];
    const events: LeaderEvent[] = [];
    const close = () => {
      const open = spans[spans.length - 1];
      if (open !== undefined && open[1] === Infinity) open[1] = Date.now();
    };
    const subscription: Subscription = leaderElection(transport ?? cluster.kubeConfig, {
      namespace: 'default',
      name: 'spec-lock',
      identity,
      leaseDuration: 60_000,
      renewDeadline: 1_000,
      retryPeriod: 200,
      onEvent: (event) => events.push(event),
      ...options,
    }).subscribe({
      next: (value) => {
        values.push(value);
        if (value) spans.push([Date.now(), Infinity]);
        else close();
      },
      complete: close,
    });
    let stopped = false;
    const live: Live = {
      identity,
      values,
      events,
      spans: () => spans,
      leading: () => !stopped && values[values.length - 1] === true,
      stop: () => {
        stopped = true;
        close();
        subscription.unsubscribe();
      },
    };
    running.push(live);
    return live;
  };

  const lease = () =>
    cluster.kubeConfig
      .makeApiClient(CoordinationV1Api)
      .readNamespacedLease({ namespace: 'default', name: 'spec-lock' });

  const expectNoOverlap = (lives: readonly Live[]): void => expectDisjoint(spansOf(lives));

  it('three candidates: one leads with a client-go record, and unsubscribing hands over without waiting out the 60 s lease', async () => {
    const lives = ['one', 'two', 'three'].map((id) => start(id));
    await waitFor(() => lives.some((l) => l.leading()), 'a leader');
    const first = lives.find((l) => l.leading())!;
    const read = await lease();
    expect(read.spec?.holderIdentity).to.equal(first.identity);
    expect(read.spec?.leaseDurationSeconds).to.equal(60);
    expect(read.spec?.leaseTransitions).to.equal(0);
    // MicroTime: RFC 3339, UTC, six fractional digits, as metav1.MicroTime marshals it.
    expect(String(read.spec?.renewTime)).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(lives.filter((l) => l.leading())).to.have.length(1);

    first.stop();
    await waitFor(() => first.events.some((e) => e.type === 'released'), 'the release', 10_000);
    await waitFor(() => lives.some((l) => l !== first && l.leading()), 'a successor (released lease)', 20_000);
    const second = lives.find((l) => l.leading())!;
    expect((await lease()).spec).to.include({ holderIdentity: second.identity, leaseTransitions: 1 });
    expect(lives.filter((l) => l.leading())).to.have.length(1);
    expectNoOverlap(lives);
  });

  it('a leader rides out a 500 and a dropped connection without losing the lease', async () => {
    const leader = start('steady', { renewDeadline: 3_000, retryPeriod: 200 });
    await waitFor(() => leader.leading(), 'leadership');
    const before = Date.parse(String((await lease()).spec!.renewTime));
    cluster.faults.failNext({ method: 'PUT', path: '/apis/coordination.k8s.io', status: 500, count: 2 });
    cluster.faults.restart();
    await waitFor(
      () => leader.events.filter((e) => e.type === 'renewed').length >= 5,
      'renewals after the faults',
      10_000,
    );
    expect(leader.values).to.deep.equal([false, true]);
    const failure = leader.events.find((e) => e.type === 'failed');
    expect(failure?.type === 'failed' && failure.phase).to.equal('renew');
    expect(Date.parse(String((await lease()).spec!.renewTime))).to.be.greaterThan(before);
  });

  it('a leader whose Lease is taken by another writer stops leading at its next renewal', async () => {
    const leader = start('victim');
    await waitFor(() => leader.leading(), 'leadership');
    const current = await lease();
    const taken: KubernetesObject & { spec: unknown } = {
      ...current,
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      spec: { ...current.spec, holderIdentity: 'intruder' },
    };
    cluster.update([taken]);
    await waitFor(() => leader.values.length === 3, 'the loss', 10_000);
    expect(leader.values).to.deep.equal([false, true, false]);
    expect(leader.events.find((e) => e.type === 'lost')).to.include({ reason: 'takenOver', holder: 'intruder' });
    expect((await lease()).spec?.holderIdentity).to.equal('intruder');
  });

  it('a leader cut off from the server stops before a successor may start, and the successor takes over', async () => {
    const link = cuttable(kubeTransport(cluster.kubeConfig));
    const timings = { leaseDuration: 3_000, renewDeadline: 2_000, retryPeriod: 300 };
    const cutOff = start('cut-off', timings, link);
    await waitFor(() => cutOff.leading(), 'leadership');
    const successor = start('successor', timings);
    await waitFor(() => successor.events.some((e) => e.type === 'leader'), 'the successor to see the holder');
    link.cut = true;
    await waitFor(() => successor.leading(), 'the takeover', 20_000);
    expect(cutOff.values).to.deep.equal([false, true, false]);
    expect(cutOff.events.find((e) => e.type === 'lost')).to.include({ reason: 'renewDeadline' });
    expectNoOverlap([cutOff, successor]);
  });
});
