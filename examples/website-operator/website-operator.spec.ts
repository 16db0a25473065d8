/**
 * The website operator against the in-memory API server over HTTP, with its garbage collector on: the shared
 * scenarios (also run against kube-apiserver by spec/e2e/website-operator.spec.ts), a write the server fails, and
 * `npm run example -- website-operator` end to end.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { firstValueFrom, type Subscription } from 'rxjs';
import { manager, resourceClient, silentLogger } from '../../src/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { probe, scrape, metricValue } from '../shared/scrape.js';
import { waitFor } from '../shared/wait.js';
import { jsonRecords, servedUrls, spawnExample } from '../shared/spec-support.js';
import { WEBSITE_CONTROLLER, websiteController } from './controller.js';
import { installWebsiteCrd } from './crd.js';
import { websiteOperatorScenarios } from './scenarios.js';
import { WEBSITE, type Website } from './website.js';

describe('the website-operator example (in-memory server, ownerGC)', function () {
  this.timeout(60_000);
  let cluster: TestCluster;

  before(async () => {
    cluster = await startTestCluster({ ownerGC: true, bookmarkIntervalMs: 200 });
  });

  after(() => cluster.stop());

  describe('scenarios shared with kube-apiserver', () => {
    websiteOperatorScenarios({ kubeConfig: () => cluster.kubeConfig, collectsGarbage: true });
  });
});

describe('the website-operator example when the API server fails a write', function () {
  this.timeout(30_000);
  let cluster: TestCluster;
  let operator: Subscription | undefined;
  let recordsDirectory: string;

  beforeEach(async () => {
    cluster = await startTestCluster({ ownerGC: true });
    recordsDirectory = mkdtempSync(join(tmpdir(), 'website-records-'));
    await installWebsiteCrd(cluster.kubeConfig);
  });

  afterEach(async () => {
    operator?.unsubscribe();
    await cluster.stop();
    rmSync(recordsDirectory, { recursive: true, force: true });
  });

  it("says Degraded (ApplyFailed) with the server's message, retries with backoff, and recovers", async () => {
    const lines: string[] = [];
    const websites = resourceClient<Website>(cluster.kubeConfig, WEBSITE, { namespace: 'default' });
    cluster.faults.failNext({
      method: 'PATCH',
      path: '/apis/apps/v1/namespaces/default/deployments/',
      status: 500,
      count: 2,
    });
    operator = manager({
      connection: cluster.kubeConfig,
      name: 'website-operator',
      controllers: [websiteController({ recordsDirectory, print: (line) => lines.push(line) })],
      metrics: false,
      health: false,
      signals: false,
      logger: silentLogger(),
    }).subscribe();
    await firstValueFrom(
      websites.create({
        apiVersion: WEBSITE.apiVersion,
        kind: WEBSITE.kind,
        metadata: { name: 'flaky' },
        spec: { content: 'x' },
      }),
    );
    await waitFor(
      () => lines.some((line) => line.startsWith('Normal Recovered website default/flaky')),
      () => `a recovery; lines:\n${lines.join('\n')}`,
      20_000,
    );

    expect(lines.filter((line) => line.includes('ApplyFailed'))).to.deep.equal([
      'Warning ApplyFailed website default/flaky: Internal error occurred: injected fault',
    ]);
    const website = await firstValueFrom(websites.get('flaky'));
    expect(website.status?.conditions?.find((c) => c.type === 'Degraded')).to.deep.include({
      status: 'False',
      reason: 'AsExpected',
    });
    expect(existsSync(join(recordsDirectory, 'default_flaky.json'))).to.equal(true);
  });
});

describe('npm run example -- website-operator', function () {
  this.timeout(90_000);
  let recordsDirectory: string;

  beforeEach(() => {
    recordsDirectory = mkdtempSync(join(tmpdir(), 'website-records-'));
  });

  afterEach(() => rmSync(recordsDirectory, { recursive: true, force: true }));

  it('runs under the manager, plays the demo, serves /readyz and /metrics, logs JSON, and exits 0 on SIGINT', async () => {
    const { child, stdout, stderr, exited } = spawnExample(
      'examples/run.ts',
      'website-operator',
      '--records-dir',
      recordsDirectory,
      '--metrics-bind-address',
      '127.0.0.1:0',
      '--health-probe-bind-address',
      '127.0.0.1:0',
    );
    try {
      await waitFor(
        () => stdout().includes('workload: done'),
        () => `the workload to finish; output so far:\n${stdout()}\n${stderr()}`,
        60_000,
      );
      const out = stdout();
      for (const line of [
        'Normal Created website default/blog: created Deployment blog',
        'Warning DefaultsNotFound website default/docs: the defaults ConfigMap docs-defaults named by spec.defaultsConfigMap does not exist',
        'Normal Recovered website default/docs: every object is applied again',
        'Normal Updated website default/blog: updated ConfigMap blog-content',
        'Normal Updated website default/shop: updated Deployment shop',
        'Normal Ready website default/shop: 3/3 replicas ready; deployment "shop" successfully rolled out',
        `Normal CleanedUp website default/blog: removed DNS record blog.default.websites.example.test (${join(recordsDirectory, 'default_blog.json')})`,
        "workload: blog's DNS record is removed, and its Deployment, Service and ConfigMap are collected",
      ])
        expect(out).to.contain(line);
      // The defaults change reached blog and shop only: docs has its own defaults.
      expect(out).to.not.match(/Updated website default\/docs/);
      expect(existsSync(join(recordsDirectory, 'default_shop.json'))).to.equal(true);
      expect(existsSync(join(recordsDirectory, 'default_blog.json'))).to.equal(false);

      const { metrics, health } = servedUrls(out);
      expect((await probe(health, '/readyz')).status).to.equal(200);
      const families = await scrape(metrics);
      expect(
        metricValue(families, 'controller_runtime_reconcile_total', {
          controller: WEBSITE_CONTROLLER,
          result: 'requeue_after',
        }),
      ).to.be.at.least(3);
      expect(
        metricValue(families, 'controller_runtime_max_concurrent_reconciles', { controller: WEBSITE_CONTROLLER }),
      ).to.equal(2);
      expect(metricValue(families, 'leader_election_master_status', { name: 'website-operator' })).to.equal(1);
      child.kill('SIGINT');
      const [code] = await exited;
      expect(code).to.equal(0);
      const records = jsonRecords(stderr());
      expect(records.find((r) => r.msg === 'manager started')).to.deep.include({
        lease: 'default/website-operator',
        controllers: [WEBSITE_CONTROLLER],
      });
      expect(records.find((r) => r.msg === 'events flushed')).to.deep.include({ complete: true, pending: 0 });
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

  it('with --kubeconfig runs against that cluster, plays no workload, installs the CRD on --install-crd, and reconciles what it finds', async () => {
    const cluster = await startTestCluster({ ownerGC: true });
    const kubeconfig = join(recordsDirectory, 'kubeconfig.yaml');
    writeFileSync(kubeconfig, cluster.kubeConfig.exportConfig());
    const { child, stdout, stderr, exited } = spawnExample(
      'examples/run.ts',
      'website-operator',
      '--kubeconfig',
      kubeconfig,
      '--install-crd',
      '--namespace',
      'default',
      '--records-dir',
      recordsDirectory,
      '--metrics-bind-address',
      '0',
      '--health-probe-bind-address',
      '0',
    );
    try {
      await waitFor(
        () => stdout().includes('website-operator: installed the CRD websites.example.rxkube.io'),
        () => `the CRD to be installed; output so far:\n${stdout()}\n${stderr()}`,
        30_000,
      );
      expect(stdout()).to.contain(`website-operator: using ${kubeconfig} (context `);
      const websites = resourceClient<Website>(cluster.kubeConfig, WEBSITE, { namespace: 'default' });
      await firstValueFrom(
        websites.create({
          apiVersion: WEBSITE.apiVersion,
          kind: WEBSITE.kind,
          metadata: { name: 'solo' },
          spec: { content: 'solo' },
        }),
      );
      await waitFor(
        () =>
          stdout().includes(
            'Normal RecordWritten website default/solo: created DNS record solo.default.websites.example.test',
          ),
        () => `solo's record; output so far:\n${stdout()}\n${stderr()}`,
        30_000,
      );
      expect(existsSync(join(recordsDirectory, 'default_solo.json'))).to.equal(true);
      expect(stdout()).to.not.contain('workload:');
      child.kill('SIGINT');
      const [code] = await exited;
      expect(code).to.equal(0);
    } finally {
      child.kill('SIGKILL');
      await cluster.stop();
    }
  });

  it('a bad option exits 2 and says which, before starting anything', async () => {
    const { output, exited } = spawnExample('examples/run.ts', 'website-operator', '--workers', '0');
    const [code] = await exited;
    expect(code).to.equal(2);
    expect(output().trim()).to.equal('website-operator: websiteOperator: workers must be an integer >= 1, got 0');
  });

  it('a namespace that is not a DNS label exits 2 and says so', async () => {
    const { output, exited } = spawnExample('examples/run.ts', 'website-operator', '--namespace', 'Web_Sites');
    const [code] = await exited;
    expect(code).to.equal(2);
    expect(output().trim()).to.equal(
      'website-operator: websiteOperator: namespace must be a DNS label, got "Web_Sites"',
    );
  });
});
