import { expect } from 'chai';
import { ApiextensionsV1Api, CoreV1Api, type V1ConfigMap, type V1Pod, type V1Secret } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import type { Subscription } from 'rxjs';
import { MANAGER_METRIC_NAMES } from '../../src/extend.js';
import {
  TerminalError,
  controller,
  jsonLogger,
  manager,
  toKeys,
  type ControllerDefinition,
  type ManagerEvent,
  type ManagerOptions,
  type ReconcileEvent,
} from '../../src/index.js';
import type { ServerAddress } from '../../src/manager/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { waitFor } from '../support/wait.js';
import { histogramCount, probe, scrape, metricValue } from './scrape.js';

const FAIL = 'spec.rxkube.io/fail-attempts';
const TOKEN = 'manager-spec-token-0123456789';

/** Pods: a `fail-attempts` annotation fails that many attempts (`terminal`: a TerminalError); `requeue` requeues once. */
const pods: ControllerDefinition = {
  name: 'pods',
  start: (context) => {
    const requeued = new Set<string>();
    return controller<V1Pod>({
      context,
      for: { resource: { apiVersion: 'v1', kind: 'Pod' }, options: { namespace: 'default' } },
      globalRateLimiter: false,
      reconcile: ({ key, object, attempt }) => {
        const fail = object?.metadata?.annotations?.[FAIL];
        if (fail === 'terminal') throw new TerminalError(`${key} cannot be fixed`);
        if (fail !== undefined && attempt <= Number(fail)) throw new Error(`attempt ${attempt} of ${key} failed`);
        if (object?.metadata?.name === 'requeue' && !requeued.has(key)) {
          requeued.add(key);
          return { requeueAfter: 20 };
        }
        return undefined;
      },
    });
  },
};

/** ConfigMaps, hand-written with the context's informers and reconcile, two at a time. */
const configMaps: ControllerDefinition = {
  name: 'configmaps',
  start: (context) => {
    const informer = context.informers.for<V1ConfigMap>(
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { namespace: 'default' },
    );
    return informer.events$.pipe(
      toKeys(),
      context.reconcile(() => undefined, { lookup: informer, gate: informer.synced$, concurrency: 2 }),
    );
  },
};

const body = (name: string, annotations: Record<string, string> = {}): V1Pod => ({
  metadata: { name, annotations },
  spec: { containers: [{ name: 'app', image: 'registry.example.com/app:1' }] },
});

describe('manager against the in-memory API server', function () {
  this.timeout(30_000);
  let cluster: TestCluster;
  let core: CoreV1Api;
  let subscription: Subscription | undefined;
  let events: ManagerEvent[];
  let lines: string[];
  let registry: Registry;

  beforeEach(async () => {
    cluster = await startTestCluster({ token: TOKEN });
    core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    events = [];
    lines = [];
  });

  afterEach(async () => {
    subscription?.unsubscribe();
    subscription = undefined;
    await cluster.stop();
  });

  function start(controllers: readonly ControllerDefinition[], overrides: Partial<ManagerOptions> = {}): void {
    registry = new Registry();
    subscription = manager({
      connection: cluster.kubeConfig,
      name: 'spec-manager',
      controllers,
      leaderElection: { namespace: 'default' },
      metrics: { host: '127.0.0.1', port: 0, registry },
      health: { host: '127.0.0.1', port: 0 },
      signals: false,
      logger: jsonLogger({ level: 'debug', write: (line) => lines.push(line) }),
      ...overrides,
    }).subscribe({
      next: (event) => events.push(event),
      error: (error: unknown) => events.push({ type: 'stopped', time: 0, clean: false, error } as never),
    });
  }

  const addresses = (): { metrics?: ServerAddress; health?: ServerAddress } =>
    events.find((e): e is Extract<ManagerEvent, { type: 'started' }> => e.type === 'started') ?? {};
  const reconcileEvents = (name: string): ReconcileEvent[] =>
    events.flatMap((e) => (e.type === 'controller' && e.controller === name ? [e.event] : []));
  const count = (name: string, test: (e: ReconcileEvent) => boolean): number =>
    reconcileEvents(name).filter(test).length;

  it('serves every listed metric, with counts that match the ReconcileEvents seen', async () => {
    start([pods, configMaps]);
    await waitFor(
      () => events.some((e) => e.type === 'leading' && e.leading) && events.some((e) => e.type === 'ready' && e.ready),
      'leading and ready',
      10_000,
    );
    await core.createNamespacedPod({ namespace: 'default', body: body('plain') });
    await core.createNamespacedPod({ namespace: 'default', body: body('flaky', { [FAIL]: '2' }) });
    await core.createNamespacedPod({ namespace: 'default', body: body('broken', { [FAIL]: 'terminal' }) });
    await core.createNamespacedPod({ namespace: 'default', body: body('requeue') });
    for (const name of ['one', 'two', 'three'])
      await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name }, data: { k: name } } });
    const succeeded = (controllerName: string, key: string): number =>
      count(controllerName, (e) => e.type === 'succeeded' && e.key === key);
    await waitFor(
      () =>
        succeeded('pods', 'default/flaky') === 1 &&
        succeeded('pods', 'default/requeue') === 2 &&
        succeeded('pods', 'default/plain') === 1 &&
        count('pods', (e) => e.type === 'failed' && e.terminal) === 1 &&
        count('configmaps', (e) => e.type === 'succeeded') === 3,
      'every run to settle',
      10_000,
    );

    const families = await scrape(addresses().metrics!.url);
    const processMetrics = [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
    ];
    expect([...MANAGER_METRIC_NAMES, ...processMetrics].filter((name) => !families.has(name))).to.deep.equal([]);
    for (const name of ['pods', 'configmaps']) {
      const c = { controller: name };
      const q = { name, controller: name };
      const requeued = count(name, (e) => e.type === 'requeued');
      const ended = count(name, (e) => e.type === 'succeeded' || e.type === 'failed');
      expect(
        metricValue(families, 'controller_runtime_reconcile_total', { ...c, result: 'success' }),
        `${name} successes`,
      ).to.equal(count(name, (e) => e.type === 'succeeded') - requeued);
      expect(metricValue(families, 'controller_runtime_reconcile_total', { ...c, result: 'requeue_after' })).to.equal(
        requeued,
      );
      expect(metricValue(families, 'controller_runtime_reconcile_total', { ...c, result: 'error' })).to.equal(
        count(name, (e) => e.type === 'failed'),
      );
      expect(metricValue(families, 'controller_runtime_reconcile_errors_total', c)).to.equal(
        count(name, (e) => e.type === 'failed'),
      );
      expect(metricValue(families, 'controller_runtime_terminal_reconcile_errors_total', c)).to.equal(
        count(name, (e) => e.type === 'failed' && e.terminal),
      );
      expect(metricValue(families, 'controller_runtime_reconcile_timeouts_total', c)).to.equal(0);
      expect(await histogramCount(registry, 'controller_runtime_reconcile_time_seconds', c)).to.equal(ended);
      expect(metricValue(families, 'controller_runtime_active_workers', c)).to.equal(0);
      expect(metricValue(families, 'controller_runtime_max_concurrent_reconciles', c)).to.equal(
        name === 'pods' ? 1 : 2,
      );
      expect(await histogramCount(registry, 'workqueue_queue_duration_seconds', q)).to.equal(
        count(name, (e) => e.type === 'started'),
      );
      expect(await histogramCount(registry, 'workqueue_work_duration_seconds', q)).to.equal(ended);
      expect(metricValue(families, 'workqueue_retries_total', q)).to.equal(count(name, (e) => e.type === 'retrying'));
      // Settled: nothing waits, and every add was taken by exactly one run.
      expect(metricValue(families, 'workqueue_depth', q)).to.equal(0);
      expect(metricValue(families, 'workqueue_adds_total', q)).to.equal(count(name, (e) => e.type === 'started'));
      expect(metricValue(families, 'workqueue_unfinished_work_seconds', q)).to.equal(0);
      expect(metricValue(families, 'workqueue_longest_running_processor_seconds', q)).to.equal(0);
    }
    expect(count('pods', (e) => e.type === 'retrying')).to.equal(2);
    expect(metricValue(families, 'leader_election_master_status', { name: 'spec-manager' })).to.equal(1);
    for (const name of ['Pod v1 in default', 'ConfigMap v1 in default']) {
      expect(metricValue(families, 'reflector_lists_total', { name })).to.equal(1);
      expect(metricValue(families, 'reflector_relists_total', { name })).to.equal(0);
      expect(metricValue(families, 'reflector_watches_total', { name })).to.be.at.least(1);
      expect(metricValue(families, 'reflector_last_resource_version', { name })).to.be.greaterThan(0);
    }
    expect(await probe(addresses().health!.url, '/healthz')).to.deep.equal({ status: 200, body: 'ok' });
    expect(await probe(addresses().health!.url, '/readyz')).to.deep.equal({ status: 200, body: 'ok' });
  });

  it("logs one JSON line per reconcile outcome, and never the token or a Secret's data", async () => {
    const password = 'hunter2-correct-horse-battery';
    const secrets: ControllerDefinition = {
      name: 'secrets',
      start: (context) =>
        controller<V1Secret>({
          context,
          for: { resource: { apiVersion: 'v1', kind: 'Secret' }, options: { namespace: 'default' } },
          maxRetries: 0,
          reconcile: ({ object }) => {
            const value = Buffer.from(object?.data?.password ?? '', 'base64').toString('utf8');
            // The worst a reconcile can do: the value in the message, the object as the cause, the token in a header.
            throw new Error(`cannot use password ${value} (Authorization: Bearer ${TOKEN})`, {
              cause: { kind: 'Secret', data: object?.data, token: TOKEN },
            });
          },
        }),
    };
    start([pods, secrets]);
    await waitFor(() => events.some((e) => e.type === 'leading' && e.leading), 'leading', 10_000);
    await core.createNamespacedSecret({
      namespace: 'default',
      body: { metadata: { name: 'db' }, data: { password: Buffer.from(password).toString('base64') } },
    });
    await core.createNamespacedPod({ namespace: 'default', body: body('plain') });
    await core.createNamespacedPod({ namespace: 'default', body: body('flaky', { [FAIL]: '1' }) });
    await waitFor(
      () => count('secrets', (e) => e.type === 'dropped') === 1 && count('pods', (e) => e.type === 'succeeded') === 2,
      'the runs',
      10_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));

    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const outcomes = records.filter((r) => r.msg === 'reconciled' || r.msg === 'reconcile failed');
    expect(outcomes).to.have.length(
      count('pods', (e) => e.type === 'succeeded' || e.type === 'failed') +
        count('secrets', (e) => e.type === 'failed'),
    );
    const failure = outcomes.find((r) => r.controller === 'secrets')!;
    expect(failure).to.include({
      level: 'error',
      manager: 'spec-manager',
      key: 'default/db',
      attempt: 1,
      result: 'error',
      dropped: true,
    });
    expect(failure.reasons).to.deep.equal(['added Secret default/db']);
    expect(failure.durationMs).to.be.a('number');
    expect((failure.error as { stack: string }).stack).to.match(/^Error: cannot use password \[REDACTED\]/);
    const retried = outcomes.find((r) => r.key === 'default/flaky' && r.result === 'error')!;
    expect(retried).to.include({ controller: 'pods', attempt: 1, failures: 1 });
    expect(retried.retryInMs).to.be.a('number');
    const everything = lines.join('\n');
    for (const secret of [TOKEN, password, Buffer.from(password).toString('base64')])
      expect(everything).to.not.contain(secret);
    expect(everything).to.contain('[REDACTED]');
  });

  it('logs each distinct API warning once on its own log, a deprecated version warning on every list and watch', async () => {
    const extensions = cluster.kubeConfig.makeApiClient(ApiextensionsV1Api);
    const schema = { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } };
    await extensions.createCustomResourceDefinition({
      body: {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'gadgets.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
          versions: [
            { name: 'v1alpha1', served: true, storage: false, deprecated: true, schema },
            { name: 'v1', served: true, storage: true, schema },
          ],
        },
      },
    });
    const gadgets: ControllerDefinition = {
      name: 'gadgets',
      start: (context) => {
        const informer = context.informers.for(
          { apiVersion: 'example.com/v1alpha1', kind: 'Gadget' },
          { namespace: 'default' },
        );
        return informer.events$.pipe(
          toKeys(),
          context.reconcile(() => undefined, { lookup: informer }),
        );
      },
    };
    start([gadgets]);
    const warned = (): Record<string, unknown>[] =>
      lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((r) => r.msg === 'the API server sent a warning');
    await waitFor(
      () => warned().length > 0 && events.some((e) => e.type === 'informer' && e.status.state === 'watching'),
      'the warning and the watch',
      10_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(warned()).to.have.length(1);
    expect(warned()[0]).to.include({
      level: 'warn',
      manager: 'spec-manager',
      method: 'GET',
      path: '/apis/example.com/v1alpha1/namespaces/default/gadgets',
      warning: 'example.com/v1alpha1 Gadget is deprecated; use example.com/v1 Gadget',
    });
  });

  it('answers /readyz as informers sync, fail past the threshold and recover, and with its custom checks', async () => {
    let customReady = true;
    cluster.faults.latency(600);
    start([pods], {
      health: { host: '127.0.0.1', port: 0, informerFailureThreshold: 300, readyChecks: { custom: () => customReady } },
    });
    await waitFor(() => addresses().health !== undefined, 'the probe server', 10_000);
    const health = addresses().health!.url;
    const early = await probe(health, '/readyz');
    expect(early.status).to.equal(500);
    expect(early.body).to.contain('[-]informer Pod v1 in default failed: not synced');
    await waitFor(() => events.some((e) => e.type === 'ready' && e.ready), 'ready', 10_000);
    await waitFor(
      () => events.some((e) => e.type === 'informer' && e.status.state === 'watching'),
      'the watch',
      10_000,
    );
    expect((await probe(health, '/readyz?verbose')).body).to.contain(
      '[+]informer Pod v1 in default ok\n[+]custom ok\nreadyz check passed',
    );

    customReady = false;
    expect(await probe(health, '/readyz')).to.deep.equal({
      status: 500,
      body: '[+]started ok\n[+]shutdown ok\n[+]informer Pod v1 in default ok\n[-]custom failed: check returned false\nreadyz check failed\n',
    });
    customReady = true;

    cluster.faults.latency(0);
    cluster.faults.failNext({ count: 100_000, path: '/api/v1/namespaces/default/pods', status: 500 });
    cluster.faults.dropWatches({ mode: 'abrupt' });
    await waitFor(() => events.some((e) => e.type === 'ready' && !e.ready), 'unready after the threshold', 10_000);
    const failing = await probe(health, '/readyz');
    expect(failing.status).to.equal(500);
    expect(failing.body).to.match(/\[-\]informer Pod v1 in default failed: failing for \d+\.\d s: /);
    expect((await probe(health, '/healthz')).status).to.equal(200);

    cluster.faults.clear();
    await waitFor(
      () =>
        events.filter((e) => e.type === 'ready').at(-1)?.type === 'ready' &&
        (events.filter((e) => e.type === 'ready').at(-1) as { ready: boolean }).ready,
      'ready again',
      20_000,
    );
    expect((await probe(health, '/readyz')).status).to.equal(200);
  });
});
