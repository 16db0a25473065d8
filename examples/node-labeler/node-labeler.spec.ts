/**
 * The node labeler against the in-memory API server over HTTP: the shared scenarios (also run against
 * kube-apiserver by spec/e2e/node-labeler.spec.ts), the demo workload, faults, shutdown, and the command line.
 */
import { expect } from 'chai';
import type { V1Node } from '@kubernetes/client-node';
import { firstValueFrom, Subject, type Subscription } from 'rxjs';
import { resourceClient, type ReconcileEvent } from '../../src/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { waitFor, waitForAsync } from '../shared/wait.js';
import { firstLinesUnreachable, jsonRecords, servedUrls, spawnExample } from '../shared/spec-support.js';
import { probe, scrape, metricValue } from '../shared/scrape.js';
import { LABEL_FAILED_REASON } from './handle-node.js';
import { NODE, nodeLabeler } from './node-labeler.js';
import { DEFAULT_REPORTING_CONTROLLER } from './options.js';
import { nodeLabelerScenarios, registeringNode } from './scenarios.js';
import { linesAbout } from './spec-helpers.js';
import { runNodeWorkload } from './workload.js';

const LABELED = (name: string, providerID: string): string =>
  `Labeled node ${name} rxkube.io/cloud-node=true (providerID ${providerID})`;

describe('the node-labeler example (in-memory server)', function () {
  this.timeout(30000);
  let cluster: TestCluster;

  before(async () => {
    cluster = await startTestCluster({ tls: true, token: 'node-labeler-token', bookmarkIntervalMs: 200 });
  });

  after(() => cluster.stop());

  describe('scenarios shared with kube-apiserver', () => {
    nodeLabelerScenarios(() => cluster.kubeConfig);
  });

  describe('scenarios shared with kube-apiserver, under the manager', () => {
    nodeLabelerScenarios(() => cluster.kubeConfig, 'manager');
  });
});

describe('the node-labeler example on the embedded cluster', function () {
  this.timeout(30000);
  let cluster: TestCluster;
  let subscription: Subscription | undefined;
  const nodes = () => resourceClient<V1Node>(cluster.kubeConfig, NODE);
  const eventsOf = async (node: string) => {
    const list = await firstValueFrom(
      resourceClient<any>(
        cluster.kubeConfig,
        { apiVersion: 'events.k8s.io/v1', kind: 'Event' },
        { namespace: 'default' },
      ).list(),
    );
    return (list.items as any[]).filter(
      (event) => event.regarding?.name === node && event.reportingController === DEFAULT_REPORTING_CONTROLLER,
    );
  };

  beforeEach(async () => {
    cluster = await startTestCluster({ tls: true, token: 'node-labeler-token', bookmarkIntervalMs: 200 });
  });

  afterEach(async () => {
    subscription?.unsubscribe();
    await cluster.stop();
  });

  it('prints what the seed controller prints for the demo workload, node by node', async () => {
    const lines: string[] = [];
    subscription = nodeLabeler(cluster.kubeConfig, {
      providerIdPrefix: 'demo://',
      recheckAfterMs: 300,
      print: (line) => lines.push(line),
    }).subscribe();
    await runNodeWorkload(cluster.kubeConfig, () => undefined, new AbortController().signal);
    await waitFor(
      () =>
        lines.includes(LABELED('cloud-2', 'demo://zone-b/cloud-2')) && lines.includes('Node has been deleted onprem-1'),
      () => `the workload's end; lines:\n${lines.join('\n')}`,
      20000,
    );

    // Nodes are handled by two workers, so lines of different nodes may interleave; each node's own are in order.
    expect(lines.slice(0, 2)).to.deep.equal(['Starting node controller', 'Node cache synced; starting workers']);
    expect(linesAbout(lines, 'cloud-1')).to.deep.equal([
      'controller: Add event, nodes [cloud-1]',
      'working queue add node cloud-1',
      LABELED('cloud-1', 'demo://zone-a/cloud-1'),
    ]);
    expect(linesAbout(lines, 'onprem-1')).to.deep.equal([
      'controller: Add event, nodes [onprem-1]',
      'working queue add node onprem-1',
      'Node onprem-1 did not join through demo:// (providerID baremetal://rack-7/onprem-1); leaving it alone',
      'controller: Delete event, nodes [onprem-1]',
      'working queue add node onprem-1',
      'Node has been deleted onprem-1',
    ]);
    expect(linesAbout(lines, 'cloud-2')).to.deep.equal([
      'controller: Add event, nodes [cloud-2]',
      'working queue add node cloud-2',
      'Node cloud-2 has no spec.providerID yet; re-checking in 300 ms',
      LABELED('cloud-2', 'demo://zone-b/cloud-2'),
    ]);
    const aboutNoNode = lines.filter((line) =>
      ['cloud-1', 'onprem-1', 'cloud-2'].every((node) => linesAbout([line], node).length === 0),
    );
    expect(aboutNoNode).to.deep.equal(['Starting node controller', 'Node cache synced; starting workers']);
  });

  it("retries a label patch the server fails, prints the seed's error line, and records a Warning beside the Normal Event", async () => {
    cluster.faults.failNext({ method: 'PATCH', path: '/api/v1/nodes/', status: 500, count: 2 });
    const lines: string[] = [];
    const events: ReconcileEvent[] = [];
    subscription = nodeLabeler(cluster.kubeConfig, {
      providerIdPrefix: 'demo://',
      print: (line) => lines.push(line),
    }).subscribe((e) => events.push(e));
    await firstValueFrom(nodes().create(registeringNode('cloud-1', 'demo://zone-a/cloud-1')));
    await waitFor(
      () => lines.includes(LABELED('cloud-1', 'demo://zone-a/cloud-1')),
      () => `the label; lines:\n${lines.join('\n')}`,
      10000,
    );

    expect(linesAbout(lines, 'cloud-1')).to.deep.equal([
      'controller: Add event, nodes [cloud-1]',
      'working queue add node cloud-1',
      'Retrying node cloud-1 in 5 ms (failure 1)',
      'Retrying node cloud-1 in 10 ms (failure 2)',
      LABELED('cloud-1', 'demo://zone-a/cloud-1'),
    ]);
    expect(lines.filter((line) => line.startsWith('controller: error syncing node, '))).to.deep.equal([
      'controller: error syncing node, Internal error occurred: injected fault',
      'controller: error syncing node, Internal error occurred: injected fault',
    ]);
    expect(events.filter((e) => e.type === 'dropped')).to.deep.equal([]);
    await waitForAsync(async () => (await eventsOf('cloud-1')).length === 2, 'a Warning and a Normal Event', 10000);
    expect((await eventsOf('cloud-1')).map((event) => `${event.type} ${event.reason}`).sort()).to.deep.equal([
      'Normal Labeled',
      `Warning ${LABEL_FAILED_REASON}`,
    ]);
  });

  it('on stop$ drains, writes the Events it holds and completes; the server has them', async () => {
    const lines: string[] = [];
    const stop$ = new Subject<void>();
    let completed = false;
    subscription = nodeLabeler(cluster.kubeConfig, {
      providerIdPrefix: 'demo://',
      print: (line) => lines.push(line),
      stop$,
    }).subscribe({ complete: () => (completed = true) });
    await firstValueFrom(nodes().create(registeringNode('cloud-1', 'demo://zone-a/cloud-1')));
    await waitFor(() => lines.includes(LABELED('cloud-1', 'demo://zone-a/cloud-1')), 'the label', 10000);
    stop$.next();
    await waitFor(() => completed, 'completion after stop$', 10000);
    expect(lines.at(-1)).to.equal('Shutting down node controller');
    expect((await eventsOf('cloud-1')).map((event) => event.reason)).to.deep.equal(['Labeled']);
  });
});

describe('the node-labeler example against a cluster it cannot reach', function () {
  this.timeout(20000);

  it('says so, with the cause and the retry delay, instead of printing nothing', async () => {
    const [first, second] = await firstLinesUnreachable((kubeConfig, print) =>
      nodeLabeler(kubeConfig, { providerIdPrefix: 'demo://', print }).subscribe(),
    );
    expect(first).to.equal('Starting node controller');
    expect(second).to.match(/^Error watching nodes: NetworkError: .*ECONNREFUSED.* \(retrying in \d+\.\d s\)$/);
  });
});

describe('npm run example (examples/run.ts)', function () {
  this.timeout(60000);

  const example = (...args: string[]) => spawnExample('examples/run.ts', ...args);

  it('node-labeler: runs under the manager, plays the workload, serves /readyz and /metrics, logs JSON, and exits 0 on SIGINT', async () => {
    const { child, stdout, stderr, exited } = example(
      'node-labeler',
      '--recheck-after',
      '0.5',
      '--metrics-bind-address',
      '127.0.0.1:0',
      '--health-probe-bind-address',
      '127.0.0.1:0',
    );
    try {
      await waitFor(
        () =>
          stdout().includes(LABELED('cloud-2', 'demo://zone-b/cloud-2')) &&
          stdout().includes('Node has been deleted onprem-1'),
        () => `the workload to finish; output so far:\n${stdout()}\n${stderr()}`,
        40000,
      );
      const { metrics, health } = servedUrls(stdout());
      expect((await probe(health, '/readyz')).status).to.equal(200);
      const families = await scrape(metrics);
      // cloud-1 labeled, onprem-1 left alone then deleted, cloud-2 labeled at a re-check: four runs succeed.
      expect(
        metricValue(families, 'controller_runtime_reconcile_total', { controller: 'nodes', result: 'success' }),
      ).to.equal(4);
      expect(
        metricValue(families, 'controller_runtime_reconcile_total', { controller: 'nodes', result: 'error' }),
      ).to.equal(0);
      expect(
        metricValue(families, 'controller_runtime_reconcile_total', { controller: 'nodes', result: 'requeue_after' }),
      ).to.be.at.least(1);
      expect(metricValue(families, 'controller_runtime_max_concurrent_reconciles', { controller: 'nodes' })).to.equal(
        2,
      );
      expect(metricValue(families, 'leader_election_master_status', { name: 'node-labeler' })).to.equal(1);
      child.kill('SIGINT');
      const [code] = await exited;
      expect(code).to.equal(0);
      expect(stdout()).to.contain(LABELED('cloud-1', 'demo://zone-a/cloud-1'));
      expect(stdout()).to.contain('node-labeler: leading');
      expect(stdout()).to.contain('Shutting down node controller');
      const records = jsonRecords(stderr());
      const reconciled = records.filter((r) => r.msg === 'reconciled' && r.controller === 'nodes');
      expect(reconciled.filter((r) => r.result === 'success').map((r) => r.key)).to.have.members([
        'cloud-1',
        'onprem-1',
        'cloud-2',
        'onprem-1',
      ]);
      expect(records.find((r) => r.msg === 'manager started')).to.deep.include({
        lease: 'default/node-labeler',
        controllers: ['nodes'],
      });
      expect(records.find((r) => r.msg === 'events flushed')).to.deep.include({ complete: true, pending: 0 });
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

  it('pod-logger: runs the main of npm start, with the options after the name', async () => {
    const { child, output, exited } = example(
      'pod-logger',
      '--namespace',
      'kube-public',
      '--metrics-bind-address',
      '0',
      '--health-probe-bind-address',
      '0',
      '--no-leader-elect',
    );
    try {
      await waitFor(
        () => output().includes('Pod cache synced; starting workers'),
        () => `the pod logger to start; output so far:\n${output()}`,
        40000,
      );
      child.kill('SIGINT');
      const [code] = await exited;
      expect(code).to.equal(0);
      expect(output()).to.match(
        /^pod-logger: embedded in-memory cluster at http:\/\/127\.0\.0\.1:\d+, namespace kube-public; Ctrl-C to stop$/m,
      );
      expect(output()).to.contain('pod-logger: started (no metrics or probe server)');
      expect(output()).to.not.contain('pod-logger: leading');
      expect(output()).to.contain('Stopping Pod controller');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('an unknown example exits 2 and lists the examples', async () => {
    const { output, exited } = example('nope');
    const [code] = await exited;
    expect(code).to.equal(2);
    // Every folder of examples/ with a main.ts is listed, so a new example does not change this test.
    const listed = /where <name> is one of: (.+)$/m.exec(output())?.[1]?.split(', ');
    expect(output()).to.contain(
      'npm run example: unknown example "nope"; usage: npm run example -- <name> [options], where <name> is one of: ',
    );
    expect(listed).to.include.members(['node-labeler', 'pod-logger', 'replica-set', 'website-operator']);
    expect(listed).to.deep.equal([...listed!].sort());
  });

  it('node-labeler: a bad option exits 2 and says which, before starting anything', async () => {
    const { output, exited } = example('node-labeler', '--label', 'rxkube.io/cloud-node');
    const [code] = await exited;
    expect(code).to.equal(2);
    expect(output().trim()).to.equal('node-labeler: --label must be <key>=<value>, got "rxkube.io/cloud-node"');
  });

  it('node-labeler: a bad manager flag exits 2 and says which, before starting anything', async () => {
    const { output, exited } = example('node-labeler', '--lease-duration', 'soon');
    const [code] = await exited;
    expect(code).to.equal(2);
    expect(output().trim()).to.equal('node-labeler: --lease-duration must be a number of milliseconds, got "soon"');
  });

  it("node-labeler: lease timings the manager refuses exit 2 with the manager's reason", async () => {
    const { output, exited } = example('node-labeler', '--lease-duration', '5000', '--renew-deadline', '8000');
    const [code] = await exited;
    expect(code).to.equal(2);
    expect(output()).to.match(
      /^node-labeler: leaderElection: leaseDuration \(5000 ms\) must be greater than renewDeadline \(8000 ms\)/m,
    );
    expect(output()).to.not.contain('Starting node controller');
  });
});
