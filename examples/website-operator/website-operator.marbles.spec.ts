/**
 * The website operator under a virtual manager: informers fed by cold marbles (one per kind), the Lease served by a
 * VirtualLeaseServer, the writes answered by a VirtualApi, the DNS records in memory, all in virtual time (1 frame =
 * 1 ms), so the order and the timing of every request, retry and requeue are exact.
 */
import { expect } from 'chai';
import type { KubernetesObject } from '@kubernetes/client-node';
import { Observable } from 'rxjs';
import type { RunHelpers } from 'rxjs/testing';
import type { DeltaSource } from '../../src/index.js';
import type { WatchEvent } from '../../src/extend.js';
import { virtual } from '../../spec/controller/helpers.js';
import { VirtualLeaseServer } from '../../spec/leader/lease-server.js';
import { startVirtualManager, type VirtualManager } from '../../spec/manager/harness.js';
import { websiteController } from './controller.js';
import { memoryRecords } from './records.js';
import { VirtualApi, websitePath } from './virtual-api.js';
import { RECORD_FINALIZER, WEBSITE, type Website } from './website.js';

const CONFIG_MAPS = '/api/v1/namespaces/default/configmaps';
const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';
const SERVICES = '/api/v1/namespaces/default/services';

/** A Website as kube-apiserver lists it: no `apiVersion`, no `kind` (the reflector fills them in). */
function listedWebsite(name: string, spec: Website['spec'], metadata: Partial<NonNullable<Website['metadata']>> = {}): Website {
  return { metadata: { name, namespace: 'default', uid: `uid-${name}`, resourceVersion: '10', generation: 1, ...metadata }, spec };
}

/** `listing`, one relist of `objects`, `watching`: synced at frame 2 (marble `a-(bc)d`), then `later` deltas. */
function listOf(objects: readonly KubernetesObject[]): Record<string, WatchEvent | WatchEvent[]> {
  return {
    a: { type: 'status', status: { state: 'listing', page: 1 } },
    b: [{ type: 'relistStarted' }, ...objects.map((object) => ({ type: 'listed', object }) as WatchEvent)],
    c: { type: 'relistDone', resourceVersion: '50' },
    d: { type: 'status', status: { state: 'watching', resourceVersion: '50' } },
  };
}

/** Per kind, a marble and its values. */
type Script = Partial<Record<'Website' | 'Deployment' | 'Service' | 'ConfigMap', { readonly marble: string; readonly values: Record<string, WatchEvent | WatchEvent[]> }>>;

/**
 * A delta source that plays each kind's script (a kind without one lists nothing), and then what the operator's
 * own writes changed, as a watch would deliver them.
 */
function kindSource(helpers: Pick<RunHelpers, 'cold'>, script: Script, api: VirtualApi): DeltaSource {
  return ((resource: { kind: string }) => new Observable<WatchEvent>((subscriber) => {
    const { marble, values } = script[resource.kind as keyof Script] ?? { marble: 'a-(bc)d', values: listOf([]) };
    const subscription = api.watch(resource.kind).subscribe((event) => subscriber.next(event));
    subscription.add(helpers.cold(marble, values).subscribe({
      next: (value) => (Array.isArray(value) ? value : [value]).forEach((event) => subscriber.next(event)),
      error: (error: unknown) => subscriber.error(error),
    }));
    return subscription;
  })) as DeltaSource;
}

interface Run {
  readonly api: VirtualApi;
  readonly manager: VirtualManager;
  readonly printed: string[];
  readonly records: ReturnType<typeof memoryRecords>;
}

/** Runs the operator (resync every `resyncPeriodMs`, default 1000) under a virtual manager until `until`. */
function run(
  helpers: Parameters<Parameters<typeof virtual>[0]>[0], script: Script, until: number, prepare: (api: VirtualApi) => void = () => undefined,
  leases = new VirtualLeaseServer(helpers.scheduler), resyncPeriodMs = 1000,
): Run {
  const { scheduler } = helpers;
  const api = new VirtualApi(scheduler, leases);
  prepare(api);
  const printed: string[] = [];
  const records = memoryRecords();
  const operator = websiteController({ records, resyncPeriodMs, print: (line) => printed.push(`${scheduler.now()} ${line}`) });
  const manager = startVirtualManager(scheduler, [operator], {
    connection: api.transport(),
    informers: { source: kindSource(helpers, script, api) },
    events: { reportingController: 'example.rxkube.io/website-operator', random: () => 0 },
  }, leases);
  scheduler.schedule(() => manager.subscription!.unsubscribe(), until);
  return { api, manager, printed, records };
}

describe('the website-operator example under the manager (marbles)', () => {
  it('waits for leadership and every cache, then adds the finalizer, applies ConfigMap, Deployment and Service in order, publishes the record, writes status, and requeues after the resync period', () => {
    virtual((helpers) => {
      const blog = listedWebsite('blog', { content: '<h1>Blog</h1>' });
      const { api, manager, printed, records } = run(helpers, { Website: { marble: 'a-(bc)d', values: listOf([blog]) } }, 1500, (virtualApi) =>
        virtualApi.seed(websitePath('default', 'blog'), { ...blog, apiVersion: WEBSITE.apiVersion, kind: WEBSITE.kind }));
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
      const run2 = [`25 PATCH ${CONFIG_MAPS}/blog-content`, `26 PATCH ${DEPLOYMENTS}/blog`, `27 PATCH ${SERVICES}/blog`];
      // The resync, 1000 ms after the last run: the same again (the DNS record is checked too).
      const resync = [`1028 PATCH ${CONFIG_MAPS}/blog-content`, `1029 PATCH ${DEPLOYMENTS}/blog`, `1030 PATCH ${SERVICES}/blog`];
      expect(api.lines.filter((line) => !line.includes(' Event '))).to.deep.equal([...run1, ...run2, ...resync]);
      expect(manager.timeline.filter((line) => line.includes('websites:'))).to.deep.equal([
        // Run 1 asks for the resync; the fresh triggers run it at once instead.
        '20 websites: started default/blog#1', '25 websites: succeeded default/blog', '25 websites: requeued default/blog +0',
        '25 websites: started default/blog#1', '28 websites: succeeded default/blog', '28 websites: requeued default/blog +1000',
        '1028 websites: started default/blog#1', '1031 websites: succeeded default/blog', '1031 websites: requeued default/blog +1000',
      ]);
      expect(printed).to.deep.equal([
        '22 Normal Created website default/blog: created ConfigMap blog-content',
        '23 Normal Created website default/blog: created Deployment blog',
        '24 Normal Created website default/blog: created Service blog',
        '24 Normal RecordWritten website default/blog: created DNS record blog.default.websites.example.test CNAME blog.default.svc.cluster.local (memory:default/blog)',
        '25 Normal RollingOut website default/blog: Waiting for deployment "blog" spec update to be observed...',
      ]);
      // The listed Website had no kind: the owner reference and the Events take it from the Website resource.
      const configMap = api.bodies.get(`PATCH ${CONFIG_MAPS}/blog-content`) as KubernetesObject;
      expect(configMap.metadata?.ownerReferences).to.deep.equal([
        { apiVersion: WEBSITE.apiVersion, kind: 'Website', name: 'blog', uid: 'uid-blog', controller: true, blockOwnerDeletion: true },
      ]);
      expect(api.get(websitePath('default', 'blog'))?.metadata?.finalizers).to.deep.equal([RECORD_FINALIZER]);
      expect((api.get(websitePath('default', 'blog')) as Website).status?.conditions?.map((c) => `${c.type}=${c.status} ${c.lastTransitionTime}`))
        .to.deep.equal(['Ready=False 1970-01-01T00:00:00Z', 'Progressing=True 1970-01-01T00:00:00Z', 'Degraded=False 1970-01-01T00:00:00Z']);
      expect([...records.texts.keys()]).to.deep.equal(['memory:default/blog']);
    });
  });

  it('re-runs exactly the Websites whose defaults ConfigMap changed, when its data changes', () => {
    virtual((helpers) => {
      const carrying = { finalizers: [RECORD_FINALIZER] };
      const websites = [
        listedWebsite('a', { content: 'a' }, carrying), listedWebsite('b', { content: 'b' }, carrying),
        listedWebsite('c', { content: 'c', defaultsConfigMap: 'other' }, carrying),
      ];
      const defaults = { metadata: { name: 'website-defaults', namespace: 'default', uid: 'uid-d', resourceVersion: '5' }, data: { image: 'nginx:1' } };
      const other = { metadata: { name: 'other', namespace: 'default', uid: 'uid-o', resourceVersion: '6' }, data: { image: 'httpd:2' } };
      const configMaps = {
        marble: 'a-(bc)d 493ms e 499ms f',
        values: {
          ...listOf([defaults, other]),
          // A label on the defaults (data unchanged: filtered out), then a new image.
          e: { type: 'modified', object: { ...defaults, metadata: { ...defaults.metadata, labels: { x: 'y' }, resourceVersion: '60' } } },
          f: { type: 'modified', object: { ...defaults, metadata: { ...defaults.metadata, resourceVersion: '61' }, data: { image: 'nginx:2' } } },
        } as Record<string, WatchEvent | WatchEvent[]>,
      };
      // A resync period longer than the run, so only the ConfigMap can start the runs at 1000.
      const { manager, api } = run(helpers, { Website: { marble: 'a-(bc)d', values: listOf(websites) }, ConfigMap: configMaps }, 1010, (virtualApi) => {
        for (const website of websites) virtualApi.seed(websitePath('default', website.metadata!.name!), { ...website, apiVersion: WEBSITE.apiVersion, kind: WEBSITE.kind });
      }, undefined, 60_000);
      helpers.flush();

      const starts = manager.timeline.filter((line) => line.includes(': started') && Number(line.split(' ')[0]) >= 100);
      // Leadership at 20 runs all three (two workers, and reruns for their own objects); by 100 all is quiet. The
      // label-only change at 500 runs nothing; the data change at 1000 runs a and b, whose Deployments change, and
      // those changes run them once more at 1004.
      expect(starts).to.deep.equal([
        '1000 websites: started default/a#1', '1000 websites: started default/b#1',
        '1004 websites: started default/a#1', '1004 websites: started default/b#1',
      ]);
      // At the start, each listed defaults ConfigMap maps to its users, coalesced with their own `added`. At 1000 the
      // change takes over the pending resync (hence `requeue` among the reasons).
      const reasons = manager.logger.records.filter((r) => r.msg === 'reconciled').map((r) => `${String(r.key)}: ${(r.reasons as string[]).join(', ')}`);
      expect(reasons.filter((line) => line.includes('defaults'))).to.deep.equal([
        'default/a: added default/a, defaults default/website-defaults', 'default/b: added default/b, defaults default/website-defaults',
        'default/c: added default/c, defaults default/other',
        'default/a: requeue, defaults default/website-defaults', 'default/b: requeue, defaults default/website-defaults',
      ]);
      expect((api.bodies.get(`PATCH ${DEPLOYMENTS}/a`) as { spec: { template: { spec: { containers: Array<{ image: string }> } } } }).spec.template.spec.containers[0]!.image).to.equal('nginx:2');
    });
  });

  it('a failed apply writes Degraded, fails the run, retries with backoff, and recovers', () => {
    virtual((helpers) => {
      const site = listedWebsite('site', { content: 'x' }, { finalizers: [RECORD_FINALIZER] });
      const { manager, printed } = run(helpers, { Website: { marble: 'a-(bc)d', values: listOf([site]) } }, 200, (virtualApi) => {
        virtualApi.seed(websitePath('default', 'site'), { ...site, apiVersion: WEBSITE.apiVersion, kind: WEBSITE.kind });
        virtualApi.failNext(`${DEPLOYMENTS}/site`, 2);
      });
      helpers.flush();

      expect(manager.timeline.filter((line) => line.includes('websites:'))).to.deep.equal([
        // ConfigMap applied (20-21), Deployment refused (21-22), Degraded written (22-23). The ConfigMap's creation
        // came in during the run, so the retry runs at once (a fresh trigger wins over the backoff).
        '20 websites: started default/site#1', '23 websites: failed default/site', '23 websites: retrying default/site +0',
        // Refused again; Degraded is already said, so no status write; this time the backoff (5 ms · 2) holds.
        '23 websites: started default/site#2', '25 websites: failed default/site', '25 websites: retrying default/site +10',
        // Through: the Service's creation came in during the run, hence the last, quiet run.
        '35 websites: started default/site#3', '39 websites: succeeded default/site', '39 websites: requeued default/site +0',
        '39 websites: started default/site#1', '42 websites: succeeded default/site', '42 websites: requeued default/site +1000',
      ]);
      expect(printed.filter((line) => / (ApplyFailed|Recovered) /.test(line))).to.deep.equal([
        '23 Warning ApplyFailed website default/site: Internal error occurred: injected fault',
        '39 Normal Recovered website default/site: every object is applied again',
      ]);
    });
  });

  it('on deletion removes the record, records CleanedUp, then takes its finalizer off; the Website is gone', () => {
    virtual((helpers) => {
      const going = listedWebsite('going', { content: 'x' }, { finalizers: [RECORD_FINALIZER], deletionTimestamp: new Date(0) as never });
      const { api, printed, records } = run(helpers, { Website: { marble: 'a-(bc)d', values: listOf([going]) } }, 200, (virtualApi) => {
        virtualApi.seed(websitePath('default', 'going'), { ...going, apiVersion: WEBSITE.apiVersion, kind: WEBSITE.kind });
      });
      // The record a previous run published.
      records.texts.set('memory:default/going', '{}');
      helpers.flush();

      expect(printed).to.deep.equal(['20 Normal CleanedUp website default/going: removed DNS record going.default.websites.example.test (memory:default/going)']);
      expect(api.lines.filter((line) => !line.includes(' Event '))).to.deep.equal([`20 PATCH ${websitePath('default', 'going')}`]);
      expect(api.get(websitePath('default', 'going'))).to.equal(undefined);
      expect(records.texts.size).to.equal(0);
    });
  });

  it('as a standby keeps its caches warm and writes nothing, then reconciles the moment it leads', () => {
    virtual((helpers) => {
      const { scheduler } = helpers;
      const leases = new VirtualLeaseServer(scheduler);
      // Another replica holds the Lease and renews it every 5 s until 10 s, then dies: it expires at 25 000 by our clock.
      const renew = (seconds: number) => () => leases.put({
        metadata: {}, spec: { holderIdentity: 'other', leaseDurationSeconds: 15, renewTime: `2026-01-01T00:00:${String(seconds).padStart(2, '0')}.000000Z`, leaseTransitions: 0 },
      });
      for (const at of [0, 5000, 10_000]) scheduler.schedule(renew(at / 1000), at);
      const blog = listedWebsite('blog', { content: 'x' });
      const { api, manager } = run(helpers, { Website: { marble: 'a-(bc)d', values: listOf([blog]) } }, 30_000, (virtualApi) => {
        virtualApi.seed(websitePath('default', 'blog'), { ...blog, apiVersion: WEBSITE.apiVersion, kind: WEBSITE.kind });
      }, leases);
      helpers.flush();

      expect(manager.timeline.slice(0, 3)).to.deep.equal(['0 started', '2 synced', '2 ready true']);
      const leading = manager.timeline.find((line) => line.includes('leading true'))!;
      const ledAt = Number(leading.split(' ')[0]);
      expect(ledAt).to.be.within(25_000, 25_000 + 2 * 2200);
      expect(api.lines[0]).to.equal(`${ledAt} PATCH ${websitePath('default', 'blog')}`);
      expect(manager.timeline).to.include(`${ledAt} websites: started default/blog#1`);
    });
  });
});
