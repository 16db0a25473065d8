/**
 * The PodSet controller against the in-memory API server over HTTP: the shared scenarios (also run against
 * kube-apiserver by spec/e2e/replica-set.spec.ts), standalone and under the manager; then what only the in-memory
 * server can show: its garbage collector (`ownerGC`), injected create failures, a spec kube-apiserver's CRD
 * validation would refuse, a CRD installed late; and the command line.
 */
import { expect } from 'chai';
import { firstValueFrom } from 'rxjs';
import { resourceClient } from '../../src/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { probe, scrape, metricValue } from '../shared/scrape.js';
import { waitFor, waitForAsync } from '../shared/wait.js';
import { firstLinesUnreachable, jsonRecords, servedUrls, spawnExample } from '../shared/spec-support.js';
import { installPodSetCrd, PODSET, type PodSet } from './podset.js';
import { replicaSet } from './replica-set.js';
import { podSet, replicaSetScenarios } from './scenarios.js';
import { REPLICA_FAILURE } from './status.js';

describe('the replica-set example (in-memory server)', function () {
  this.timeout(60000);
  let cluster: TestCluster;

  before(async () => {
    cluster = await startTestCluster({ ownerGC: true, bookmarkIntervalMs: 200 });
  });

  after(() => cluster.stop());

  describe('scenarios shared with kube-apiserver', () => {
    const tools = replicaSetScenarios(() => cluster.kubeConfig);

    it('leaves no pods behind when its PodSet is deleted: the garbage collector follows the controller references', async () => {
      tools.start();
      for (const name of ['background', 'foreground']) await firstValueFrom(tools.podSets.create(podSet(name, 3)));
      await tools.settled('background', 3, 0);
      await tools.settled('foreground', 3, 0);
      await firstValueFrom(tools.podSets.delete('background'));
      await firstValueFrom(tools.podSets.delete('foreground', { propagationPolicy: 'Foreground' }));
      await waitForAsync(
        async () => (await tools.podsOf('background')).length === 0 && (await tools.podsOf('foreground')).length === 0,
        'the garbage collector to delete every pod',
        10_000,
      );
      expect((await firstValueFrom(tools.podSets.list())).items).to.deep.equal([]);
    });

    it('reports ReplicaFailure while pod creates fail with 500, retries with backoff, and clears it once they succeed', async () => {
      cluster.faults.failNext({
        method: 'POST',
        path: `/api/v1/namespaces/${tools.namespace}/pods`,
        status: 500,
        count: 3,
      });
      const { lines, events } = tools.start();
      await firstValueFrom(tools.podSets.create(podSet('flaky', 3)));
      const settled = await tools.settled('flaky', 3, 0);
      expect(settled.status?.conditions ?? []).to.deep.equal([]);
      expect(lines.filter((line) => line.startsWith('Failed to create a pod'))).to.deep.equal(
        Array(3).fill(
          `Failed to create a pod for PodSet ${tools.namespace}/flaky: Internal error occurred: injected fault`,
        ),
      );
      expect(lines.filter((line) => line.includes(`${REPLICA_FAILURE} FailedCreate`))).to.have.length.at.least(1);
      // The first failed sync writes the ReplicaFailure condition. That write's watch event only echoes it, so it
      // does not make the key run again at once (own-write filtering; with expectations alone it did, as client-go's
      // workqueue re-adds a key dirtied during processing): the per-key backoff, 5, 10, then 20 ms.
      expect(
        events.filter((event) => event.type === 'retrying').map((event) => (event as { delayMs: number }).delayMs),
      ).to.deep.equal([5, 10, 20]);
    });

    it("creates nothing for a selector that does not match its template, and says why in status (kube-apiserver's CRD refuses such a spec)", async () => {
      const { lines } = tools.start();
      const bad = podSet('mismatch', 2);
      bad.spec!.selector = { matchLabels: { app: 'other' } };
      await firstValueFrom(tools.podSets.create(bad));
      let last: PodSet | undefined;
      await waitForAsync(
        async () => {
          last = await firstValueFrom(tools.podSets.get('mismatch'));
          return last.status?.conditions?.some((c) => c.type === REPLICA_FAILURE) === true;
        },
        () => `the condition; status ${JSON.stringify(last?.status)}`,
        10_000,
      );
      expect(last!.status!.conditions![0]).to.deep.include({
        type: REPLICA_FAILURE,
        status: 'True',
        reason: 'InvalidSpec',
        message: 'spec.selector does not match spec.template.metadata.labels',
      });
      expect(last!.status).to.not.have.property('selector');
      expect(await tools.podsOf('other')).to.deep.equal([]);
      expect(lines).to.include(
        `PodSet ${tools.namespace}/mismatch cannot be synced: spec.selector does not match spec.template.metadata.labels`,
      );
    });
  });

  describe('scenarios shared with kube-apiserver, under the manager', () => {
    const tools = replicaSetScenarios(() => cluster.kubeConfig, 'manager');

    it("records SuccessfulCreate and SuccessfulDelete Events on the PodSet with the manager's recorder, as the Go controller's PodControl does", async () => {
      tools.start();
      const created = await firstValueFrom(tools.podSets.create(podSet('evented', 2)));
      await tools.settled('evented', 2, 0);
      await firstValueFrom(tools.podSets.patch('evented', { type: 'merge', body: { spec: { replicas: 1 } } }));
      await tools.settled('evented', 1, 0);
      const events = resourceClient<any>(
        cluster.kubeConfig,
        { apiVersion: 'events.k8s.io/v1', kind: 'Event' },
        { namespace: tools.namespace },
      );
      let about: any[] = [];
      // The two creations fold into one Event with a series of 2 (events.k8s.io folds repeats; the note is not part of the key).
      await waitForAsync(
        async () => {
          about = (await firstValueFrom(events.list())).items.filter(
            (event: any) => event.regarding?.uid === created.metadata!.uid,
          );
          return (
            about.some((event) => event.reason === 'SuccessfulCreate' && event.series?.count === 2) &&
            about.some((event) => event.reason === 'SuccessfulDelete')
          );
        },
        () => `the Events; got ${JSON.stringify(about.map((event) => [event.reason, event.note, event.series]))}`,
        10_000,
      );
      expect(about.map((event) => `${event.type} ${event.reason} ${event.action}`).sort()).to.deep.equal([
        'Normal SuccessfulCreate Create',
        'Normal SuccessfulDelete Delete',
      ]);
      expect(about[0].regarding).to.deep.include({
        apiVersion: PODSET.apiVersion,
        kind: 'PodSet',
        name: 'evented',
        namespace: tools.namespace,
      });
      expect(about.find((event) => event.reason === 'SuccessfulDelete').note).to.match(/^Deleted pod: evented-\w{5}$/);
    });
  });
});

describe('the replica-set example before its CRD is installed', function () {
  this.timeout(30000);

  it('says the kind is unknown, keeps retrying, and works once the CRD is installed', async () => {
    const cluster = await startTestCluster();
    const lines: string[] = [];
    const subscription = replicaSet(cluster.kubeConfig, { print: (line) => lines.push(line) }).subscribe();
    try {
      await waitFor(
        () => lines.some((line) => line.startsWith('Error watching podsets: ')),
        () => `the error line; lines:\n${lines.join('\n')}`,
        10_000,
      );
      expect(lines.find((line) => line.startsWith('Error watching podsets: '))).to.match(
        /UnknownResource: .*PodSet.*\(retrying in \d+\.\d s\)$/,
      );
      expect(lines).to.not.include('PodSet and Pod caches synced; starting workers');
      await installPodSetCrd(cluster.kubeConfig);
      await waitFor(
        () => lines.includes('PodSet and Pod caches synced; starting workers'),
        'the caches to sync',
        20_000,
      );
      await firstValueFrom(
        resourceClient<PodSet>(cluster.kubeConfig, PODSET, { namespace: 'default' }).create(podSet('late', 1)),
      );
      await waitFor(() => lines.some((line) => line.startsWith('Created pod late-')), 'the pod', 10_000);
    } finally {
      subscription.unsubscribe();
      await cluster.stop();
    }
  });
});

describe('the replica-set example against a cluster it cannot reach', function () {
  this.timeout(20000);

  it('says so, with the cause and the retry delay, instead of printing nothing', async () => {
    const [first, second] = await firstLinesUnreachable((kubeConfig, print) =>
      replicaSet(kubeConfig, { print }).subscribe(),
    );
    expect(first).to.equal('Starting PodSet controller');
    expect(second).to.match(
      /^Error watching (podsets|pods): NetworkError: .*ECONNREFUSED.* \(retrying in \d+\.\d s\)$/,
    );
  });
});

describe('npm run example -- replica-set', function () {
  this.timeout(90000);

  it('runs under the manager, plays the workload to the end, serves /readyz and /metrics, logs JSON, and exits 0 on SIGINT', async () => {
    const { child, stdout, stderr, exited } = spawnExample(
      'examples/run.ts',
      'replica-set',
      '--metrics-bind-address',
      '127.0.0.1:0',
      '--health-probe-bind-address',
      '127.0.0.1:0',
    );
    try {
      await waitFor(
        () => stdout().includes('workload: done; still watching, Ctrl-C to stop'),
        () => `the workload to finish; output so far:\n${stdout()}\n${stderr()}`,
        60000,
      );
      const out = stdout();
      expect(out).to.contain('replica-set: installed the CRD podsets.examples.rxkube.io');
      expect(out).to.contain('Too few replicas for PodSet default/web: need 3, have 0, creating 3');
      expect(out).to.contain('Too few replicas for PodSet default/web: need 5, have 3, creating 2');
      expect(out).to.contain('Too few replicas for PodSet default/web: need 5, have 4, creating 1');
      expect(out).to.match(/Too many replicas for PodSet default\/web: need 1, have 5, deleting 4: /);
      expect(out).to.contain('PodSet default/web status: replicas 5, ready 5, observedGeneration 2');
      expect(out).to.contain('PodSet default/web has been deleted');
      const { metrics, health } = servedUrls(out);
      expect((await probe(health, '/readyz')).status).to.equal(200);
      const families = await scrape(metrics);
      expect(
        metricValue(families, 'controller_runtime_reconcile_total', { controller: 'podsets', result: 'error' }),
      ).to.equal(0);
      expect(
        metricValue(families, 'controller_runtime_reconcile_total', { controller: 'podsets', result: 'success' }),
      ).to.be.at.least(5);
      expect(metricValue(families, 'controller_runtime_max_concurrent_reconciles', { controller: 'podsets' })).to.equal(
        5,
      );
      expect(metricValue(families, 'leader_election_master_status', { name: 'replica-set' })).to.equal(1);
      child.kill('SIGINT');
      const [code] = await exited;
      expect(code).to.equal(0);
      expect(stdout()).to.contain('Shutting down PodSet controller');
      const records = jsonRecords(stderr());
      expect(records.find((r) => r.msg === 'manager started')).to.deep.include({
        lease: 'default/replica-set',
        controllers: ['podsets'],
      });
      expect(records.filter((r) => r.msg === 'reconcile failed')).to.deep.equal([]);
      expect(records.map((r) => r.msg)).to.include.members([
        'leading',
        'stopping',
        'drained',
        'lease released',
        'stopped',
      ]);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('a bad option exits 2 and says which, before starting anything', async () => {
    const { output, exited } = spawnExample('examples/run.ts', 'replica-set', '--workers', '0');
    const [code] = await exited;
    expect(code).to.equal(2);
    expect(output().trim()).to.equal('replica-set: replicaSet: workers must be an integer >= 1, got 0');
  });
});
