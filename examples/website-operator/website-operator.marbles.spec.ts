/**
 * The website operator under the manager, on a virtual cluster in virtual time (1 frame = 1 ms): the real
 * `manager(...)` with leader election on a real Lease, the operator's informers, applies, status writes and Events
 * against the in-memory server, whose writes take 1 ms and whose Lease and Event requests take 10, the DNS records in
 * memory, so the order and the timing of every request, retry and requeue are exact.
 */
import { expect } from 'chai';
import type { KubernetesObject, V1ConfigMap, V1Deployment, V1Service } from '@kubernetes/client-node';
import type { RunHelpers, TestScheduler } from 'rxjs/testing';
import { manager, resourceClient } from '../../src/index.js';
import { virtualCluster, type VirtualCluster } from '../../src/testing/index.js';
import {
  inVirtualTime,
  recordingLogger,
  requestTimeline,
  subscribeTimeline,
  virtualManagerOptions,
} from '../shared/virtual-time.js';
import { websiteController } from './controller.js';
import { websiteCrd } from './crd.js';
import { memoryRecords, type RecordStore } from './records.js';
import { batchedRemovals } from './spec-helpers.js';
import { CONFIG_MAP, DEPLOYMENT, RECORD_FINALIZER, SERVICE, WEBSITE, WEBSITE_GROUP, type Website } from './website.js';

const CONFIG_MAPS = '/api/v1/namespaces/default/configmaps';
const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';
const SERVICES = '/api/v1/namespaces/default/services';
const LEASE = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' };

/** The path of a Website. */
const websitePath = (namespace: string, name: string): string =>
  `/apis/${WEBSITE_GROUP}/v1alpha1/namespaces/${namespace}/websites/${name}`;

/** A Website in `default`, to store before the run. */
function website(
  name: string,
  spec: Website['spec'],
  metadata: Partial<NonNullable<Website['metadata']>> = {},
): Website {
  return {
    apiVersion: WEBSITE.apiVersion,
    kind: WEBSITE.kind,
    metadata: { name, namespace: 'default', ...metadata },
    spec,
  };
}

interface Run {
  readonly cluster: VirtualCluster;
  /** `<arrival time> <METHOD> <path>` per request of the operator to Websites, Deployments, Services and ConfigMaps. */
  readonly lines: string[];
  /** `<time> <event>` for what the manager emitted. */
  readonly timeline: string[];
  readonly logger: ReturnType<typeof recordingLogger>;
  /** `<time> <line>` for what the operator printed. */
  readonly printed: string[];
  readonly records: ReturnType<typeof memoryRecords>;
}

/**
 * Runs the operator (resync every `resyncPeriodMs`, default 1000) under a manager with leader election as `me` on a
 * virtual cluster holding the Website CRD and `objects`, until `until`; `prepare` drives the cluster before the
 * manager starts and at later times.
 */
function run(
  helpers: RunHelpers & { scheduler: TestScheduler },
  until: number,
  setup: {
    readonly objects?: readonly KubernetesObject[];
    readonly prepare?: (cluster: VirtualCluster) => void;
    readonly resyncPeriodMs?: number;
    /** The record store the operator is given, around the memory one the run returns (default: that one). */
    readonly records?: (records: RecordStore, scheduler: TestScheduler) => RecordStore;
  } = {},
): Run {
  const { scheduler } = helpers;
  const cluster = virtualCluster({
    scheduler,
    // Reads are answered at once, writes in 1 ms; the Lease and the Events, as a busier part of the server, in 10.
    latency: (request) =>
      /^\/apis\/(coordination|events)\.k8s\.io\//.test(request.path) ? 10 : request.method === 'GET' ? 0 : 1,
  });
  cluster.seed([websiteCrd()]);
  cluster.seed(setup.objects ?? []);
  setup.prepare?.(cluster);
  const requests = requestTimeline(
    scheduler,
    cluster.requestLog,
    (r) =>
      r.userAgent !== 'kubectl' &&
      r.verb !== 'list' &&
      r.verb !== 'watch' &&
      ['websites', 'deployments', 'services', 'configmaps'].includes(r.resource ?? ''),
  );
  const printed: string[] = [];
  const records = memoryRecords();
  const operator = websiteController({
    records: setup.records?.(records, scheduler) ?? records,
    resyncPeriodMs: setup.resyncPeriodMs ?? 1000,
    print: (line) => printed.push(`${scheduler.now()} ${line}`),
  });
  const timeline: string[] = [];
  const logger = recordingLogger(scheduler);
  const subscription = subscribeTimeline(
    manager({
      connection: cluster,
      controllers: [operator],
      ...virtualManagerOptions(scheduler, logger, []),
      events: { reportingController: 'example.rxkube.io/website-operator', random: () => 0 },
    }),
    scheduler,
    timeline,
  );
  scheduler.schedule(() => subscription.unsubscribe(), until);
  // Unsubscribing releases the Lease: the cluster closes once that write is answered.
  scheduler.schedule(() => cluster.close(), until + 20);
  return { cluster, lines: requests.lines, timeline, logger, printed, records };
}

const stored = <T extends KubernetesObject>(
  cluster: VirtualCluster,
  resource: { apiVersion: string; kind: string },
  name: string,
): T | undefined => cluster.list(resource, 'default').find((object) => object.metadata?.name === name) as T | undefined;

/**
 * The operator's specs, run against the example and against its planted bug (`batchedRemovals`: removals
 * acknowledged once queued), which they cannot tell apart: nothing crashes here.
 */
function operatorSpecs(records?: (records: RecordStore, scheduler: TestScheduler) => RecordStore): void {
  const runWith: typeof run = (helpers, until, setup = {}) =>
    run(helpers, until, { ...setup, ...(records ? { records } : {}) });

  it('waits for leadership and every cache, then adds the finalizer, applies ConfigMap, Deployment and Service in order, publishes the record, writes status, and requeues after the resync period', () => {
    inVirtualTime((helpers) => {
      const { cluster, lines, timeline, printed, records } = runWith(helpers, 1500, {
        objects: [website('blog', { content: '<h1>Blog</h1>' })],
      });
      helpers.flush();

      // Leadership comes at 20 (the Lease server answers in 10 ms); each write takes 1 ms.
      const run1 = [
        `20 PATCH ${websitePath('default', 'blog')}`,
        `21 PATCH ${CONFIG_MAPS}/blog-content`,
        `22 PATCH ${DEPLOYMENTS}/blog`,
        `23 PATCH ${SERVICES}/blog`,
        `24 PATCH ${websitePath('default', 'blog')}/status`,
      ];
      // The watch delivers the owned objects it created during run 1, so the key runs once more at once (as
      // controller-runtime's does): every apply is answered unchanged, and the status is not written again.
      const run2 = [
        `25 PATCH ${CONFIG_MAPS}/blog-content`,
        `26 PATCH ${DEPLOYMENTS}/blog`,
        `27 PATCH ${SERVICES}/blog`,
      ];
      // The resync, 1000 ms after the last run: the same again (the DNS record is checked too).
      const resync = [
        `1028 PATCH ${CONFIG_MAPS}/blog-content`,
        `1029 PATCH ${DEPLOYMENTS}/blog`,
        `1030 PATCH ${SERVICES}/blog`,
      ];
      expect(lines).to.deep.equal([...run1, ...run2, ...resync]);
      expect(timeline.filter((line) => line.includes('websites:'))).to.deep.equal([
        // Run 1 asks for the resync; the fresh triggers run it at once instead.
        '20 websites: started default/blog#1',
        '25 websites: succeeded default/blog',
        '25 websites: requeued default/blog +0',
        '25 websites: started default/blog#1',
        '28 websites: succeeded default/blog',
        '28 websites: requeued default/blog +1000',
        '1028 websites: started default/blog#1',
        '1031 websites: succeeded default/blog',
        '1031 websites: requeued default/blog +1000',
      ]);
      expect(printed).to.deep.equal([
        '22 Normal Created website default/blog: created ConfigMap blog-content',
        '23 Normal Created website default/blog: created Deployment blog',
        '24 Normal Created website default/blog: created Service blog',
        // An A record to the cluster IP the server allocated to the Service.
        `24 Normal RecordWritten website default/blog: created DNS record blog.default.websites.example.test A ${stored<V1Service>(cluster, SERVICE, 'blog')!.spec!.clusterIP} (memory:default/blog)`,
        '25 Normal RollingOut website default/blog: Waiting for deployment "blog" spec update to be observed...',
      ]);
      // The owner reference names the Website by kind and uid, as the garbage collector follows it.
      const blog = stored<Website>(cluster, WEBSITE, 'blog')!;
      expect(stored(cluster, CONFIG_MAP, 'blog-content')!.metadata?.ownerReferences).to.deep.equal([
        {
          apiVersion: WEBSITE.apiVersion,
          kind: 'Website',
          name: 'blog',
          uid: blog.metadata!.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      expect(blog.metadata?.finalizers).to.deep.equal([RECORD_FINALIZER]);
      expect(blog.status?.conditions?.map((c) => `${c.type}=${c.status} ${c.lastTransitionTime}`)).to.deep.equal([
        'Ready=False 1970-01-01T00:00:00Z',
        'Progressing=True 1970-01-01T00:00:00Z',
        'Degraded=False 1970-01-01T00:00:00Z',
      ]);
      expect([...records.texts.keys()]).to.deep.equal(['memory:default/blog']);
    });
  });

  it('re-runs exactly the Websites whose defaults ConfigMap changed, when its data changes', () => {
    inVirtualTime((helpers) => {
      const carrying = { finalizers: [RECORD_FINALIZER] };
      const websites = [
        website('a', { content: 'a' }, carrying),
        website('b', { content: 'b' }, carrying),
        website('c', { content: 'c', defaultsConfigMap: 'other' }, carrying),
      ];
      const defaults: V1ConfigMap = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'website-defaults', namespace: 'default' },
        data: { image: 'nginx:1' },
      };
      const other: V1ConfigMap = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'other', namespace: 'default' },
        data: { image: 'httpd:2' },
      };
      /** Replaces the defaults ConfigMap with `change` made to it, as `kubectl edit` would. */
      const edit = (cluster: VirtualCluster, change: (configMap: V1ConfigMap) => V1ConfigMap) => () => {
        cluster.update([change(stored<V1ConfigMap>(cluster, CONFIG_MAP, 'website-defaults')!)]);
      };
      // A resync period longer than the run, so only the ConfigMap can start the runs at 1000.
      const { timeline, logger, cluster } = runWith(helpers, 1010, {
        objects: websites,
        resyncPeriodMs: 60_000,
        prepare: (c) => {
          // Created once the Website cache has synced, so each maps to its users at once.
          helpers.scheduler.schedule(() => c.seed([defaults, other]), 1);
          // A label on the defaults (data unchanged: filtered out), then a new image.
          helpers.scheduler.schedule(
            edit(c, (configMap) => ({ ...configMap, metadata: { ...configMap.metadata, labels: { x: 'y' } } })),
            500,
          );
          helpers.scheduler.schedule(
            edit(c, (configMap) => ({ ...configMap, data: { image: 'nginx:2' } })),
            1000,
          );
        },
      });
      helpers.flush();

      const starts = timeline.filter((line) => line.includes(': started') && Number(line.split(' ')[0]) >= 100);
      // Leadership at 20 runs all three (two workers, and reruns for their own objects); by 100 all is quiet. The
      // label-only change at 500 runs nothing; the data change at 1000 runs a and b, whose Deployments change, and
      // those changes run them once more at 1004.
      expect(starts).to.deep.equal([
        '1000 websites: started default/a#1',
        '1000 websites: started default/b#1',
        '1004 websites: started default/a#1',
        '1004 websites: started default/b#1',
      ]);
      // At the start, each defaults ConfigMap maps to its users, coalesced with their own `added` (the reflector
      // names the kind of listed objects). At 1000 the change takes over the pending resync (hence `requeue`).
      const reasons = logger.records
        .filter((r) => r.msg === 'reconciled')
        .map((r) => `${String(r.key)}: ${(r.reasons as string[]).join(', ')}`);
      expect(reasons.filter((line) => line.includes('defaults'))).to.deep.equal([
        'default/a: added Website default/a, defaults default/website-defaults',
        'default/b: added Website default/b, defaults default/website-defaults',
        'default/c: added Website default/c, defaults default/other',
        'default/a: requeue, defaults default/website-defaults',
        'default/b: requeue, defaults default/website-defaults',
      ]);
      expect(stored<V1Deployment>(cluster, DEPLOYMENT, 'a')!.spec!.template.spec!.containers[0]!.image).to.equal(
        'nginx:2',
      );
    });
  });

  it('a failed apply writes Degraded, fails the run, retries with backoff, and recovers', () => {
    inVirtualTime((helpers) => {
      const { timeline, printed } = runWith(helpers, 200, {
        objects: [website('site', { content: 'x' }, { finalizers: [RECORD_FINALIZER] })],
        prepare: (cluster) => cluster.faults.failNext({ path: `${DEPLOYMENTS}/site`, count: 2, status: 500 }),
      });
      helpers.flush();

      expect(timeline.filter((line) => line.includes('websites:'))).to.deep.equal([
        // ConfigMap applied (20-21), Deployment refused (21-22), Degraded written (22-23). The ConfigMap's creation
        // came in during the run, so the retry runs at once (a fresh trigger wins over the backoff).
        '20 websites: started default/site#1',
        '23 websites: failed default/site',
        '23 websites: retrying default/site +0',
        // Refused again; Degraded is already said, so no status write; this time the backoff (5 ms · 2) holds.
        '23 websites: started default/site#2',
        '25 websites: failed default/site',
        '25 websites: retrying default/site +10',
        // Through: the Service's creation came in during the run, hence the last, quiet run.
        '35 websites: started default/site#3',
        '39 websites: succeeded default/site',
        '39 websites: requeued default/site +0',
        '39 websites: started default/site#1',
        '42 websites: succeeded default/site',
        '42 websites: requeued default/site +1000',
      ]);
      expect(printed.filter((line) => / (ApplyFailed|Recovered) /.test(line))).to.deep.equal([
        '23 Warning ApplyFailed website default/site: Internal error occurred: injected fault',
        '39 Normal Recovered website default/site: every object is applied again',
      ]);
    });
  });

  it('on deletion removes the record, records CleanedUp, then takes its finalizer off; the Website is gone', () => {
    inVirtualTime((helpers) => {
      const { cluster, lines, printed, records } = runWith(helpers, 200, {
        objects: [website('going', { content: 'x' }, { finalizers: [RECORD_FINALIZER] })],
        // Deleted by a user before the run: it stays, being deleted, until its finalizer goes.
        prepare: (cluster) =>
          resourceClient<Website>(cluster.link({ userAgent: 'kubectl' }), WEBSITE, { namespace: 'default' })
            .delete('going')
            .subscribe(),
      });
      // The record a previous run published.
      records.texts.set('memory:default/going', '{}');
      helpers.flush();

      expect(printed).to.deep.equal([
        '20 Normal CleanedUp website default/going: removed DNS record going.default.websites.example.test (memory:default/going)',
      ]);
      expect(lines).to.deep.equal([`20 PATCH ${websitePath('default', 'going')}`]);
      expect(stored(cluster, WEBSITE, 'going')).to.equal(undefined);
      expect(records.texts.size).to.equal(0);
    });
  });

  it('as a standby keeps its caches warm and writes nothing, then reconciles the moment it leads', () => {
    inVirtualTime((helpers) => {
      const { scheduler } = helpers;
      // Another replica holds the Lease and renews it every 5 s until 10 s, then dies: it expires at 25 000 by our clock.
      const lease = (seconds: number, resourceVersion?: string): KubernetesObject =>
        ({
          ...LEASE,
          metadata: {
            name: 'lock',
            namespace: 'default',
            ...(resourceVersion === undefined ? {} : { resourceVersion }),
          },
          spec: {
            holderIdentity: 'other',
            leaseDurationSeconds: 15,
            renewTime: `2026-01-01T00:00:${String(seconds).padStart(2, '0')}.000000Z`,
            leaseTransitions: 0,
          },
        }) as KubernetesObject;
      const { lines, timeline } = runWith(helpers, 30_000, {
        objects: [website('blog', { content: 'x' }), lease(0)],
        prepare: (cluster) => {
          for (const at of [5000, 10_000]) {
            scheduler.schedule(
              () => cluster.update([lease(at / 1000, cluster.list(LEASE, 'default')[0]!.metadata!.resourceVersion)]),
              at,
            );
          }
        },
      });
      helpers.flush();

      expect(timeline.slice(0, 3)).to.deep.equal(['0 started', '0 synced', '0 ready true']);
      const leading = timeline.find((line) => line.includes('leading true'))!;
      const ledAt = Number(leading.split(' ')[0]);
      expect(ledAt).to.be.within(25_000, 25_000 + 2 * 2200);
      expect(lines[0]).to.equal(`${ledAt} PATCH ${websitePath('default', 'blog')}`);
      expect(timeline).to.include(`${ledAt} websites: started default/blog#1`);
    });
  });
}

describe('the website-operator example under the manager (marbles)', () => operatorSpecs());

describe('the website-operator example under the manager (marbles) against its planted bug (removals acknowledged once queued)', () =>
  operatorSpecs((records, scheduler) => batchedRemovals(records, scheduler)));
