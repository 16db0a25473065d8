/**
 * The node labeler as a manager's controller, in virtual time on a virtual cluster: the real `manager(...)` with
 * leader election (a real Lease object in the cluster), the labeler unchanged (its informer, its label writes, its
 * Events through the manager's recorder), driven by seeded objects, signals and faults, asserted as the manager's
 * timeline, what the labeler printed and sent, and the server's state read through the API.
 */
import { expect } from 'chai';
import type { KubernetesObject, V1Node, V1Pod } from '@kubernetes/client-node';
import { defer, EMPTY, timer } from 'rxjs';
import type { RunHelpers, TestScheduler } from 'rxjs/testing';
import { manager, resourceClient, type ControllerDefinition, type ManagerOptions } from '../../src/index.js';
import { virtualCluster, type VirtualCluster } from '../../src/testing/index.js';
import {
  inVirtualTime,
  recordingLogger,
  requestTimeline,
  subscribeTimeline,
  virtualManagerOptions,
} from '../shared/virtual-time.js';
import { NODE, nodeLabelerController } from './node-labeler.js';
import { DEFAULT_REPORTING_CONTROLLER } from './options.js';

const NODES = '/api/v1/nodes';
const EVENTS = '/apis/events.k8s.io/v1/namespaces/default/events';
const LABEL = 'rxkube.io/cloud-node';
const LEASE = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' };
const EVENT = { apiVersion: 'events.k8s.io/v1', kind: 'Event' };
const labeledAt = (time: number): string =>
  `${time} Labeled node cloud-1 rxkube.io/cloud-node=true (providerID demo://zone-a/cloud-1)`;

const cloud1: V1Node = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'cloud-1' },
  spec: { providerID: 'demo://zone-a/cloud-1' },
};

/** What the labeler prints up to cloud-1's key going on the queue: the initial list syncs the cache at frame 0. */
const STARTED = [
  '0 Starting node controller',
  '0 Node cache synced; starting workers',
  '0 controller: Add event, nodes [cloud-1]',
  '0 working queue add node cloud-1',
];

interface Run {
  readonly cluster: VirtualCluster;
  /** `<time> <line>` for what the labeler printed, and `<time> <METHOD> <path>` for every node or Event request it sent. */
  readonly lines: string[];
  /** `<time> <event>` for what the manager emitted, then `complete` or `error`. */
  readonly timeline: string[];
  /** `<time> <level> <msg>` for what the manager logged. */
  readonly logger: ReturnType<typeof recordingLogger>;
  /** `<time> exit <code>` for every exit the manager asked for. */
  readonly exits: string[];
  /** The Events as a client reads them through the API (events.k8s.io/v1), fetched just before `until`. */
  readonly events: KubernetesObject[];
}

/**
 * Runs the labeler (and `others`) under a manager with leader election as `me` on a virtual cluster holding
 * cloud-1 (and `objects`), until `until`, when the manager is unsubscribed and the cluster closed.
 */
function run(
  helpers: RunHelpers & { scheduler: TestScheduler },
  until: number,
  setup: {
    readonly overrides?: Partial<ManagerOptions>;
    readonly objects?: readonly KubernetesObject[];
    readonly others?: readonly ControllerDefinition[];
    readonly faults?: (cluster: VirtualCluster) => void;
  } = {},
): Run {
  const { scheduler } = helpers;
  const cluster = virtualCluster({ scheduler, seed: 0 });
  cluster.seed([cloud1, ...(setup.objects ?? [])]);
  setup.faults?.(cluster);
  const timeline: string[] = [];
  const exits: string[] = [];
  const events: KubernetesObject[] = [];
  const logger = recordingLogger(scheduler);
  // Every node and Event request but the informers' lists and watches, in its place among the printed lines.
  const requests = requestTimeline(
    scheduler,
    cluster.requestLog,
    (r) => (r.path.startsWith(NODES) || r.path.startsWith(EVENTS)) && r.verb !== 'list' && r.verb !== 'watch',
  );
  const labeler = nodeLabelerController({
    providerIdPrefix: 'demo://',
    random: () => 0,
    print: (line) => requests.print(line),
  });
  const subscription = subscribeTimeline(
    manager({
      connection: cluster,
      controllers: [labeler, ...(setup.others ?? [])],
      // Lease `lock` as `me`; metrics, health (they bind ports) and process signals off.
      ...virtualManagerOptions(scheduler, logger, exits),
      events: { reportingController: DEFAULT_REPORTING_CONTROLLER },
      ...setup.overrides,
    }),
    scheduler,
    timeline,
  );
  // Faults cleared first, so a latency fault cannot hold the read past `until`.
  timer(until - 1, scheduler).subscribe(() => {
    cluster.faults.clear();
    resourceClient<KubernetesObject>(cluster, EVENT, { namespace: 'default' })
      .list()
      .subscribe((list) => events.push(...(list.items as KubernetesObject[])));
  });
  // Unsubscribing releases the Lease: the cluster closes a frame later, once that write is answered.
  timer(until, scheduler).subscribe(() => subscription.unsubscribe());
  timer(until + 1, scheduler).subscribe(() => cluster.close());
  return { cluster, lines: requests.lines, timeline, logger, exits, events };
}

const holderOf = (cluster: VirtualCluster): string | undefined =>
  (cluster.list(LEASE, 'default')[0] as { spec?: { holderIdentity?: string } } | undefined)?.spec?.holderIdentity;
const labelOf = (cluster: VirtualCluster): string | undefined =>
  (cluster.list(NODE)[0] as V1Node).metadata?.labels?.[LABEL];

const FORBIDDEN =
  'events.events.k8s.io is forbidden: User "system:serviceaccount:default:rxkube-test" cannot create resource "events" in API group "events.k8s.io" in the namespace "default"';

describe('the node-labeler example under the manager (marbles, virtual cluster)', () => {
  it('is named "nodes", keeps a warm cache while another replica leads, and labels from it the moment it leads', () => {
    let labeler!: Run;
    inVirtualTime((helpers) => {
      // Another replica renewed the Lease just before we started, and then died: it expires 15 s after we saw it.
      labeler = run(helpers, 20_000, {
        objects: [
          {
            ...LEASE,
            metadata: { name: 'lock', namespace: 'default' },
            spec: {
              holderIdentity: 'other',
              leaseDurationSeconds: 15,
              renewTime: '1970-01-01T00:00:00.000000Z',
              leaseTransitions: 0,
            },
          } as KubernetesObject,
        ],
      });
    });
    expect(labeler.lines).to.deep.equal([
      ...STARTED,
      `15000 PATCH ${NODES}/cloud-1`,
      labeledAt(15000),
      `15000 POST ${EVENTS}`,
      '20000 Shutting down node controller',
    ]);
    expect(labeler.timeline).to.deep.equal([
      '0 started',
      '0 synced',
      '0 ready true',
      '15000 leading true',
      '15000 nodes: started cloud-1#1',
      '15000 nodes: succeeded cloud-1',
    ]);
    expect(labelOf(labeler.cluster)).to.equal('true');
    expect(labeler.events).to.have.length(1);
    expect(labeler.events[0]).to.deep.include({
      type: 'Normal',
      reason: 'Labeled',
      action: 'AddLabel',
      reportingController: DEFAULT_REPORTING_CONTROLLER,
      note: 'Added label rxkube.io/cloud-node=true: providerID demo://zone-a/cloud-1 starts with demo://',
    });
    expect((labeler.events[0] as { regarding?: object }).regarding).to.deep.include({
      apiVersion: 'v1',
      kind: 'Node',
      name: 'cloud-1',
    });
    // Unsubscribed at 20 000, it released the Lease it took over.
    expect(labeler.logger.lines.slice(-2)).to.deep.equal([
      '20000 info lease holder observed',
      '20000 info lease released',
    ]);
    expect(holderOf(labeler.cluster)).to.equal('');
  });

  it('on SIGTERM lets the label write in flight finish, writes its Event, releases the Lease and exits 0', () => {
    let labeler!: Run;
    inVirtualTime((helpers) => {
      labeler = run(helpers, 10_000, {
        // Every answer of the server takes 500 ms: the label write sent at 1000 is in flight at the signal.
        faults: (cluster) => cluster.faults.latency(500),
        overrides: { signals: { source: helpers.hot('1200ms s', { s: 'SIGTERM' }) } },
      });
    });
    expect(labeler.lines).to.deep.equal([
      '0 Starting node controller',
      ...STARTED.slice(1).map((line) => line.replace(/^0 /, '500 ')),
      `1000 PATCH ${NODES}/cloud-1`,
      labeledAt(1500),
      '1500 Shutting down node controller',
      // The manager flushes the Event after the drain, before it releases the Lease.
      `1500 POST ${EVENTS}`,
    ]);
    expect(labeler.timeline).to.deep.equal([
      '0 started',
      '500 synced',
      '500 ready true',
      '1000 leading true',
      '1000 nodes: started cloud-1#1',
      '1200 stopping (signal SIGTERM)',
      '1200 ready false',
      '1500 nodes: succeeded cloud-1',
      '1500 drained clean cancelled=0',
      '2000 leading false',
      '3000 stopped',
      '3000 complete',
    ]);
    expect(labeler.exits).to.deep.equal(['3000 exit 0']);
    expect(labeler.logger.lines.filter((line) => /events flushed|lease released/.test(line))).to.deep.equal([
      '2000 info events flushed',
      '3000 info lease released',
    ]);
    expect(holderOf(labeler.cluster)).to.equal('');
    expect(labelOf(labeler.cluster)).to.equal('true');
    expect(labeler.events.map((event) => (event as { reason?: string }).reason)).to.deep.equal(['Labeled']);
  });

  it("prints its own Events the manager's recorder lost, and none of another controller's", () => {
    let labeler!: Run;
    inVirtualTime((helpers) => {
      const pod: V1Pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'web', namespace: 'default', uid: 'uid-web' },
      };
      // Another controller of the same manager records an Event the server refuses, and one the recorder refuses.
      const other: ControllerDefinition = {
        name: 'other',
        needLeaderElection: false,
        start: (context) =>
          defer(() => {
            context.recorder!.event(pod, { type: 'Normal', reason: 'Seen', action: 'Look' });
            context.recorder!.event(pod, { type: 'Sideways' as 'Normal', reason: 'Seen', action: 'Look' });
            return EMPTY;
          }),
      };
      labeler = run(helpers, 1000, {
        others: [other],
        faults: (cluster) => {
          // The first label write fails (a Warning); the server forbids every Event write.
          cluster.faults.failNext({ method: 'PATCH', path: NODES, status: 500 });
          cluster.faults.failNext({ method: 'POST', path: EVENTS, status: 403, count: 100 });
        },
      });
    });
    expect(labeler.lines.filter((line) => line.includes('Event'))).to.deep.equal([
      `0 Event LabelFailed for node cloud-1 not written: ${FORBIDDEN}`,
      `5 Event Labeled for node cloud-1 not written: ${FORBIDDEN}`,
    ]);
    // Three Event writes reached the server (the other controller's Seen, then the labeler's two); none was stored.
    expect(labeler.lines.filter((line) => line.includes(`POST ${EVENTS}`))).to.have.length(3);
    expect(labeler.logger.lines.filter((line) => /event (rejected|write failed)/.test(line))).to.deep.equal([
      '0 warn event rejected',
      '0 error event write failed',
      '0 error event write failed',
      '5 error event write failed',
    ]);
    expect(labeler.events).to.deep.equal([]);
    expect(labelOf(labeler.cluster)).to.equal('true');
  });

  it('under a manager with events: false labels without recording, and says so when it starts', () => {
    let labeler!: Run;
    inVirtualTime((helpers) => {
      labeler = run(helpers, 1000, { overrides: { events: false } });
    });
    expect(labeler.lines).to.deep.equal([
      STARTED[0],
      '0 Recording no Events: the manager has no event recorder (events: false)',
      ...STARTED.slice(1),
      `0 PATCH ${NODES}/cloud-1`,
      labeledAt(0),
      '1000 Shutting down node controller',
    ]);
    expect(labelOf(labeler.cluster)).to.equal('true');
    expect(labeler.events).to.deep.equal([]);
  });
});
