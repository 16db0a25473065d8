/**
 * Three bugs Sieve (OSDI '22) found in real operators, one per class, reproduced as small controllers with the same
 * flaw over ConfigMaps (pods, volumes and stateful sets played by ConfigMaps of those names). `simulate` finds each
 * from a seeded run of at most 200 cases, shrinks it and replays it exactly.
 */
import { expect } from 'chai';
import type { V1ConfigMap } from '@kubernetes/client-node';
import * as fc from 'fast-check';
import { concat, defer, EMPTY, of, tap, toArray } from 'rxjs';
import { reconcile, toKeys, type ControllerContext, type ControllerDefinition } from '../../../src/index.js';
import {
  simulate,
  type SimulateOptions,
  type SimulationWorld,
  type Workload,
  type WorkloadStep,
} from '../../../src/testing/index.js';
import { CONFIG_MAP, config } from './config-maps.js';

const inDefault = (world: SimulationWorld): V1ConfigMap[] => world.server(CONFIG_MAP, 'default') as V1ConfigMap[];

/** The ConfigMaps of the default namespace: the informer, its current lookup, and a client. */
function configMaps({ informers, client }: ControllerContext) {
  const informer = informers.for<V1ConfigMap>(CONFIG_MAP, { namespace: 'default' });
  return {
    informer,
    get: (name: string) => informer.current().get(`default/${name}`),
    client: client<V1ConfigMap>(CONFIG_MAP).inNamespace('default'),
  };
}

/** Checks that `simulate` catches `definition`, shrinks it, and that `{ seed, path }` replays the same trace. */
function expectCaught(definition: ControllerDefinition, options: SimulateOptions, violation: RegExp, maxSteps: number) {
  const report = simulate(definition, options);
  expect(report.ok, 'the bug was not found').to.equal(false);
  const failure = report.failure!;
  expect(failure.violations.join('\n')).to.match(violation);
  expect(failure.steps.length).to.be.at.most(maxSteps);
  const again = simulate(definition, { ...options, seed: failure.seed, path: failure.path });
  expect(again.failure!.trace.join('\n')).to.equal(failure.trace.join('\n'));
  return failure;
}

describe('simulate: published bugs (Sieve, OSDI 22)', function () {
  this.timeout(180_000);

  /**
   * rabbitmq/cluster-operator#782 (intermediate state): to grow a cluster's persistent volumes, the operator
   * updates the volume claims, then the StatefulSet; restarted between the two, it finds the claims already at the
   * new size, concludes that nothing is left to do, and the StatefulSet keeps the old size for good.
   */
  describe('rabbitmq/cluster-operator#782: a crash between growing the volumes and updating the StatefulSet', () => {
    const operator: ControllerDefinition = {
      name: 'rabbitmq',
      start: (context) => {
        const { informer, get, client } = configMaps(context);
        return informer.events$.pipe(
          toKeys(),
          reconcile(
            ({ key, object }) => {
              const name = key.split('/')[1]!;
              if (object === undefined || name.includes('-')) return EMPTY;
              const size = object.data?.['storage'] ?? '10Gi';
              const pvc = get(`${name}-pvc`);
              // The flaw: the claims' size stands for the whole rollout.
              if (pvc?.data?.['storage'] === size) return EMPTY;
              const pvcWrite = pvc
                ? client.patch(`${name}-pvc`, { type: 'merge', body: { data: { storage: size } } })
                : client.create(config(`${name}-pvc`, { storage: size }));
              const sts = get(`${name}-sts`);
              const stsWrite = sts
                ? client.patch(`${name}-sts`, { type: 'merge', body: { data: { storage: size } } })
                : client.create(config(`${name}-sts`, { storage: size }));
              return concat(
                defer(() => pvcWrite),
                defer(() => stsWrite),
              ).pipe(toArray());
            },
            { lookup: informer, gate: informer.synced$, scheduler: context.scheduler },
          ),
        );
      },
    };
    const clusters: Workload<V1ConfigMap> = {
      resource: CONFIG_MAP,
      minSteps: 1,
      maxSteps: 4,
      step: fc.oneof(
        fc.constant<WorkloadStep<V1ConfigMap>>({ op: 'create', object: config('rmq', { storage: '10Gi' }) }),
        fc.constantFrom('15Gi', '20Gi').map(
          (storage): WorkloadStep<V1ConfigMap> => ({
            op: 'update',
            name: 'rmq',
            namespace: 'default',
            patch: { data: { storage } },
          }),
        ),
      ),
    };
    /** The StatefulSet asks for the size the cluster asks for. */
    const statefulSetInLine = (world: SimulationWorld): true | string => {
      const objects = inDefault(world);
      const cluster = objects.find((c) => c.metadata?.name === 'rmq');
      const sts = objects.find((c) => c.metadata?.name === 'rmq-sts');
      if (cluster === undefined) return true;
      return (
        sts?.data?.['storage'] === (cluster.data?.['storage'] ?? '10Gi') ||
        `the StatefulSet asks for ${sts?.data?.['storage']}, the cluster for ${cluster.data?.['storage']}`
      );
    };

    it('is found within 200 cases, shrunk to the write it crashed at, and replayed', () => {
      const failure = expectCaught(
        operator,
        {
          seed: 782,
          runs: 200,
          duration: 20_000,
          settle: 10_000,
          workload: clusters,
          faults: { kinds: ['crash'], min: 1, max: 2 },
          invariants: { desired: statefulSetInLine },
        },
        /^desired state does not hold: the StatefulSet asks for \S+, the cluster for \S+$/,
        4,
      );
      expect(failure.trace.some((line) => / controller crashed at /.test(line))).to.equal(true);
    });
  });

  /**
   * instaclustr/cassandra-operator#398 (unobserved state): the operator deletes a Cassandra pod's volume claim when
   * it sees the pod deleted. A pod deleted and created again before the operator looks is never seen deleted: the
   * new pod gets the old pod's claim, and its data.
   */
  describe("instaclustr/cassandra-operator#398: a pod recreated unseen inherits the old pod's volume", () => {
    const operator: ControllerDefinition = {
      name: 'cassandra',
      start: (context) => {
        const { informer, get, client } = configMaps(context);
        return informer.events$.pipe(
          // The flaw: the claim's cleanup hangs on seeing the deletion.
          tap((event) => {
            const name = event.key.split('/')[1]!;
            if (event.type === 'deleted' && name.startsWith('pod-'))
              client.delete(`pvc-${name.slice(4)}`).subscribe({ error: () => undefined });
          }),
          toKeys(),
          reconcile(
            ({ key, object }) => {
              const name = key.split('/')[1]!;
              if (object === undefined || !name.startsWith('pod-') || get(`pvc-${name.slice(4)}`) !== undefined)
                return EMPTY;
              return client.create(config(`pvc-${name.slice(4)}`, { pod: object.metadata!.uid! }));
            },
            { lookup: informer, gate: informer.synced$, scheduler: context.scheduler },
          ),
        );
      },
    };
    const pods: Workload<V1ConfigMap> = {
      resource: CONFIG_MAP,
      maxSteps: 8,
      step: fc.oneof(
        fc
          .constantFrom('pod-0', 'pod-1')
          .map((name): WorkloadStep<V1ConfigMap> => ({ op: 'create', object: config(name) })),
        fc
          .constantFrom('pod-0', 'pod-1')
          .map((name): WorkloadStep<V1ConfigMap> => ({ op: 'delete', name, namespace: 'default' })),
      ),
    };
    /** Every claim belongs to the pod of its name that lives now. */
    const claimsOfLivePods = (world: SimulationWorld): true | string => {
      const objects = inDefault(world);
      const wrong = objects
        .filter((c) => c.metadata?.name?.startsWith('pvc-'))
        .filter((pvc) => {
          const pod = objects.find((c) => c.metadata?.name === `pod-${pvc.metadata!.name!.slice(4)}`);
          return pod !== undefined && pod.metadata?.uid !== pvc.data?.['pod'];
        })
        .map((pvc) => pvc.metadata?.name);
      return wrong.length === 0 || `claims of pods gone: ${wrong.join(', ')}`;
    };

    it('is found within 200 cases, shrunk to a few steps, and replayed', () => {
      const failure = expectCaught(
        operator,
        {
          seed: 398,
          runs: 200,
          duration: 20_000,
          settle: 5_000,
          workload: pods,
          faults: { kinds: ['mergeEvents'], min: 1, max: 3 },
          invariants: { desired: claimsOfLivePods },
        },
        /^desired state does not hold: claims of pods gone: pvc-\d$/,
        6,
      );
      expect(failure.steps.some((step) => / fault mergeEvents /.test(step))).to.equal(true);
    });
  });

  /**
   * instaclustr/cassandra-operator#402 (stale state): served by a lagging apiserver, the operator does not find a
   * pod that exists, and deletes its volume claim as an orphan. Claims come first, as a StatefulSet makes them; an
   * orphan is a claim without its pod for more than 5 s.
   */
  describe('instaclustr/cassandra-operator#402: a lagging apiserver hides a live pod, and its volume is deleted', () => {
    const GRACE = 5_000;
    const operator: ControllerDefinition = {
      name: 'cassandra',
      start: (context) => {
        const { informer, get, client } = configMaps(context);
        return informer.events$.pipe(
          toKeys(),
          reconcile(
            ({ key, object }) => {
              const name = key.split('/')[1]!;
              if (object === undefined || !name.startsWith('pvc-') || get(`pod-${name.slice(4)}`) !== undefined)
                return EMPTY;
              const age = context.scheduler.now() - Date.parse(object.metadata!.creationTimestamp as unknown as string);
              if (age < GRACE) return of({ requeueAfter: GRACE - age });
              // The flaw: the cache's word is taken for the truth, and the delete carries no precondition.
              return client.delete(name);
            },
            { lookup: informer, gate: informer.synced$, scheduler: context.scheduler },
          ),
        );
      },
    };
    const create = (prefix: string): Workload<V1ConfigMap> => ({
      resource: CONFIG_MAP,
      minSteps: 1,
      maxSteps: 2,
      step: fc
        .constantFrom('0', '1')
        .map((i): WorkloadStep<V1ConfigMap> => ({ op: 'create', object: config(`${prefix}-${i}`) })),
    });

    it('is found within 200 cases by the no-destructive-action oracle, shrunk, and replayed', () => {
      const failure = expectCaught(
        operator,
        {
          seed: 402,
          runs: 200,
          duration: 20_000,
          settle: 10_000,
          workload: [create('pvc'), create('pod')],
          faults: { kinds: ['staleView'], min: 1, max: 2 },
          invariants: { noStaleDeletes: true },
        },
        /^no destructive action on stale reads does not hold: DELETE \/api\/v1\/namespaces\/default\/configmaps\/pvc-\d at \d+ ms .*with a true view it was never deleted$/,
        4,
      );
      expect(failure.steps.some((step) => / fault staleView /.test(step))).to.equal(true);
    });
  });
});
