import { expect } from 'chai';
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { Subject, type Subscription } from 'rxjs';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { startController, type ReconcileEvent } from '../../src/index.js';
import { podLogger } from './pod-logger.js';
import { demoLines, faultScenarioLines } from './spec-helpers.js';
import { runDemoWorkload } from './workload.js';
import { waitFor } from '../shared/wait.js';
import { firstLinesUnreachable, jsonRecords, servedUrls, spawnExample } from '../shared/spec-support.js';
import { probe, scrape, metricValue } from '../shared/scrape.js';

describe('the pod-logger example', function () {
  this.timeout(30000);
  let cluster: TestCluster;
  let subscription: Subscription | undefined;

  beforeEach(async () => {
    cluster = await startTestCluster({ tls: true, token: 'pod-logger-token', bookmarkIntervalMs: 200 });
  });

  afterEach(async () => {
    subscription?.unsubscribe();
    await cluster.stop();
  });

  it('prints what the seed controller prints for the demo workload, over TLS with a token', async () => {
    const lines: string[] = [];
    subscription = startController(podLogger({ print: (line) => lines.push(line) }), {
      connection: cluster.kubeConfig,
    }).subscribe();
    await runDemoWorkload(cluster.kubeConfig, 'default', () => undefined, new AbortController().signal);
    await waitFor(() => lines.includes('Pod default/web-2 does not exist anymore'), 'the delete of web-2', 10000);

    expect(lines).to.deep.equal(demoLines());
  });

  it('logs each change exactly once through dropped watches, a 410 relist and a server restart', async () => {
    const lines: string[] = [];
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    const events: ReconcileEvent[] = [];
    subscription = startController(podLogger({ print: (line) => lines.push(line) }), {
      connection: cluster.kubeConfig,
    }).subscribe((e) => events.push(e));
    const body = (name: string) => ({ metadata: { name }, spec: { containers: [{ name: 'app', image: 'demo:1' }] } });

    await core.createNamespacedPod({ namespace: 'default', body: body('a') });
    await waitFor(() => lines.includes('Sync/Add/Update for Pod a'), 'pod a', 10000);

    cluster.faults.dropWatches({ mode: 'abrupt' });
    await core.createNamespacedPod({ namespace: 'default', body: body('b') });
    await waitFor(() => lines.includes('Sync/Add/Update for Pod b'), 'pod b after an abrupt drop', 10000);

    // Delete `a` while no watch is open, then compact: the resumed watch gets 410 and the relist finds `a` gone.
    cluster.faults.failNext({ count: 1000, method: 'GET', path: /watch=/, status: 503 });
    cluster.faults.dropWatches({ mode: 'clean' });
    await core.deleteNamespacedPod({ namespace: 'default', name: 'a' });
    cluster.faults.compact();
    cluster.faults.clear();
    await waitFor(() => lines.includes('Pod default/a does not exist anymore'), 'the tombstone of pod a', 20000);

    cluster.faults.restart();
    await core.patchNamespacedPod(
      { namespace: 'default', name: 'b', body: { metadata: { labels: { touched: 'yes' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await waitFor(
      () => lines.filter((line) => line === 'Sync/Add/Update for Pod b').length === 2,
      'the update of b after a restart',
      20000,
    );

    expect(lines.filter((line) => !line.startsWith('Error watching pods'))).to.deep.equal(faultScenarioLines());
    expect(events.filter((e) => e.type === 'failed')).to.deep.equal([]);
  });

  it('drains and stops cleanly on stop$', async () => {
    const lines: string[] = [];
    const stop$ = new Subject<void>();
    let completed = false;
    subscription = startController(podLogger({ print: (line) => lines.push(line) }), {
      connection: cluster.kubeConfig,
      stop$,
    }).subscribe({ complete: () => (completed = true) });
    await waitFor(() => lines.length === 2, 'start', 10000);
    stop$.next();
    await waitFor(() => completed, 'completion after stop$', 10000);
    expect(lines).to.deep.equal([
      'Starting Pod controller',
      'Pod cache synced; starting workers',
      'Stopping Pod controller',
    ]);
  });
});

describe('the pod-logger example against a cluster it cannot reach', function () {
  this.timeout(20000);

  it('says so, with the cause and the retry delay, instead of printing nothing', async () => {
    const [first, second] = await firstLinesUnreachable((kubeConfig, print) =>
      startController(podLogger({ print }), { connection: kubeConfig }).subscribe(),
    );
    expect(first).to.equal('Starting Pod controller');
    expect(second).to.match(/^Error watching pods: NetworkError: .*ECONNREFUSED.* \(retrying in \d+\.\d s\)$/);
  });
});

describe('npm start (examples/pod-logger/main.ts)', function () {
  this.timeout(60000);

  it('plays the workload on the embedded cluster under the manager, serves /metrics and /readyz, and exits 0 on SIGINT', async () => {
    const { child, stdout, stderr, exited } = spawnExample(
      'examples/pod-logger/main.ts',
      '--metrics-bind-address',
      '127.0.0.1:0',
      '--health-probe-bind-address',
      '127.0.0.1:0',
    );
    try {
      await waitFor(
        () => stdout().includes('Pod default/web-2 does not exist anymore'),
        () => `the workload to finish; output so far:\n${stdout()}\n${stderr()}`,
        40000,
      );
      const { metrics, health } = servedUrls(stdout());
      expect((await probe(health, '/readyz')).status).to.equal(200);
      const families = await scrape(metrics);
      expect(
        metricValue(families, 'controller_runtime_reconcile_total', { controller: 'pods', result: 'error' }),
      ).to.equal(9);
      expect(metricValue(families, 'leader_election_master_status', { name: 'pod-logger' })).to.equal(1);
      child.kill('SIGINT');
      const [code] = await exited;
      expect(code).to.equal(0);
      expect(stdout()).to.contain('Dropping pod "default/doomed" out of the queue');
      expect(stdout()).to.contain('pod-logger: leading');
      expect(stdout()).to.contain('Stopping Pod controller');
      const records = jsonRecords(stderr());
      expect(records.filter((r) => r.msg === 'reconcile failed')).to.have.length(9);
      expect(records.map((r) => r.msg)).to.include.members([
        'manager started',
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

  it('with --log-format text writes human lines: each failure on one line with its cause, no stacks, no JSON', async () => {
    const { child, stdout, stderr, exited } = spawnExample(
      'examples/pod-logger/main.ts',
      '--metrics-bind-address',
      '0',
      '--health-probe-bind-address',
      '0',
      '--log-format',
      'text',
    );
    try {
      await waitFor(
        () => stdout().includes('Pod default/web-2 does not exist anymore'),
        () => `the workload to finish; output so far:\n${stdout()}\n${stderr()}`,
        40000,
      );
      child.kill('SIGINT');
      const [code] = await exited;
      expect(code).to.equal(0);
      const lines = stderr()
        .split('\n')
        .filter((line) => line !== '');
      const failures = lines.filter((line) => / ERROR reconcile failed /.test(line));
      expect(failures).to.have.length(9);
      expect(failures[0]).to.match(
        /^\d\d:\d\d:\d\d\.\d{3} ERROR reconcile failed controller=pods key=default\/flaky .*error="simulated failure of attempt 1 \(annotation demo\.rxkube\.io\/fail-attempts=3\)"$/,
      );
      expect(lines.filter((line) => line.startsWith('{') || /^\s+at /.test(line))).to.deep.equal([]);
      // Successes and milestones are on stdout; the log says what went wrong.
      expect(lines.filter((line) => / INFO {2}/.test(line))).to.deep.equal([]);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
