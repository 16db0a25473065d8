/**
 * The dashboard in a real browser: `npm run example -- cluster-dashboard` against an in-memory API server of this
 * process, its page opened in headless Chromium (Debian's package, driven over the DevTools protocol), objects
 * created, changed and deleted through the API, and the page's DOM checked to follow within a bound. It fails,
 * saying how to install it, when Chromium is missing: CI installs it (.ci/run).
 *
 * The bound is generous (the machine is shared): the page lags the cluster by one update interval (100 ms here)
 * plus the controller's own work; what is asserted is that it follows, not how fast.
 */
import { expect } from 'chai';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, copyFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Namespace } from '@kubernetes/client-node';
import { firstValueFrom, type Subscription } from 'rxjs';
import { resourceClient } from '../../src/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { spawnNode, type ExampleProcess } from '../shared/spec-support.js';
import { waitFor } from '../shared/wait.js';
import { PODSET, type PodSet } from '../replica-set/podset.js';
import { demoPodSet, simulatedKubelet } from '../replica-set/workload.js';
import { launchChromium, type HeadlessChromium, type HeadlessPage } from './headless-chromium.js';

/** How long the page may take to show a change made through the API, ms. */
const FOLLOW_BOUND_MS = 15_000;

/** A free TCP port on 127.0.0.1 (so the example can be restarted on the same one). */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** The text of the element `selector` matches, or `null`: an expression for `page.waitFor`. */
const text = (selector: string): string => `(document.querySelector(${JSON.stringify(selector)})?.textContent ?? null)`;
const cell = (podSet: string, field: string): string => `#podsets tr[data-key="${podSet}"] [data-field="${field}"]`;

describe('the cluster-dashboard example in headless Chromium', function () {
  this.timeout(180_000);
  let cluster: TestCluster;
  let dir: string;
  let kubeconfig: string;
  let port: number;
  let example: ExampleProcess | undefined;
  let browser: HeadlessChromium | undefined;
  let kubelet: Subscription | undefined;

  const podSets = (namespace: string) => resourceClient<PodSet>(cluster.kubeConfig, PODSET, { namespace });

  /** Starts the example against the test cluster and resolves with its page's URL. */
  async function startExample(): Promise<string> {
    example = spawnNode(
      [
        '--import',
        'tsx',
        'examples/run.ts',
        'cluster-dashboard',
        '--kubeconfig',
        kubeconfig,
        '--install-crd',
        '--dashboard-port',
        String(port),
        '--update-interval',
        '100',
        '--metrics-bind-address',
        '127.0.0.1:0',
        '--health-probe-bind-address',
        '127.0.0.1:0',
        '--lease-duration',
        '2000',
        '--renew-deadline',
        '1500',
        '--retry-period',
        '300',
        '--stop-on-stdin-eof',
      ],
      { stdin: true },
    );
    const started = example;
    await waitFor(
      () => /dashboard on (http:\S+)/.test(started.stdout()),
      () => `the dashboard's URL; output so far:\n${started.output()}`,
      60_000,
    );
    return /dashboard on (http:\S+)/.exec(started.stdout())![1]!;
  }

  /** SIGINT, as Ctrl-C: resolves with the exit code. */
  async function stopExample(): Promise<number | null> {
    const running = example!;
    example = undefined;
    running.child.kill('SIGINT');
    const timer = setTimeout(() => running.child.kill('SIGKILL'), 30_000);
    const [code] = await running.exited;
    clearTimeout(timer);
    return code;
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rxkube-dashboard-'));
    kubeconfig = join(dir, 'kubeconfig.yaml');
    cluster = await startTestCluster({ ownerGC: true });
    await cluster.writeKubeconfig(kubeconfig);
    port = await freePort();
    // The replica-set example's stand-in kubelet marks the Pods of `default` Running and Ready.
    kubelet = simulatedKubelet(cluster.kubeConfig, () => {}, 50).subscribe();
    browser = await launchChromium();
  });

  after(async () => {
    kubelet?.unsubscribe();
    await browser?.close();
    if (example !== undefined) await stopExample();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('follows PodSets created, scaled, broken and deleted through the API, shows the queue, the runs and the Lease, and takes a screenshot', async () => {
    const url = await startExample();
    const page: HeadlessPage = await browser!.open(url);
    await page.waitFor(`document.querySelector('#connection').dataset.state === 'live'`, 'a live connection');
    await page.waitFor(`${text('#leading')} === 'leading'`, 'this process leading', FOLLOW_BOUND_MS);

    await firstValueFrom(
      resourceClient<V1Namespace>(cluster.kubeConfig, { apiVersion: 'v1', kind: 'Namespace' }).create({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'team-a' },
      }),
    );
    await firstValueFrom(podSets('default').create(demoPodSet(3, 'web')));
    await firstValueFrom(
      podSets('team-a').create({ ...demoPodSet(2, 'shop'), metadata: { name: 'shop', namespace: 'team-a' } }),
    );
    await page.waitFor(
      `${text(cell('default/web', 'ready'))} === '3' && ${text(cell('default/web', 'pods'))} === '3'`,
      'web with 3 ready pods',
      FOLLOW_BOUND_MS,
    );
    await page.waitFor(`${text(cell('team-a/shop', 'pods'))} === '2'`, 'shop with 2 pods', FOLLOW_BOUND_MS);
    // Objects by kind and namespace, and Pods by phase (team-a has no kubelet: its Pods stay Pending).
    await page.waitFor(
      `${text('#kinds tr[data-kind="PodSet"] td[data-namespace="team-a"]')} === '1'`,
      'one PodSet in team-a',
      FOLLOW_BOUND_MS,
    );
    await page.waitFor(
      `${text('#kinds tr[data-kind="Pod"] td[data-field="total"]')} === '5'`,
      '5 Pods in all',
      FOLLOW_BOUND_MS,
    );
    await page.waitFor(
      `${text('#phases tr[data-namespace="team-a"] td[data-phase="Pending"]')} === '2'`,
      '2 Pending Pods in team-a',
      FOLLOW_BOUND_MS,
    );
    await page.waitFor(
      `${text('#phases tr[data-namespace="default"] td[data-phase="Running"]')} === '3'`,
      '3 Running Pods in default',
      FOLLOW_BOUND_MS,
    );

    await firstValueFrom(podSets('default').patch('web', { type: 'merge', body: { spec: { replicas: 5 } } }));
    await page.waitFor(
      `${text(cell('default/web', 'desired'))} === '5' && ${text(cell('default/web', 'ready'))} === '5'`,
      'web scaled to 5 ready pods',
      FOLLOW_BOUND_MS,
    );
    expect(
      await page.evaluate<number>(`document.querySelectorAll('${cell('default/web', 'pod-list')} .pod.ready').length`),
    ).to.equal(5);

    // Pods the API server refuses (no image): failed runs with their error, and their retries.
    const broken = demoPodSet(2, 'broken');
    await firstValueFrom(
      podSets('default').create({
        ...broken,
        spec: {
          ...broken.spec!,
          template: { ...broken.spec!.template, spec: { containers: [{ name: 'web', image: '' }] } },
        },
      }),
    );
    await page.waitFor(
      `[...document.querySelectorAll('#runs tr.failed[data-key="default/broken"] [data-field="error"]')].some((td) => /image: Required value/.test(td.textContent) && /retry in/.test(td.textContent))`,
      'a failed run of default/broken with its error and its retry',
      FOLLOW_BOUND_MS,
    );
    await page.waitFor(
      `${text(cell('default/broken', 'failure'))}?.includes('Required value')`,
      'the ReplicaFailure of broken',
      FOLLOW_BOUND_MS,
    );
    // The runs say why they ran.
    expect(
      await page.evaluate<string>(
        `[...document.querySelectorAll('#runs tr[data-key="default/web"] .reasons')].map((td) => td.textContent).join('|')`,
      ),
    ).to.match(/PodSet default\/web/);
    expect(
      await page.evaluate<string>(text('#queues .queue[data-controller="podsets"] [data-field="workers"]')),
    ).to.match(/^\d+ \/ 5$/);
    expect(await page.evaluate<string>(text('#leader-facts'))).to.contain('default/cluster-dashboard');

    const shot = join(dir, 'dashboard.png');
    const bytes = await page.screenshot(shot);
    expect(readFileSync(shot).subarray(1, 4).toString()).to.equal('PNG');
    expect(bytes).to.be.greaterThan(10_000);
    // DASHBOARD_SCREENSHOT=examples/cluster-dashboard/screenshot.png refreshes the README's picture.
    if (process.env.DASHBOARD_SCREENSHOT) copyFileSync(shot, process.env.DASHBOARD_SCREENSHOT);

    await firstValueFrom(podSets('default').delete('broken'));
    await firstValueFrom(podSets('default').delete('web'));
    await page.waitFor(
      `document.querySelector('#podsets tr[data-key="default/web"]') === null && document.querySelector('#podsets tr[data-key="default/broken"]') === null`,
      'web and broken gone',
      FOLLOW_BOUND_MS,
    );
    // The garbage collector deletes their Pods; the per-kind counts follow.
    await page.waitFor(
      `${text('#kinds tr[data-kind="Pod"] td[data-field="total"]')} === '2'`,
      "only shop's 2 Pods left",
      FOLLOW_BOUND_MS,
    );
    expect(page.errors()).to.deep.equal([]);
  });

  it('resumes after its connection drops: the server restarts on its port, and the page catches up with what changed meanwhile', async () => {
    if (example === undefined) await startExample();
    await firstValueFrom(podSets('default').create(demoPodSet(1, 'resume')));
    const page = await browser!.open(`http://127.0.0.1:${port}/`);
    await page.waitFor(`${text(cell('default/resume', 'ready'))} === '1'`, 'resume with 1 ready pod', FOLLOW_BOUND_MS);
    expect(await stopExample()).to.equal(0);
    await page.waitFor(
      `document.querySelector('#connection').dataset.state !== 'live'`,
      'the connection lost',
      FOLLOW_BOUND_MS,
    );

    await firstValueFrom(podSets('default').patch('resume', { type: 'merge', body: { spec: { replicas: 3 } } }));
    await startExample();
    await page.waitFor(
      `document.querySelector('#connection').dataset.state === 'live'`,
      'the connection back',
      FOLLOW_BOUND_MS,
    );
    await page.waitFor(
      `${text(cell('default/resume', 'desired'))} === '3' && ${text(cell('default/resume', 'ready'))} === '3'`,
      'resume scaled to 3 while the page was away',
      FOLLOW_BOUND_MS,
    );
    expect(await page.evaluate<string>(text('#connection'))).to.equal('live (reconnected 1×)');
    expect(page.errors()).to.deep.equal([]);
    expect(await stopExample()).to.equal(0);
  });
});
