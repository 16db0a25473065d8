import { expect } from 'chai';
import {
  ApiextensionsV1Api,
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  type KubernetesObject,
  type V1Pod,
  type V1ReplicaSet,
} from '@kubernetes/client-node';
import {
  asyncScheduler,
  concat,
  NEVER,
  of,
  Subject,
  takeUntil,
  timer,
  type MonoTypeOperatorFunction,
  type Observable,
  type Subscription,
} from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { controller, InformerHealthError, SyncTimeoutError } from '../../../src/controller/builder/index.js';
import { controllerContext, startController } from '../../../src/controller/context/index.js';
import { informerFactory, informerFromSource } from '../../../src/informer/index.js';
import type { ReconcileEvent } from '../../../src/controller/index.js';
import type { WatchEvent } from '../../../src/watch/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { waitFor } from '../../support/wait.js';

const pod = (name: string, owner?: string): V1Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace: 'default',
    resourceVersion: '1',
    ...(owner
      ? {
          ownerReferences: [
            { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: owner, uid: `uid-${owner}`, controller: true },
          ],
        }
      : {}),
  },
});
const replicaSet = (name: string): V1ReplicaSet => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name, namespace: 'default', resourceVersion: '1' },
  spec: { selector: {} } as never,
});

describe('controller()', () => {
  it('keys primary events by themselves and owned events by their controller owner, in virtual time', () => {
    new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    }).run(({ cold, expectObservable }) => {
      const rsSource = cold<WatchEvent<V1ReplicaSet>>('a(bc)', {
        a: { type: 'relistStarted' },
        b: { type: 'listed', object: replicaSet('web') },
        c: { type: 'relistDone', resourceVersion: '1' },
      });
      const podSource = cold<WatchEvent<V1Pod>>('ab---c', {
        a: { type: 'relistStarted' },
        b: { type: 'relistDone', resourceVersion: '1' },
        c: { type: 'added', object: pod('web-x1', 'web') },
      });
      const run$ = controller<V1ReplicaSet>({
        for: informerFromSource(rsSource),
        owns: [],
        watches: [
          {
            source: informerFromSource(podSource),
            map: (event) => (event.object.metadata?.ownerReferences ?? []).map((ref) => `default/${ref.name}`),
          },
        ],
        reconcile: () => undefined,
        globalRateLimiter: false,
      });
      expectObservable(run$.pipe(mapType()), '^ 10ms !').toBe('-(ab)(ab)', { a: 'started', b: 'succeeded' });
    });
  });

  it('holds reconciles until every informer it uses has synced', () => {
    new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    }).run(({ cold, expectObservable }) => {
      const rsSource = cold<WatchEvent<V1ReplicaSet>>('a(bc)', {
        a: { type: 'relistStarted' },
        b: { type: 'listed', object: replicaSet('web') },
        c: { type: 'relistDone', resourceVersion: '1' },
      });
      const podSource = cold<WatchEvent<V1Pod>>('a----b', {
        a: { type: 'relistStarted' },
        b: { type: 'relistDone', resourceVersion: '1' },
      });
      const run$ = controller<V1ReplicaSet>({
        for: informerFromSource(rsSource),
        watches: [{ source: informerFromSource(podSource), map: () => undefined }],
        reconcile: () => undefined,
      });
      expectObservable(run$.pipe(mapType()), '^ 10ms !').toBe('-----(ab)', { a: 'started', b: 'succeeded' });
    });
  });

  it('completes once stop$ has drained the run in flight, though its informers keep running', () => {
    new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    }).run(({ cold, hot, expectObservable }) => {
      const rsSource = cold<WatchEvent<V1ReplicaSet>>('a(bc)', {
        a: { type: 'relistStarted' },
        b: { type: 'listed', object: replicaSet('web') },
        c: { type: 'relistDone', resourceVersion: '1' },
      });
      const run$ = controller<V1ReplicaSet>({
        for: informerFromSource(concat(rsSource, NEVER)),
        reconcile: () => concat(NEVER).pipe(takeUntilTimer(5)),
        stop$: hot('---s'),
      });
      expectObservable(run$.pipe(mapType())).toBe('-a----(b|)', { a: 'started', b: 'succeeded' });
    });
  });

  it('takes its informers, gate, shutdown and error reporting from a context, and refuses the old ways to say where the cluster is', () => {
    new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    }).run(({ cold, hot, expectObservable }) => {
      const rsSource = cold<WatchEvent<V1ReplicaSet>>('a(bc)', {
        a: { type: 'relistStarted' },
        b: { type: 'listed', object: replicaSet('web') },
        c: { type: 'relistDone', resourceVersion: '1' },
      });
      const factory = informerFactory(new KubeConfig(), { source: (() => rsSource) as never });
      const gate = hot('g---o', { g: false, o: true });
      const context = controllerContext({
        name: 'rs',
        connection: new KubeConfig(),
        informers: factory,
        scheduler: asyncScheduler,
        random: Math.random,
        reportError: () => undefined,
        gate,
        leader$: gate,
        stop$: NEVER,
        drainTimeout: 30_000,
        recorder: undefined,
        onWarning: () => undefined,
      });
      const run$ = controller<V1ReplicaSet>({
        context,
        for: { apiVersion: 'apps/v1', kind: 'ReplicaSet' },
        reconcile: () => undefined,
      });
      expectObservable(run$.pipe(mapType()), '^ 10ms !').toBe('----(ab)', { a: 'started', b: 'succeeded' });
      expect(() =>
        controller<V1ReplicaSet>({
          context,
          informers: factory,
          for: { apiVersion: 'apps/v1', kind: 'ReplicaSet' },
          reconcile: () => undefined,
        } as never),
      ).to.throw(TypeError, /^controller: informers is no longer an option; pass the host's context as `context`/);
      expect(() =>
        controller<V1ReplicaSet>({
          kubeConfig: new KubeConfig(),
          connection: new KubeConfig(),
          for: { apiVersion: 'apps/v1', kind: 'ReplicaSet' },
          reconcile: () => undefined,
        } as never),
      ).to.throw(TypeError, /^controller: connection, kubeConfig are no longer an option/);
    });
  });

  it('rejects owns without a primary resource reference with a clear error', () => {
    expect(() =>
      controller({
        for: informerFromSource(new Subject<WatchEvent>()),
        owns: [{ apiVersion: 'v1', kind: 'Pod' }],
        reconcile: () => undefined,
      }),
    ).to.throw(TypeError, 'controller: pass a context to watch a resource by reference');
    expect(() =>
      controller({
        for: informerFromSource(new Subject<WatchEvent>()),
        owns: [informerFromSource(new Subject<WatchEvent>())],
        reconcile: () => undefined,
      }),
    ).to.throw(TypeError, 'controller: `owns` needs `for` given as a resource reference, to know the owner kind');
  });
});

describe('controller(): telling its user about its informers', () => {
  const neverSyncs = () =>
    cold$<WatchEvent<V1Pod>>([
      { type: 'status', status: { state: 'connecting' } },
      {
        type: 'status',
        status: { state: 'error', cause: { reason: 'NetworkError', message: 'connect ECONNREFUSED 127.0.0.1:1' } },
      },
    ]);

  it('reports a cache that has not synced within syncTimeout, naming the informer and its last status, and keeps waiting', () => {
    const reported: Error[] = [];
    new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    }).run(({ expectObservable }) => {
      const run$ = controller<V1Pod>({
        for: informerFromSource(neverSyncs()),
        reconcile: () => undefined,
        syncTimeout: 30_000,
        onError: (e) => reported.push(e),
      });
      expectObservable(run$, '^ 60s !').toBe('');
    });
    const timeouts = reported.filter((e) => e instanceof SyncTimeoutError);
    expect(timeouts.map((e) => e.message)).to.deep.equal([
      'caches not synced after 30000 ms: primary informer (error: NetworkError: connect ECONNREFUSED 127.0.0.1:1)',
    ]);
  });

  it('fails the stream with a SyncTimeoutError under failFast', () => {
    new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    }).run(({ expectObservable }) => {
      const run$ = controller<V1Pod>({
        for: informerFromSource(neverSyncs()),
        reconcile: () => undefined,
        syncTimeout: 10_000,
        failFast: true,
        onError: () => undefined,
      });
      expectObservable(run$).toBe(
        '10s #',
        undefined,
        new SyncTimeoutError(10_000, [
          {
            informer: 'primary informer',
            status: {
              state: 'error',
              cause: { reason: 'NetworkError', message: 'connect ECONNREFUSED 127.0.0.1:1' },
            },
          },
        ]),
      );
    });
  });

  it('reports an informer error once per reason until the informer recovers, and exposes health$ labelled', () => {
    const reported: Error[] = [];
    const health: string[] = [];
    const source = new Subject<WatchEvent<V1Pod>>();
    const error = (reason: string) => ({
      type: 'status' as const,
      status: { state: 'error' as const, cause: { reason, message: reason, code: 401 } },
    });
    const ctl = controller<V1Pod>({
      for: informerFromSource(source),
      reconcile: () => undefined,
      onError: (e) => reported.push(e),
    });
    const subscription = ctl.subscribe();
    ctl.health$.subscribe(({ informer, status }) => health.push(`${informer}: ${status.state}`));
    for (const event of [
      error('Unauthorized'),
      error('Unauthorized'),
      error('Forbidden'),
      { type: 'status' as const, status: { state: 'watching' as const, resourceVersion: '1' } },
      error('Unauthorized'),
    ]) {
      source.next(event);
    }
    subscription.unsubscribe();
    expect(reported.map((e) => [e.name, e.message])).to.deep.equal([
      ['InformerHealthError', 'informer primary informer: 401 Unauthorized: Unauthorized; retrying with backoff'],
      ['InformerHealthError', 'informer primary informer: 401 Forbidden: Forbidden; retrying with backoff'],
      ['InformerHealthError', 'informer primary informer: 401 Unauthorized: Unauthorized; retrying with backoff'],
    ]);
    expect(health).to.deep.equal([
      'primary informer: error',
      'primary informer: error',
      'primary informer: error',
      'primary informer: watching',
      'primary informer: error',
    ]);
  });

  it('rejects a syncTimeout that is not a positive number of ms', () => {
    expect(() =>
      controller({ for: informerFromSource(new Subject<WatchEvent>()), reconcile: () => undefined, syncTimeout: -1 }),
    ).to.throw(RangeError, /syncTimeout must be a number of ms > 0/);
  });
});

describe('controller(): unreachable and refusing clusters', function () {
  this.timeout(20000);

  it('reports a cluster that refuses connections by default instead of staying silent', async () => {
    const reported: Error[] = [];
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: 'closed', server: 'http://127.0.0.1:1', skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'c', cluster: 'closed', user: 'u' }],
      currentContext: 'c',
    });
    const subscription = startController(
      {
        name: 'pods',
        start: (context) =>
          controller<V1Pod>({
            context,
            for: { apiVersion: 'v1', kind: 'Pod' },
            reconcile: () => undefined,
            onError: (e) => reported.push(e),
          }),
      },
      { connection: kubeConfig },
    ).subscribe();
    try {
      await waitFor(() => reported.length > 0, 'a report of the refused connection');
      expect(reported[0]).to.be.instanceOf(InformerHealthError);
      expect(reported[0]!.message).to.match(/^informer Pod v1: NetworkError: .*ECONNREFUSED/);
    } finally {
      subscription.unsubscribe();
    }
  });

  it('reports a wrong token as 401 Unauthorized', async () => {
    const cluster = await startTestCluster({ token: 'right' });
    const reported: Error[] = [];
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: 'test', server: cluster.url, skipTLSVerify: true }],
      users: [{ name: 'u', token: 'wrong' }],
      contexts: [{ name: 'c', cluster: 'test', user: 'u' }],
      currentContext: 'c',
    });
    const subscription = startController(
      {
        name: 'pods',
        start: (context) =>
          controller<V1Pod>({
            context,
            for: { apiVersion: 'v1', kind: 'Pod' },
            reconcile: () => undefined,
            onError: (e) => reported.push(e),
          }),
      },
      { connection: kubeConfig },
    ).subscribe();
    try {
      await waitFor(() => reported.length > 0, 'a report of the refused token');
      expect(reported[0]!.message).to.match(/^informer Pod v1: 401 Unauthorized/);
    } finally {
      subscription.unsubscribe();
      await cluster.stop();
    }
  });

  it('keeps running when its CRD is not installed yet, and reconciles once it is', async () => {
    const cluster = await startTestCluster();
    const reported: Error[] = [];
    const reconciled: string[] = [];
    let failed: unknown;
    const subscription = startController(
      {
        name: 'widgets',
        start: (context) =>
          controller<KubernetesObject>({
            context,
            for: { apiVersion: 'example.com/v1', kind: 'Widget' },
            reconcile: ({ key }) => void reconciled.push(key),
            onError: (e) => reported.push(e),
          }),
      },
      { connection: cluster.kubeConfig },
    ).subscribe({ error: (e: unknown) => (failed = e) });
    try {
      await waitFor(() => reported.some((e) => /UnknownResource/.test(e.message)), 'the unknown kind to be reported');
      const ext = cluster.kubeConfig.makeApiClient(ApiextensionsV1Api);
      await ext.createCustomResourceDefinition({
        body: {
          metadata: { name: 'widgets.example.com' },
          spec: {
            group: 'example.com',
            scope: 'Namespaced',
            names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
            versions: [
              {
                name: 'v1',
                served: true,
                storage: true,
                schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } as never },
              },
            ],
          },
        },
      });
      const custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
      await custom.createNamespacedCustomObject({
        group: 'example.com',
        version: 'v1',
        namespace: 'default',
        plural: 'widgets',
        body: {
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          metadata: { name: 'w1' },
        },
      });
      await waitFor(
        () => reconciled.includes('default/w1'),
        'the widget to be reconciled once its CRD is served',
        15_000,
      );
      expect(failed).to.equal(undefined);
    } finally {
      subscription.unsubscribe();
      await cluster.stop();
    }
  });
});

describe('controller() against the in-memory API server', function () {
  this.timeout(20000);
  let cluster: TestCluster;
  let subscription: Subscription | undefined;

  before(async () => {
    cluster = await startTestCluster();
  });
  after(async () => {
    subscription?.unsubscribe();
    await cluster.stop();
  });

  it('reconciles a ReplicaSet when a pod it controls changes, reading the ReplicaSet from the store', async () => {
    const reconciled: Array<{ key: string; name: string | undefined }> = [];
    const events: ReconcileEvent[] = [];
    subscription = startController(
      {
        name: 'replicasets',
        start: (context) =>
          controller<V1ReplicaSet>({
            context,
            for: { apiVersion: 'apps/v1', kind: 'ReplicaSet' },
            owns: [{ apiVersion: 'v1', kind: 'Pod' }],
            reconcile: ({ key, object }) => {
              reconciled.push({ key, name: object?.metadata?.name });
            },
          }),
      },
      { connection: cluster.kubeConfig },
    ).subscribe((event) => events.push(event));

    const apps = cluster.kubeConfig.makeApiClient(AppsV1Api);
    const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    const rs = await apps.createNamespacedReplicaSet({
      namespace: 'default',
      body: {
        metadata: { name: 'web' },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
        },
      },
    });
    await waitFor(() => reconciled.length === 1, 'the ReplicaSet reconcile', 10000);
    await core.createNamespacedPod({
      namespace: 'default',
      body: {
        metadata: {
          name: 'web-1',
          labels: { app: 'web' },
          ownerReferences: [
            { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs.metadata!.uid!, controller: true },
          ],
        },
        spec: { containers: [{ name: 'c', image: 'i' }] },
      },
    });
    await waitFor(() => reconciled.length === 2, 'the reconcile triggered by the owned pod', 10000);
    expect(reconciled).to.deep.equal([
      { key: 'default/web', name: 'web' },
      { key: 'default/web', name: 'web' },
    ]);
    const started = events.filter((event) => event.type === 'started');
    expect(started.map((event) => event.type === 'started' && event.reasons[0])).to.deep.equal([
      'added ReplicaSet default/web',
      'added Pod default/web-1',
    ]);
  });
});

/** A source that emits `events` at subscription and then stays open. */
function cold$<E>(events: E[]): Observable<E> {
  return concat(of(...events), NEVER);
}

function mapType() {
  return (source: import('rxjs').Observable<ReconcileEvent>) =>
    new (source.constructor as typeof import('rxjs').Observable<string>)((subscriber) =>
      source.subscribe({
        next: (event) => subscriber.next(event.type),
        error: (e) => subscriber.error(e),
        complete: () => subscriber.complete(),
      }),
    );
}

/** Ends a never-ending run after `ms` virtual ms with a value (success). */
function takeUntilTimer<T>(ms: number): MonoTypeOperatorFunction<T> {
  return (source) => concat(source.pipe(takeUntil(timer(ms))), of(undefined as T));
}
