/**
 * The node labeler against the in-memory API server over HTTP: the shared scenarios (also run against
 * kube-apiserver by spec/e2e/node-labeler.spec.ts), the demo workload, faults, shutdown, and the command line.
 */
import { expect } from 'chai';
import type { V1Node } from '@kubernetes/client-node';
import { firstValueFrom, Subject, type Subscription } from 'rxjs';
import { resourceClient, type ReconcileEvent } from '../../src/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { waitFor, waitForAsync } from '../../spec/support/wait.js';
import { firstLinesUnreachable, spawnExample } from '../shared/spec-support.js';
import { LABEL_FAILED_REASON } from './handle-node.js';
import { NODE, nodeLabeler } from './node-labeler.js';
import { DEFAULT_REPORTING_CONTROLLER } from './options.js';
import { nodeLabelerScenarios, registeringNode } from './scenarios.js';
import { linesAbout } from './spec-helpers.js';
import { runNodeWorkload } from './workload.js';

const LABELED = (name: string, providerID: string): string => `Labeled node ${name} rxkube.io/cloud-node=true (providerID ${providerID})`;

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
});

describe('the node-labeler example on the embedded cluster', function () {
  this.timeout(30000);
  let cluster: TestCluster;
  let subscription: Subscription | undefined;
  const nodes = () => resourceClient<V1Node>(cluster.kubeConfig, NODE);
  const eventsOf = async (node: string) => {
    const list = await firstValueFrom(resourceClient<any>(cluster.kubeConfig, { apiVersion: 'events.k8s.io/v1', kind: 'Event' }, { namespace: 'default' }).list());
    return (list.items as any[]).filter((event) => event.regarding?.name === node && event.reportingController === DEFAULT_REPORTING_CONTROLLER);
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
    subscription = nodeLabeler(cluster.kubeConfig, { providerIdPrefix: 'demo://', recheckAfterMs: 300, print: (line) => lines.push(line) }).subscribe();
    await runNodeWorkload(cluster.kubeConfig, () => undefined, new AbortController().signal);
    await waitFor(() => lines.includes(LABELED('cloud-2', 'demo://zone-b/cloud-2')) && lines.includes('Node has been deleted onprem-1'),
      () => `the workload's end; lines:\n${lines.join('\n')}`, 20000);

    // Nodes are handled by two workers, so lines of different nodes may interleave; each node's own are in order.
    expect(lines.slice(0, 2)).to.deep.equal(['Starting node controller', 'Node cache synced; starting workers']);
    expect(linesAbout(lines, 'cloud-1')).to.deep.equal([
      'controller: Add event, nodes [cloud-1]', 'working queue add node cloud-1', LABELED('cloud-1', 'demo://zone-a/cloud-1'),
    ]);
    expect(linesAbout(lines, 'onprem-1')).to.deep.equal([
      'controller: Add event, nodes [onprem-1]', 'working queue add node onprem-1',
      'Node onprem-1 did not join through demo:// (providerID baremetal://rack-7/onprem-1); leaving it alone',
      'controller: Delete event, nodes [onprem-1]', 'working queue add node onprem-1', 'Node has been deleted onprem-1',
    ]);
    expect(linesAbout(lines, 'cloud-2')).to.deep.equal([
      'controller: Add event, nodes [cloud-2]', 'working queue add node cloud-2',
      'Node cloud-2 has no spec.providerID yet; re-checking in 300 ms', LABELED('cloud-2', 'demo://zone-b/cloud-2'),
    ]);
    const aboutNoNode = lines.filter((line) => ['cloud-1', 'onprem-1', 'cloud-2'].every((node) => linesAbout([line], node).length === 0));
    expect(aboutNoNode).to.deep.equal(['Starting node controller', 'Node cache synced; starting workers']);
  });

  it('retries a label patch the server fails, prints the seed\'s error line, and records a Warning beside the Normal Event', async () => {
    cluster.faults.failNext({ method: 'PATCH', path: '/api/v1/nodes/', status: 500, count: 2 });
    const lines: string[] = [];
    const events: ReconcileEvent[] = [];
    subscription = nodeLabeler(cluster.kubeConfig, { providerIdPrefix: 'demo://', print: (line) => lines.push(line) }).subscribe((e) => events.push(e));
    await firstValueFrom(nodes().create(registeringNode('cloud-1', 'demo://zone-a/cloud-1')));
    await waitFor(() => lines.includes(LABELED('cloud-1', 'demo://zone-a/cloud-1')), () => `the label; lines:\n${lines.join('\n')}`, 10000);

    expect(linesAbout(lines, 'cloud-1')).to.deep.equal([
      'controller: Add event, nodes [cloud-1]', 'working queue add node cloud-1',
      'Retrying node cloud-1 in 5 ms (failure 1)', 'Retrying node cloud-1 in 10 ms (failure 2)',
      LABELED('cloud-1', 'demo://zone-a/cloud-1'),
    ]);
    expect(lines.filter((line) => line.startsWith('controller: error syncing node, '))).to.deep.equal([
      'controller: error syncing node, Internal error occurred: injected fault',
      'controller: error syncing node, Internal error occurred: injected fault',
    ]);
    expect(events.filter((e) => e.type === 'dropped')).to.deep.equal([]);
    await waitForAsync(async () => (await eventsOf('cloud-1')).length === 2, 'a Warning and a Normal Event', 10000);
    expect((await eventsOf('cloud-1')).map((event) => `${event.type} ${event.reason}`).sort()).to.deep.equal(['Normal Labeled', `Warning ${LABEL_FAILED_REASON}`]);
  });

  it('on stop$ drains, writes the Events it holds and completes; the server has them', async () => {
    const lines: string[] = [];
    const stop$ = new Subject<void>();
    let completed = false;
    subscription = nodeLabeler(cluster.kubeConfig, { providerIdPrefix: 'demo://', print: (line) => lines.push(line), stop$ })
      .subscribe({ complete: () => (completed = true) });
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
    const [first, second] = await firstLinesUnreachable((kubeConfig, print) => nodeLabeler(kubeConfig, { providerIdPrefix: 'demo://', print }).subscribe());
    expect(first).to.equal('Starting node controller');
    expect(second).to.match(/^Error watching nodes: NetworkError: .*ECONNREFUSED.* \(retrying in \d+\.\d s\)$/);
  });
});

describe('npm run example (examples/run.ts)', function () {
  this.timeout(60000);

  const example = (...args: string[]) => spawnExample('examples/run.ts', ...args);

  it('node-labeler: plays the workload on the embedded cluster, labels cloud-2 at a re-check, and exits 0 on SIGINT', async () => {
    const { child, output, exited } = example('node-labeler', '--recheck-after', '0.5');
    try {
      await waitFor(() => output().includes(LABELED('cloud-2', 'demo://zone-b/cloud-2')) && output().includes('Node has been deleted onprem-1'),
        () => `the workload to finish; output so far:\n${output()}`, 40000);
      child.kill('SIGINT');
      const [code] = await exited;
      expect(code).to.equal(0);
      expect(output()).to.contain(LABELED('cloud-1', 'demo://zone-a/cloud-1'));
      expect(output()).to.contain('Shutting down node controller');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('pod-logger: runs the main of npm start, with the options after the name', async () => {
    const { child, output, exited } = example('pod-logger', '--namespace', 'kube-public');
    try {
      await waitFor(() => output().includes('Pod cache synced; starting workers'), () => `the pod logger to start; output so far:\n${output()}`, 40000);
      child.kill('SIGINT');
      const [code] = await exited;
      expect(code).to.equal(0);
      expect(output()).to.match(/^pod-logger: embedded in-memory cluster at http:\/\/127\.0\.0\.1:\d+, namespace kube-public; Ctrl-C to stop$/m);
      expect(output()).to.contain('Stopping Pod controller');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('an unknown example exits 2 and lists the examples', async () => {
    const { output, exited } = example('nope');
    const [code] = await exited;
    expect(code).to.equal(2);
    expect(output()).to.contain('npm run example: unknown example "nope"; usage: npm run example -- <name> [options], where <name> is one of: node-labeler, pod-logger');
  });

  it('node-labeler: a bad option exits 2 and says which, before starting anything', async () => {
    const { output, exited } = example('node-labeler', '--label', 'rxkube.io/cloud-node');
    const [code] = await exited;
    expect(code).to.equal(2);
    expect(output().trim()).to.equal('node-labeler: --label must be <key>=<value>, got "rxkube.io/cloud-node"');
  });
});
