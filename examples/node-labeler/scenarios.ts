/**
 * The node labeler's scenarios that run, under the same names, against the in-memory server
 * (`node-labeler.spec.ts`) and against kube-apiserver (`spec/e2e/node-labeler.spec.ts`).
 * @module
 */
import { expect } from 'chai';
import type { KubeConfig, V1Node } from '@kubernetes/client-node';
import { firstValueFrom, mergeMap, type Observable, type Subscription } from 'rxjs';
import {
  apiErrors,
  manager,
  resourceClient,
  silentLogger,
  type Connection,
  type ReconcileEvent,
} from '../../src/index.js';
import { waitFor, waitForAsync } from '../shared/wait.js';
import { LABELED_REASON } from './handle-node.js';
import { NODE, nodeLabeler, nodeLabelerController } from './node-labeler.js';
import { DEFAULT_LABEL, DEFAULT_REPORTING_CONTROLLER, type NodeLabelerOptions } from './options.js';
import { linesAbout, racingTransport } from './spec-helpers.js';

/** An `events.k8s.io/v1` Event, the fields the scenarios read. */
interface EventObject {
  readonly metadata: { readonly name: string };
  readonly type: string;
  readonly reason: string;
  readonly action: string;
  readonly reportingController: string;
  readonly regarding: { readonly kind?: string; readonly name?: string; readonly uid?: string };
}

/** A node registering, as a kubelet (or the test) creates it. */
export function registeringNode(name: string, providerID?: string): V1Node {
  return {
    metadata: { name, labels: { 'kubernetes.io/hostname': name } },
    spec: providerID === undefined ? {} : { providerID },
  };
}

/** How the scenarios run the labeler: `nodeLabeler` alone, or `nodeLabelerController` under a manager. */
export type LabelerMode = 'standalone' | 'manager';

/**
 * Registers the shared scenarios in the current `describe`. `kubeConfig()` gives the cluster once its `before`
 * hook has run. Node names and the providerID prefix are unique per call, so a shared cluster (with other nodes,
 * or other runs' leftovers) does not disturb them; every node (and Lease) they create is deleted afterwards.
 *
 * Under the manager, each scenario's manager campaigns for a Lease of its own in `default` (so one never waits
 * for the last one's to expire) and records with the manager's recorder, whose `reportingController` is set to the
 * standalone labeler's.
 */
export function nodeLabelerScenarios(kubeConfig: () => KubeConfig, mode: LabelerMode = 'standalone'): void {
  const run = Math.random().toString(36).slice(2, 8);
  const prefix = `nl-${run}://`;
  const name = (base: string): string => `${base}-${run}`;
  const created: string[] = [];
  const leases: string[] = [];
  let subscription: Subscription | undefined;
  const nodes = () => resourceClient<V1Node>(kubeConfig(), NODE);

  const labeler = (connection: Connection, options: NodeLabelerOptions): Observable<ReconcileEvent> => {
    if (mode === 'standalone') return nodeLabeler(connection, options);
    leases.push(`node-labeler-${run}-${leases.length}`);
    return manager({
      connection,
      name: leases.at(-1)!,
      controllers: [nodeLabelerController(options)],
      leaderElection: { namespace: 'default' },
      metrics: false,
      health: false,
      signals: false,
      logger: silentLogger(),
      events: { reportingController: DEFAULT_REPORTING_CONTROLLER },
    }).pipe(mergeMap((event) => (event.type === 'controller' ? [event.event] : [])));
  };

  const register = async (base: string, providerID?: string): Promise<V1Node> => {
    created.push(name(base));
    return firstValueFrom(nodes().create(registeringNode(name(base), providerID)));
  };
  const start = (connection: Connection, options: Partial<NodeLabelerOptions> = {}) => {
    const lines: string[] = [];
    const events: ReconcileEvent[] = [];
    subscription = labeler(connection, {
      providerIdPrefix: prefix,
      recheckAfterMs: 300,
      print: (line) => lines.push(line),
      ...options,
    }).subscribe((event) => events.push(event));
    return { lines, events };
  };
  const labelOf = async (node: string): Promise<string | undefined> =>
    (await firstValueFrom(nodes().get(node))).metadata?.labels?.[DEFAULT_LABEL.key];
  const eventsAbout = async (node: string): Promise<EventObject[]> => {
    const list = await firstValueFrom(
      resourceClient<any>(
        kubeConfig(),
        { apiVersion: 'events.k8s.io/v1', kind: 'Event' },
        { namespace: 'default' },
      ).list(),
    );
    return (list.items as EventObject[]).filter(
      (event) => event.regarding?.name === node && event.reportingController === DEFAULT_REPORTING_CONTROLLER,
    );
  };

  afterEach(() => subscription?.unsubscribe());

  after(async () => {
    const lease = resourceClient(
      kubeConfig(),
      { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' },
      { namespace: 'default' },
    );
    const deletes = [...created.map((node) => nodes().delete(node)), ...leases.map((name) => lease.delete(name))];
    for (const delete$ of deletes) {
      await firstValueFrom(delete$).catch((error: unknown) => {
        if (!apiErrors.isNotFound(error)) throw error;
      });
    }
  });

  it('labels a node that registers through the provider, and records a Normal Event about it', async () => {
    const { lines } = start(kubeConfig());
    await waitFor(() => lines.includes('Node cache synced; starting workers'), 'the cache to sync', 30000);
    const node = await register('cloud', `${prefix}zone-a/cloud`);
    const labeled = `Labeled node ${name('cloud')} ${DEFAULT_LABEL.key}=${DEFAULT_LABEL.value} (providerID ${prefix}zone-a/cloud)`;
    await waitFor(
      () => lines.includes(labeled),
      () => `the label; lines: ${lines.join('\n')}`,
      30000,
    );

    expect(linesAbout(lines, name('cloud'))).to.deep.equal([
      `controller: Add event, nodes [${name('cloud')}]`,
      `working queue add node ${name('cloud')}`,
      labeled,
    ]);
    expect(await labelOf(name('cloud'))).to.equal(DEFAULT_LABEL.value);
    await waitForAsync(async () => (await eventsAbout(name('cloud'))).length > 0, 'the Event', 30000);
    const [event] = await eventsAbout(name('cloud'));
    expect(event).to.deep.include({ type: 'Normal', reason: LABELED_REASON, action: 'AddLabel' });
    expect(event!.regarding).to.deep.include({ kind: 'Node', name: name('cloud'), uid: node.metadata!.uid });
  });

  it('re-checks a node that registers without a providerID, and labels it once its provider has set one', async () => {
    const { lines, events } = start(kubeConfig());
    await register('late');
    const waiting = `Node ${name('late')} has no spec.providerID yet; re-checking in 300 ms`;
    await waitFor(() => lines.filter((line) => line === waiting).length >= 2, 'two re-checks', 30000);
    await firstValueFrom(
      nodes().patch(name('late'), { type: 'merge', body: { spec: { providerID: `${prefix}zone-b/late` } } }),
    );
    const labeled = `Labeled node ${name('late')} ${DEFAULT_LABEL.key}=${DEFAULT_LABEL.value} (providerID ${prefix}zone-b/late)`;
    await waitFor(
      () => lines.includes(labeled),
      () => `the label at a re-check; lines: ${lines.join('\n')}`,
      30000,
    );

    expect(linesAbout(lines, name('late'))).to.deep.equal([
      `controller: Add event, nodes [${name('late')}]`,
      `working queue add node ${name('late')}`,
      waiting,
      labeled,
    ]);
    const late = events.filter((event) => 'key' in event && event.key === name('late'));
    expect(late.filter((event) => event.type === 'requeued').length).to.be.at.least(2);
    expect(late.filter((event) => event.type === 'failed')).to.deep.equal([]);
    expect(await labelOf(name('late'))).to.equal(DEFAULT_LABEL.value);
  });

  it('rides out another writer changing the node between its read and its write: the refused patch is retried inside the run', async () => {
    const racy = name('racy');
    // The other writer lands after the labeler read the node from its cache and before its patch goes out.
    const { transport, requests } = racingTransport(
      kubeConfig(),
      (request) => request.method === 'PATCH' && request.path === `/api/v1/nodes/${racy}`,
      () =>
        firstValueFrom(
          nodes().patch(racy, { type: 'merge', body: { metadata: { annotations: { 'example.com/owner': 'ops' } } } }),
        ),
    );
    const { lines, events } = start(transport);
    await waitFor(() => lines.includes('Node cache synced; starting workers'), 'the cache to sync', 30000);
    await register('racy', `${prefix}zone-c/racy`);
    await waitFor(
      () => lines.some((line) => line.startsWith(`Labeled node ${racy} `)),
      () => `the label; lines: ${lines.join('\n')}`,
      30000,
    );

    const patches = requests.filter(
      (request) => request.method === 'PATCH' && request.path === `/api/v1/nodes/${racy}`,
    );
    // Both servers refuse a JSON Patch whose resourceVersion test fails with a 422, which mutate reads as a
    // conflict once it sees the version moved (docs/client.md); a 409 would be retried the same way.
    expect(patches.map((request) => request.outcome)).to.deep.equal(['error 422', '200']);
    const tested = (request: (typeof patches)[number]) => (request.body as Array<{ op: string; value?: unknown }>)[0];
    expect(tested(patches[0]!)).to.not.deep.equal(tested(patches[1]!));
    const racyEvents = events.flatMap((event) =>
      event.type !== 'rejected' && event.key === racy ? [`${event.type}#${event.attempt}`] : [],
    );
    expect(racyEvents).to.deep.equal(['started#1', 'succeeded#1']);
    const stored = await firstValueFrom(nodes().get(racy));
    expect(stored.metadata?.annotations).to.deep.include({ 'example.com/owner': 'ops' });
    expect(stored.metadata?.labels).to.deep.include({ [DEFAULT_LABEL.key]: DEFAULT_LABEL.value });
  });

  it('says "Node has been deleted" for a node that is deleted', async () => {
    const { lines } = start(kubeConfig());
    await register('gone', 'elsewhere://gone');
    await waitFor(
      () => lines.some((line) => line.startsWith(`Node ${name('gone')} did not join through`)),
      'the first look',
      30000,
    );
    await firstValueFrom(nodes().delete(name('gone')));
    await waitFor(() => lines.includes(`Node has been deleted ${name('gone')}`), 'the delete', 30000);
    expect(linesAbout(lines, name('gone'))).to.deep.equal([
      `controller: Add event, nodes [${name('gone')}]`,
      `working queue add node ${name('gone')}`,
      `Node ${name('gone')} did not join through ${prefix} (providerID elsewhere://gone); leaving it alone`,
      `controller: Delete event, nodes [${name('gone')}]`,
      `working queue add node ${name('gone')}`,
      `Node has been deleted ${name('gone')}`,
    ]);
  });
}
