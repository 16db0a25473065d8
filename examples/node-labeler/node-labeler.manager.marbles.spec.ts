/**
 * The node labeler as a manager's controller, in virtual time: the Node informer fed by a cold marble, the Lease
 * served by a VirtualLeaseServer, the label writes and Events answered by a script, and one timeline of what the
 * labeler printed and sent.
 */
import { expect } from 'chai';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { defer, EMPTY, type Observable } from 'rxjs';
import type { ManagedController, ManagerOptions, Transport, TransportRequest, TransportResponse, WatchEvent } from '../../src/index.js';
import { apiError, fail, ok, scriptedTransport } from '../../spec/client/support/scripted-transport.js';
import { virtual } from '../../spec/controller/helpers.js';
import { VirtualLeaseServer } from '../../spec/leader/lease-server.js';
import { scriptedSource, startVirtualManager, type VirtualManager } from '../../spec/manager/harness.js';
import { nodeLabelerController } from './node-labeler.js';
import { DEFAULT_REPORTING_CONTROLLER, type NodeLabelerControllerOptions } from './options.js';

const NODES = '/api/v1/nodes';
const EVENTS = '/apis/events.k8s.io/v1/namespaces/default/events';
const LABEL = 'rxkube.io/cloud-node';
const labeledAt = (time: number): string => `${time} Labeled node cloud-1 rxkube.io/cloud-node=true (providerID demo://zone-a/cloud-1)`;

/** cloud-1 (a node of the demo provider) listed at frame 2, then `watching`: synced at frame 2. */
const LISTED_CLOUD_1 = 'a-(bc)d';
const cloud1: V1Node = { metadata: { name: 'cloud-1', uid: 'uid-cloud-1', resourceVersion: '5' }, spec: { providerID: 'demo://zone-a/cloud-1' } };
const listedCloud1: Record<string, WatchEvent | WatchEvent[]> = {
  a: { type: 'status', status: { state: 'listing', page: 1 } },
  b: [{ type: 'relistStarted' }, { type: 'listed', object: cloud1 }],
  c: { type: 'relistDone', resourceVersion: '5' },
  d: { type: 'status', status: { state: 'watching', resourceVersion: '5' } },
};

/** What the labeler prints up to cloud-1's key going on the queue. */
const STARTED = ['0 Starting node controller', '2 Node cache synced; starting workers', '2 controller: Add event, nodes [cloud-1]', '2 working queue add node cloud-1'];

/** cloud-1 as the label patch writes it, with `metadata` changed by `meta`. */
function labeled(meta: Record<string, unknown> = {}): V1Node {
  return { apiVersion: 'v1', kind: 'Node', ...cloud1, metadata: { ...cloud1.metadata, labels: { [LABEL]: 'true' }, resourceVersion: '6', ...meta } };
}

/** What the script answers: node writes and Event writes; Lease requests go to the lease server. */
interface Script {
  readonly node: (request: TransportRequest) => Observable<TransportResponse>;
  readonly event?: (request: TransportRequest) => Observable<TransportResponse>;
}

/** Answers an Event write as the API server does: the Event back, with a resourceVersion, after 1 ms. */
const eventCreated = (request: TransportRequest): Observable<TransportResponse> =>
  ok({ ...(request.body as object), metadata: { ...(request.body as { metadata?: object }).metadata, resourceVersion: '100' } });

interface Run {
  readonly manager: VirtualManager;
  /** `<time> <line>` for what the labeler printed, and `<time> <METHOD> <path>` for every node or Event request. */
  readonly lines: string[];
}

/** Runs the labeler (and `others`) under a virtual manager until `until`, when it is unsubscribed. */
function run(
  helpers: Parameters<Parameters<typeof virtual>[0]>[0], script: Script, until: number,
  overrides: Partial<ManagerOptions> = {}, server?: VirtualLeaseServer, others: readonly ManagedController[] = [],
  options: Partial<NodeLabelerControllerOptions> = {},
): Run {
  const { scheduler, cold } = helpers;
  const leases = server ?? new VirtualLeaseServer(scheduler);
  const scripted = scriptedTransport(scheduler, (request) =>
    request.path.startsWith(NODES) ? script.node(request) : (script.event ?? eventCreated)(request));
  const lease = leases.transport('me');
  const connection: Transport = {
    get: (path, query, requestOptions) => lease.get(path, query, requestOptions),
    watch: (path, query, requestOptions) => lease.watch(path, query, requestOptions),
    request: (request) => (request.path.startsWith('/apis/coordination.k8s.io/') ? lease.request(request) : scripted.transport.request(request)),
  };
  const { lines } = scripted;
  const labeler = nodeLabelerController({ providerIdPrefix: 'demo://', random: () => 0, print: (line) => lines.push(`${scheduler.now()} ${line}`), ...options });
  const manager = startVirtualManager(scheduler, [labeler, ...others], {
    connection,
    informers: { source: scriptedSource({ cold }, LISTED_CLOUD_1, listedCloud1) },
    events: { reportingController: DEFAULT_REPORTING_CONTROLLER },
    ...overrides,
  }, leases);
  scheduler.schedule(() => manager.subscription!.unsubscribe(), until);
  return { manager, lines };
}

describe('the node-labeler example under the manager (marbles)', () => {
  it('is named "nodes", keeps a warm cache while another replica leads, and labels from it the moment it leads', () => {
    virtual((helpers) => {
      const server = new VirtualLeaseServer(helpers.scheduler);
      // Another replica renewed the Lease just before we started, and then died: it expires at 15 010 by our clock.
      server.put({ metadata: {}, spec: { holderIdentity: 'other', leaseDurationSeconds: 15, renewTime: '2026-01-01T00:00:00.000000Z', leaseTransitions: 0 } });
      const { manager, lines } = run(helpers, { node: () => ok(labeled()) }, 20_000, {}, server);
      helpers.flush();
      expect(lines).to.deep.equal([
        ...STARTED,
        `15030 PATCH ${NODES}/cloud-1`,
        labeledAt(15031),
        `15031 POST ${EVENTS}`,
        '20000 Shutting down node controller',
      ]);
      expect(manager.timeline).to.deep.equal([
        '0 started', '2 synced', '2 ready true', '15030 leading true', '15030 nodes: started cloud-1#1', '15031 nodes: succeeded cloud-1',
      ]);
    });
  });

  it('on SIGTERM lets the label write in flight finish, writes its Event, releases the Lease and exits 0', () => {
    virtual((helpers) => {
      const { manager, lines } = run(helpers, { node: () => ok(labeled(), 500) }, 10_000, {
        signals: { source: helpers.hot('100ms s', { s: 'SIGTERM' }) },
      });
      helpers.flush();
      expect(lines).to.deep.equal([
        ...STARTED,
        `20 PATCH ${NODES}/cloud-1`,
        labeledAt(520),
        '520 Shutting down node controller',
        // The manager flushes the Event after the drain, before it releases the Lease.
        `520 POST ${EVENTS}`,
      ]);
      expect(manager.timeline).to.deep.equal([
        '0 started', '2 synced', '2 ready true', '20 leading true', '20 nodes: started cloud-1#1',
        '100 stopping (signal SIGTERM)', '100 ready false',
        '520 nodes: succeeded cloud-1', '520 drained clean cancelled=0', '521 leading false', '541 stopped', '541 complete',
      ]);
      expect(manager.exits).to.deep.equal(['541 exit 0']);
      expect(manager.logger.lines.filter((line) => line.endsWith('events flushed'))).to.deep.equal(['521 info events flushed']);
      expect(manager.server.writes().at(-1)).to.equal('541 me ');
    });
  });

  it('prints its own Events the manager\'s recorder lost or refused, and none of another controller\'s', () => {
    virtual((helpers) => {
      const pod: V1Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', uid: 'uid-web' } };
      // Another controller of the same manager records an Event the server refuses, and one the recorder refuses.
      const other: ManagedController = {
        name: 'other',
        needLeaderElection: false,
        start: (context) => defer(() => {
          context.recorder!.event(pod, { type: 'Normal', reason: 'Seen', action: 'Look' });
          context.recorder!.event(pod, { type: 'Sideways' as 'Normal', reason: 'Seen', action: 'Look' });
          return EMPTY;
        }),
      };
      const forbidden = apiError(403, 'Forbidden', 'events.events.k8s.io is forbidden: User "labeler" cannot create resource "events"');
      // The first label write fails (a Warning the server forbids); the second answers with a uid that is not a
      // string, so the Normal Event about it is refused when recorded.
      const answers = [fail(apiError(500, 'InternalError', 'etcd is unhappy')), ok(labeled({ uid: 42 }))];
      let write = 0;
      const { lines } = run(helpers, { node: () => answers[write++] ?? fail(new Error('no more writes')), event: () => fail(forbidden) }, 1000, {}, undefined, [other]);
      helpers.flush();
      expect(lines.filter((line) => line.includes('Event'))).to.deep.equal([
        `22 Event LabelFailed for node cloud-1 not written: ${forbidden.message}`,
        '27 Event refused: regarding.uid: must be a string, got number',
      ]);
    });
  });

  it('under a manager with events: false labels without recording, and says so when it starts', () => {
    virtual((helpers) => {
      const { lines } = run(helpers, { node: () => ok(labeled()) }, 1000, { events: false });
      helpers.flush();
      expect(lines).to.deep.equal([
        STARTED[0],
        '0 Recording no Events: the manager has no event recorder (events: false)',
        ...STARTED.slice(1),
        `20 PATCH ${NODES}/cloud-1`,
        labeledAt(21),
        '1000 Shutting down node controller',
      ]);
    });
  });
});
