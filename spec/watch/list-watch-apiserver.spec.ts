import { expect } from 'chai';
import { CoreV1Api } from '@kubernetes/client-node';
import type { Subscription } from 'rxjs';
import { startTestCluster } from '../../src/testing/apiserver/index.js';
import type { TestCluster } from '../../src/testing/apiserver/index.js';
import { listWatch } from '../../src/watch/index.js';
import type { ListWatchOptions, WatchEvent } from '../../src/watch/index.js';
import { waitFor } from '../support/wait.js';

describe('listWatch against the in-memory API server (TLS + token)', () => {
  let cluster: TestCluster;
  let sub: Subscription | undefined;
  let events: WatchEvent[];

  beforeEach(async () => {
    cluster = await startTestCluster({ tls: true, token: 'spec-token' });
    events = [];
  });
  afterEach(async () => {
    sub?.unsubscribe();
    sub = undefined;
    await cluster.stop();
  });

  const createPod = async (name: string): Promise<void> => {
    const api = cluster.kubeConfig.makeApiClient(CoreV1Api);
    await api.createNamespacedPod({
      namespace: 'default',
      body: { metadata: { name }, spec: { containers: [{ name: 'c', image: 'x' }] } },
    });
  };
  const start = (options: ListWatchOptions = {}): void => {
    sub = listWatch(
      cluster.kubeConfig,
      { apiVersion: 'v1', kind: 'Pod' },
      { random: () => 0.01, onHealth: () => {}, ...options },
    ).subscribe({
      next: (e) => events.push(e),
    });
  };
  const names = (type: WatchEvent['type']): string[] =>
    events.flatMap((e) => (e.type === type && 'object' in e ? [e.object.metadata?.name ?? '?'] : []));
  const count = (type: WatchEvent['type']): number => events.filter((e) => e.type === type).length;
  const reasons = (): string[] =>
    events.flatMap((e) => (e.type === 'status' && e.status.state === 'error' ? [e.status.cause.reason] : []));
  const problems = (): string[] => events.flatMap((e) => (e.type === 'problem' ? [e.problem.reason] : []));

  for (const streamingList of [false, true]) {
    it(`lists existing pods${streamingList ? ' by streaming list' : ' in pages'} and then follows changes`, async () => {
      for (let i = 0; i < 7; i += 1) await createPod(`pre-${i}`);
      start({ pageSize: 3, streamingList });
      await waitFor(() => count('relistDone') === 1, 'the initial relist');
      expect(names('listed')).to.have.members(['pre-0', 'pre-1', 'pre-2', 'pre-3', 'pre-4', 'pre-5', 'pre-6']);
      const pages = events.flatMap((e) => (e.type === 'status' && e.status.state === 'listing' ? [e.status.page] : []));
      expect(pages).to.deep.equal(streamingList ? [1] : [1, 2, 3]);
      expect(reasons()).to.deep.equal([]);
      await createPod('live');
      await waitFor(() => names('added').includes('live'), 'the live pod');
    });
  }

  it('resumes after clean and abrupt watch drops and a malformed line without relisting or losing events', async () => {
    start();
    await waitFor(() => count('relistDone') === 1, 'the initial relist');
    for (const [fault, pod] of [
      [() => cluster.faults.dropWatches({ mode: 'clean' }), 'after-clean'],
      [() => cluster.faults.dropWatches({ mode: 'abrupt' }), 'after-abrupt'],
      [() => cluster.faults.injectMalformedLine(), 'after-malformed'],
    ] as const) {
      // The fault only hits watches open on the server, so retry it until the (re)connected watch is there.
      await waitFor(() => fault() === 1, 'an open watch to inject the fault into');
      await createPod(pod);
      await waitFor(() => names('added').includes(pod), `${pod} to arrive`);
    }
    expect(count('relistStarted')).to.equal(1);
    expect(reasons()).to.include('ConnectionClosed');
    expect(problems()).to.deep.equal(['MalformedLine']);
    expect(names('added')).to.deep.equal(['after-clean', 'after-abrupt', 'after-malformed']);
  });
});
