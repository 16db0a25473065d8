import { expect } from 'chai';
import {
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  type KubernetesObject,
  type V1ConfigMap,
  type V1Namespace,
} from '@kubernetes/client-node';
import { asyncScheduler, NEVER, Observable, of, throwError, type SchedulerLike, type Subscription } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { controller } from '../../../src/controller/builder/index.js';
import { controllerContext, startController, type ControllerContext } from '../../../src/controller/context/index.js';
import type { ReconcileEvent } from '../../../src/controller/index.js';
import { informerFactory, type DeltaSource, type InformerFactory } from '../../../src/informer/index.js';
import { ApiError, type Transport } from '../../../src/transport/index.js';
import type { ResourceRef, WatchEvent } from '../../../src/watch/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { waitFor } from '../../support/wait.js';

const owner = (kind: string, name: string, apiVersion = 'v1') => ({
  apiVersion,
  kind,
  name,
  uid: `uid-${name}`,
  controller: true,
});
const namespace = (name: string): V1Namespace => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, resourceVersion: '1' },
});
const configMap = (name: string, ns: string, ownerReferences: ReturnType<typeof owner>[]): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns, resourceVersion: '2', ownerReferences },
});

/** A context over `informers`, always open, never stopping. */
function contextOf(informers: InformerFactory, scheduler: SchedulerLike = asyncScheduler): ControllerContext {
  return controllerContext({
    name: 'owners',
    connection: new KubeConfig(),
    informers,
    scheduler,
    random: Math.random,
    reportError: () => undefined,
    gate: of(true),
    leader$: of(true),
    stop$: NEVER,
    drainTimeout: 30_000,
    recorder: undefined,
    onWarning: () => undefined,
  });
}

/** A delta source playing one cold marble per kind. */
function byKind(
  helpers: { cold: TestScheduler['createColdObservable'] },
  marbles: Record<string, [string, Record<string, WatchEvent>]>,
): DeltaSource {
  return ((resource: ResourceRef) => {
    const [marble, values] = marbles[resource.kind]!;
    return helpers.cold(marble, values);
  }) as DeltaSource;
}

function virtual(
  body: (helpers: { cold: TestScheduler['createColdObservable']; scheduler: TestScheduler; flush: () => void }) => void,
): void {
  const scheduler = new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
  scheduler.run(({ cold, flush }) => body({ cold, scheduler, flush }));
}

/** What each run saw: `<time> <key> found|deleted`. */
function runs(events: string[], scheduler: TestScheduler) {
  return ({ key, object }: { key: string; object: unknown }): undefined => {
    events.push(`${scheduler.now()} ${key} ${object === undefined ? 'deleted' : 'found'}`);
    return undefined;
  };
}

describe("controller({ for, owns }): the owner kind's scope", () => {
  it('wakes a cluster-scoped owner by its name when a namespaced child changes: a ConfigMap owned by its Namespace', () => {
    const seen: string[] = [];
    virtual(({ cold, scheduler, flush }) => {
      const informers = informerFactory(new KubeConfig(), {
        source: byKind(
          { cold },
          {
            Namespace: [
              'a(bc)',
              {
                a: { type: 'relistStarted' },
                b: { type: 'listed', object: namespace('team-a') },
                c: { type: 'relistDone', resourceVersion: '1' },
              },
            ],
            ConfigMap: [
              '(ab)----c',
              {
                a: { type: 'relistStarted' },
                b: { type: 'relistDone', resourceVersion: '1' },
                c: { type: 'added', object: configMap('settings', 'team-a', [owner('Namespace', 'team-a')]) },
              },
            ],
          },
        ),
      });
      const subscription = controller<V1Namespace>({
        context: contextOf(informers, scheduler),
        for: { apiVersion: 'v1', kind: 'Namespace' },
        owns: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
        reconcile: runs(seen, scheduler),
      }).subscribe();
      scheduler.schedule(() => subscription.unsubscribe(), 100);
      flush();
    });
    // Before: the child keyed `team-a/team-a`, which is no Namespace, so the run saw its owner "deleted".
    expect(seen).to.deep.equal(['1 team-a found', '8 team-a found']);
  });

  it('asks discovery for a custom owner kind, holding runs and owned events until it answers, and reports each failure', () => {
    const seen: string[] = [];
    const reported: string[] = [];
    virtual(({ cold, scheduler, flush }) => {
      // Discovery of example.com/v1 fails until 2.5 s, then says that Tenants are cluster-scoped.
      const discovery: Transport = {
        get: (path) =>
          new Observable((subscriber) => {
            if (path !== '/apis/example.com/v1') return subscriber.error(new Error(`unexpected GET ${path}`));
            if (scheduler.now() < 2_500)
              return subscriber.error(new ApiError(503, 'ServiceUnavailable', 'etcd is away'));
            subscriber.next({ resources: [{ name: 'tenants', kind: 'Tenant', namespaced: false }] });
            subscriber.complete();
            return undefined;
          }),
        watch: () => throwError(() => new Error('no watch')),
        request: () => throwError(() => new Error('no request')),
      };
      const tenant = { apiVersion: 'example.com/v1', kind: 'Tenant', metadata: { name: 't1', resourceVersion: '1' } };
      const informers = informerFactory(discovery, {
        source: byKind(
          { cold },
          {
            Tenant: [
              'a(bc)',
              {
                a: { type: 'relistStarted' },
                b: { type: 'listed', object: tenant },
                c: { type: 'relistDone', resourceVersion: '1' },
              },
            ],
            ConfigMap: [
              '(ab)----c',
              {
                a: { type: 'relistStarted' },
                b: { type: 'relistDone', resourceVersion: '1' },
                c: { type: 'added', object: configMap('quota', 'default', [owner('Tenant', 't1', 'example.com/v1')]) },
              },
            ],
          },
        ),
      });
      const subscription = controller<KubernetesObject>({
        context: contextOf(informers, scheduler),
        for: { apiVersion: 'example.com/v1', kind: 'Tenant' },
        owns: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
        reconcile: runs(seen, scheduler),
        onError: (error) => reported.push(`${scheduler.now()} ${error.message}`),
      }).subscribe();
      scheduler.schedule(() => subscription.unsubscribe(), 10_000);
      flush();
    });
    expect(reported).to.deep.equal([
      '1 controller: the scope of Tenant example.com/v1 is unknown, so the owners of its owned objects are not keyed and no reconcile ' +
        'starts yet: etcd is away; retrying',
    ]);
    // Asked at 1 (synced), 1001 and 3001 (1 s, then 2 s later). Nothing ran before: the Tenant's own trigger waited
    // at the gate, and the ConfigMap added at 8 was replayed by its informer once the scope was known.
    expect(seen).to.deep.equal(['3001 t1 found', '3001 t1 found']);
  });

  it('refuses, when it is built, a custom owner kind that a hand-made informer factory cannot resolve', () => {
    const factory = informerFactory(new KubeConfig());
    const handMade: InformerFactory = { for: (resource, options) => factory.for(resource, options), active: 0 };
    expect(() =>
      controller({
        context: contextOf(handMade),
        for: { apiVersion: 'example.com/v1', kind: 'Tenant' },
        owns: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
        reconcile: () => undefined,
      }),
    ).to.throw(TypeError, /cannot tell whether Tenant example\.com\/v1 is cluster-scoped .* no resolve\(\)/);
    expect(() =>
      controller({
        context: contextOf(handMade),
        for: { apiVersion: 'apps', kind: 'ReplicaSet' },
        owns: [{ apiVersion: 'v1', kind: 'Pod' }],
        reconcile: () => undefined,
      }),
    ).to.throw(TypeError, /neither group\/version nor a core version/);
  });
});

describe('controller({ for, owns }) with a cluster-scoped custom owner, against the in-memory API server', function () {
  this.timeout(20_000);
  let cluster: TestCluster;
  let subscription: Subscription | undefined;

  before(async () => {
    cluster = await startTestCluster();
  });
  after(async () => {
    subscription?.unsubscribe();
    await cluster.stop();
  });

  it("reconciles the Tenant that controls a ConfigMap by the Tenant's name, reading it from the store", async () => {
    const ext = cluster.kubeConfig.makeApiClient(ApiextensionsV1Api);
    await ext.createCustomResourceDefinition({
      body: {
        metadata: { name: 'tenants.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Cluster',
          names: { plural: 'tenants', singular: 'tenant', kind: 'Tenant' },
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
    const tenant = (await custom.createClusterCustomObject({
      group: 'example.com',
      version: 'v1',
      plural: 'tenants',
      body: { apiVersion: 'example.com/v1', kind: 'Tenant', metadata: { name: 't1' } },
    })) as KubernetesObject;
    const seen: string[] = [];
    const events: ReconcileEvent[] = [];
    subscription = startController(
      {
        name: 'tenants',
        start: (context) =>
          controller<KubernetesObject>({
            context,
            for: { apiVersion: 'example.com/v1', kind: 'Tenant' },
            owns: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
            reconcile: ({ key, object }) => void seen.push(`${key} ${object === undefined ? 'deleted' : 'found'}`),
          }),
      },
      { connection: cluster.kubeConfig, events: false },
    ).subscribe((event) => events.push(event));
    await waitFor(() => seen.length === 1, 'the Tenant reconcile', 10_000);
    await cluster.kubeConfig.makeApiClient(CoreV1Api).createNamespacedConfigMap({
      namespace: 'default',
      body: {
        metadata: {
          name: 'quota',
          ownerReferences: [
            { apiVersion: 'example.com/v1', kind: 'Tenant', name: 't1', uid: tenant.metadata!.uid!, controller: true },
          ],
        },
      },
    });
    await waitFor(() => seen.length === 2, 'the reconcile the owned ConfigMap triggers', 10_000);
    expect(seen).to.deep.equal(['t1 found', 't1 found']);
    const started = events.filter((event) => event.type === 'started');
    expect(started.map((event) => event.type === 'started' && event.reasons[0])).to.deep.equal([
      'added Tenant t1',
      'added ConfigMap default/quota',
    ]);
  });
});
