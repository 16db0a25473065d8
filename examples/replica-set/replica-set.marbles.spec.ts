/**
 * The PodSet controller in virtual time, against a virtual cluster whose watch events reach the informers
 * `cacheLagMs` after each write: slow-start batches, expectations holding syncs back until the cache has caught up,
 * their timeout, failed creates, scale-down ranking and status writes, on one timeline of requests and lines.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { TestScheduler } from 'rxjs/testing';
import type { ApiError, ReconcileEvent } from '../../src/index.js';
import { apiError } from '../../spec/client/support/scripted-transport.js';
import type { ReplicaSetOptions } from './options.js';
import type { PodSet } from './podset.js';
import { replicaSet } from './replica-set.js';
import { virtualCluster, type VirtualCluster, type VirtualClusterOptions } from './virtual-cluster.js';

const WEB = (replicas: number): PodSet => ({
  metadata: { name: 'web' },
  spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1' }] } } },
});

interface Run {
  readonly timeline: string[];
  readonly cluster: VirtualCluster;
  readonly events: ReconcileEvent[];
}

/** Runs the controller against a virtual cluster that `script` drives, until `until` (virtual ms). */
function run(
  script: (cluster: VirtualCluster, at: (time: number, action: () => void) => void) => void,
  until: number,
  options: Partial<Omit<VirtualClusterOptions, 'scheduler'>> = {},
  controller: Partial<ReplicaSetOptions> = {},
): Run {
  const scheduler = new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
  let result!: Run;
  scheduler.run(() => {
    const cluster = virtualCluster({ scheduler, ...options });
    const events: ReconcileEvent[] = [];
    const subscription = replicaSet(cluster.transport, {
      informers: cluster.informers, scheduler, random: () => 0,
      print: (line) => cluster.timeline.push(`${scheduler.now()} ${line}`),
      ...controller,
    }).subscribe((event) => events.push(event));
    script(cluster, (time, action) => scheduler.schedule(action, time));
    scheduler.schedule(() => subscription.unsubscribe(), until);
    scheduler.flush();
    result = { timeline: cluster.timeline, cluster, events };
  });
  return result;
}

const POSTS = '/api/v1/namespaces/default/pods';
const STATUS = '/apis/examples.rxkube.io/v1alpha1/namespaces/default/podsets/web/status';
/** The timeline without the status writes and their lines, which specs about Pods do not look at. */
const podLines = (timeline: readonly string[]): string[] => timeline.filter((line) => !line.includes(STATUS) && !line.includes('status: replicas'));
const names = (cluster: VirtualCluster): string[] => cluster.pods().map((pod) => pod.metadata!.name!).sort();
const quota = (): ApiError => apiError(403, 'Forbidden', 'pods "web-" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=2, limited: pods=2');

describe('the replica-set example (marbles)', () => {
  it('creates the missing pods in slow-start batches of 1, 2, 4…, each batch once the previous one was answered', () => {
    const { timeline, cluster } = run((c) => c.applyPodSet(WEB(7)), 1000);
    expect(podLines(timeline).slice(0, 19)).to.deep.equal([
      '0 Starting PodSet controller',
      '0 PodSet and Pod caches synced; starting workers',
      // The PodSet reaches the cache 10 ms after it was written.
      '10 Too few replicas for PodSet default/web: need 7, have 0, creating 7',
      '10 PodSet default/web: slow-start batch of 1',
      `10 POST ${POSTS}`,
      '11 Created pod web-p0 for PodSet default/web',
      '11 PodSet default/web: slow-start batch of 2',
      `11 POST ${POSTS}`, `11 POST ${POSTS}`,
      '12 Created pod web-p1 for PodSet default/web',
      '12 Created pod web-p2 for PodSet default/web',
      '12 PodSet default/web: slow-start batch of 4',
      `12 POST ${POSTS}`, `12 POST ${POSTS}`, `12 POST ${POSTS}`, `12 POST ${POSTS}`,
      '13 Created pod web-p3 for PodSet default/web',
      '13 Created pod web-p4 for PodSet default/web',
      '13 Created pod web-p5 for PodSet default/web',
    ]);
    expect(cluster.creates).to.equal(7);
    expect(cluster.podSet('web')!.status).to.deep.include({ replicas: 7, readyReplicas: 0, observedGeneration: 1, selector: 'app=web' });
  });

  it('holds back every sync triggered while its creates are not in the cache yet, and creates exactly N pods', () => {
    const touch = (c: VirtualCluster, t: number) => c.applyPodSet({ ...WEB(3), metadata: { name: 'web', annotations: { touched: String(t) } } });
    const { timeline, cluster, events } = run((c, at) => {
      c.applyPodSet(WEB(3));
      // A burst of PodSet updates while the creates are in flight and before the cache shows any Pod.
      for (let t = 5; t < 50; t += 3) at(t, () => touch(c, t));
      // The PodSet's updates reach the cache at once; the Pods' creations only 50 ms after their writes.
    }, 1000, { cacheLagMs: 50, podSetLagMs: 1 });
    expect(cluster.creates).to.equal(3);
    expect(names(cluster)).to.deep.equal(['web-p0', 'web-p1', 'web-p2']);
    expect(timeline.filter((line) => line.includes('Too few replicas'))).to.deep.equal(['1 Too few replicas for PodSet default/web: need 3, have 0, creating 3']);
    // Every sync between the creates (answered by 3) and the cache showing the last Pod (at 53) was held back.
    const heldBack = timeline.filter((line) => line.includes('waits for its cache'));
    expect(heldBack.length).to.be.at.least(10);
    expect(heldBack[0]).to.equal('5 PodSet default/web waits for its cache: 3 creation(s) and 0 deletion(s) not observed yet');
    expect(heldBack.at(-1)).to.equal('51 PodSet default/web waits for its cache: 2 creation(s) and 0 deletion(s) not observed yet');
    const runs = events.filter((event) => event.type === 'started').length;
    expect(runs).to.be.greaterThan(heldBack.length);
  });

  it('never creates more pods than replicas, whatever the cache lag and however many triggers come (property)', () => {
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 80 }), fc.integer({ min: 1, max: 20 }),
      fc.array(fc.integer({ min: 1, max: 200 }), { maxLength: 30 }),
      (replicas, cacheLagMs, answerMs, touches) => {
        const { cluster } = run((c, at) => {
          c.applyPodSet(WEB(replicas));
          for (const t of touches) at(t, () => c.applyPodSet({ ...WEB(replicas), metadata: { name: 'web', annotations: { touched: String(t) } } }));
        }, 2000, { cacheLagMs, answerMs });
        expect(cluster.creates).to.equal(replicas);
        expect(cluster.pods()).to.have.length(replicas);
      },
    ), { numRuns: 60 });
  });

  it('stops a slow start at the first batch with a failure, takes the skipped creations off the expectations, reports ReplicaFailure, and retries', () => {
    const { timeline, cluster } = run((c) => c.applyPodSet(WEB(7)), 1000, { failCreate: (i) => (i === 1 ? quota() : undefined) });
    expect(timeline.slice(2, 16)).to.deep.equal([
      '10 Too few replicas for PodSet default/web: need 7, have 0, creating 7',
      '10 PodSet default/web: slow-start batch of 1',
      `10 POST ${POSTS}`,
      '11 Created pod web-p0 for PodSet default/web',
      '11 PodSet default/web: slow-start batch of 2',
      `11 POST ${POSTS}`, `11 POST ${POSTS}`,
      `12 Failed to create a pod for PodSet default/web: ${quota().message}`,
      '12 Created pod web-p2 for PodSet default/web',
      // No batch of 4: the 5 creations that failed or were never tried are no longer expected.
      '12 Slow-start failure for PodSet default/web: 5 of 7 creation(s) failed or skipped; lowering expectations',
      `13 PATCH ${STATUS}`,
      `14 PodSet default/web status: replicas 0, ready 0, observedGeneration 1, ReplicaFailure FailedCreate: ${quota().message}`,
      `14 sync "default/web" failed with ${quota().message}`,
      '14 Retrying PodSet default/web in 5 ms (failure 1)',
    ]);
    // The retry waits for the 2 Pods that were created, keeping the condition, then creates the rest and clears it.
    expect(timeline).to.include('19 PodSet default/web waits for its cache: 2 creation(s) and 0 deletion(s) not observed yet');
    expect(timeline).to.include(`31 PodSet default/web status: replicas 2, ready 0, observedGeneration 1, ReplicaFailure FailedCreate: ${quota().message}`);
    expect(timeline).to.include('31 Too few replicas for PodSet default/web: need 7, have 2, creating 5');
    expect(timeline.filter((line) => line.includes('slow-start batch of')).map((line) => line.split(' ').at(-1))).to.deep.equal(['1', '2', '1', '2', '2']);
    expect(cluster.creates).to.equal(8);
    expect(cluster.pods()).to.have.length(7);
    expect(cluster.podSet('web')!.status).to.deep.equal({ replicas: 7, readyReplicas: 0, observedGeneration: 1, selector: 'app=web' });
  });

  it('lets expectations that are never met expire after 5 minutes, and syncs the PodSet again then', () => {
    // web-p1's watch event is lost, as if collapsed into a relist: the cache never shows it.
    const { timeline, cluster } = run((c) => c.applyPodSet(WEB(2)), 400_000, { lostPodEvents: (name) => name === 'web-p1' });
    const manage = timeline.filter((line) => /Too few|waits for its cache/.test(line));
    expect(manage[0]).to.equal('10 Too few replicas for PodSet default/web: need 2, have 0, creating 2');
    expect(manage.slice(1, -1).every((line) => line.endsWith('waits for its cache: 1 creation(s) and 0 deletion(s) not observed yet'))).to.equal(true);
    // Set at 10: expired once strictly more than 300 000 ms have passed, when the requeue runs it.
    expect(manage.at(-1)).to.equal('300011 Too few replicas for PodSet default/web: need 2, have 1, creating 1');
    expect(names(cluster)).to.deep.equal(['web-p0', 'web-p1', 'web-p2']);
  });

  it('scales down deleting unready pods first, then the most recently ready, and waits until the deletions are seen', () => {
    const { timeline, cluster } = run((c, at) => {
      c.applyPodSet(WEB(5));
      at(100, () => ['web-p1', 'web-p2'].forEach((name) => c.readyPod(name)));
      at(150, () => c.readyPod('web-p0'));
      at(200, () => c.applyPodSet(WEB(2)));
    }, 1000);
    expect(podLines(timeline).filter((line) => Number(line.split(' ')[0]) >= 200)).to.deep.equal([
      '210 Too many replicas for PodSet default/web: need 2, have 5, deleting 3: web-p3, web-p4, web-p0',
      '210 DELETE /api/v1/namespaces/default/pods/web-p3',
      '210 DELETE /api/v1/namespaces/default/pods/web-p4',
      '210 DELETE /api/v1/namespaces/default/pods/web-p0',
      '211 Deleted pod web-p3 of PodSet default/web',
      '211 Deleted pod web-p4 of PodSet default/web',
      '211 Deleted pod web-p0 of PodSet default/web',
      '220 PodSet default/web waits for its cache: 0 creation(s) and 2 deletion(s) not observed yet',
      '1000 Shutting down PodSet controller',
    ]);
    expect(names(cluster)).to.deep.equal(['web-p1', 'web-p2']);
    expect(cluster.podSet('web')!.status).to.deep.include({ replicas: 2, readyReplicas: 2, observedGeneration: 2 });
  });

  it('replaces a pod deleted by hand, and creates nothing for a PodSet being deleted', () => {
    const { timeline, cluster } = run((c, at) => {
      c.applyPodSet(WEB(2));
      at(100, () => c.deletePod('web-p0'));
      at(200, () => c.markPodSetDeleting('web'));
      at(300, () => c.deletePod('web-p1'));
    }, 1000);
    expect(podLines(timeline).filter((line) => Number(line.split(' ')[0]) >= 100)).to.deep.equal([
      '100 user deletes pod web-p0',
      '110 Too few replicas for PodSet default/web: need 2, have 1, creating 1',
      '110 PodSet default/web: slow-start batch of 1',
      `110 POST ${POSTS}`,
      '111 Created pod web-p2 for PodSet default/web',
      '210 PodSet default/web is being deleted; leaving its pods to the garbage collector',
      '300 user deletes pod web-p1',
      '310 PodSet default/web is being deleted; leaving its pods to the garbage collector',
      // The status write of that sync (replicas 1) comes back as an update.
      '320 PodSet default/web is being deleted; leaving its pods to the garbage collector',
      '1000 Shutting down PodSet controller',
    ]);
    expect(names(cluster)).to.deep.equal(['web-p2']);
  });

  it('writes status through the status subresource only when it changes', () => {
    const { timeline, cluster, events } = run((c, at) => {
      c.applyPodSet(WEB(2));
      // Updates of the PodSet: each bumps the generation, which the status reports.
      for (const t of [200, 300]) at(t, () => c.applyPodSet({ ...WEB(2), metadata: { name: 'web', labels: { tier: String(t) } } }));
      at(400, () => c.readyPod('web-p0'));
      // Pod updates that change nothing the status counts: each syncs, none writes.
      for (const t of [500, 600, 700]) at(t, () => c.readyPod('web-p0'));
    }, 1000, { cacheLagMs: 1 });
    const writesAfter = (time: number) => timeline.filter((line) => line.includes(`PATCH ${STATUS}`) && Number(line.split(' ')[0]) >= time)
      .map((line) => Number(line.split(' ')[0]));
    expect(writesAfter(200)).to.deep.equal([201, 301, 401]);
    expect(events.filter((event) => event.type === 'started' && event.time >= 500).length).to.be.at.least(3);
    expect(cluster.podSet('web')!.status).to.deep.include({ replicas: 2, readyReplicas: 1, observedGeneration: 3 });
  });

  it('forgets the expectations of a PodSet that is deleted, and ignores the pods of the one it replaced', () => {
    const { timeline, cluster } = run((c, at) => {
      c.applyPodSet(WEB(1));
      at(100, () => c.deletePodSet('web'));
      // A new PodSet under the same name (another uid): the old one's pod is not its own.
      at(200, () => c.applyPodSet({ ...WEB(1), metadata: { name: 'web', uid: 'uid-web-2' } }));
    }, 1000);
    expect(podLines(timeline).filter((line) => Number(line.split(' ')[0]) >= 100)).to.deep.equal([
      '110 PodSet default/web has been deleted',
      '210 Too few replicas for PodSet default/web: need 1, have 0, creating 1',
      '210 PodSet default/web: slow-start batch of 1',
      `210 POST ${POSTS}`,
      '211 Created pod web-p1 for PodSet default/web',
      '1000 Shutting down PodSet controller',
    ]);
    expect(names(cluster)).to.deep.equal(['web-p0', 'web-p1']);
  });
});
