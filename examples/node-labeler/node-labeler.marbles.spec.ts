/**
 * The node labeler in virtual time: a scripted informer source, a scripted transport for the writes (the label
 * patch, the conflict re-read, the Events), and one timeline of what it printed and sent.
 */
import { expect } from 'chai';
import type { V1Node } from '@kubernetes/client-node';
import { concatMap, from, merge, NEVER, timer, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { informerFromSource, type ReconcileEvent, type TransportRequest, type TransportResponse, type WatchEvent } from '../../src/index.js';
import { apiError, conflict, fail, ok, scriptedTransport, type SentRequest } from '../../spec/client/support/scripted-transport.js';
import { nodeLabeler, nodeLabelerController } from './node-labeler.js';
import type { NodeLabelerOptions } from './options.js';

const NODES = '/api/v1/nodes';
const EVENTS = '/apis/events.k8s.io/v1/namespaces/default/events';
const LABEL = 'rxkube.io/cloud-node';

/** A node as a list serves it: no kind, no apiVersion. */
function node(name: string, resourceVersion: string, providerID?: string, labels?: Record<string, string>): V1Node {
  return {
    metadata: { name, uid: `uid-${name}`, resourceVersion, ...(labels ? { labels } : {}) },
    spec: providerID === undefined ? {} : { providerID },
  };
}

/** The node the server answers a write with: the object as given, with kind, apiVersion and a resourceVersion. */
function written(object: V1Node, resourceVersion: string): V1Node {
  return { apiVersion: 'v1', kind: 'Node', ...object, metadata: { ...object.metadata, resourceVersion } };
}

const initialList = (...nodes: V1Node[]): WatchEvent<V1Node>[] => [
  { type: 'relistStarted' }, ...nodes.map((object) => ({ type: 'listed' as const, object })), { type: 'relistDone', resourceVersion: '1' },
];

/** Deltas at virtual times: `[time, ...deltas]`. The source never completes, as a watch does not. */
function source(steps: ReadonlyArray<readonly [number, ...WatchEvent<V1Node>[]]>): Observable<WatchEvent<V1Node>> {
  return merge(...steps.map(([at, ...deltas]) => timer(at).pipe(concatMap(() => from(deltas)))), NEVER);
}

/** Answers Event writes as the API server does: the Event back, with a resourceVersion. */
function eventAnswer(request: TransportRequest): Observable<TransportResponse> | undefined {
  if (!request.path.startsWith(EVENTS)) return undefined;
  return ok({ ...(request.body as object), metadata: { ...(request.body as { metadata?: object }).metadata, resourceVersion: '100' } });
}

interface Run {
  /** `<time> <line>`: what the labeler printed, and `<time> <METHOD> <path>` for every request, in order. */
  readonly lines: string[];
  readonly requests: SentRequest[];
  readonly events: ReconcileEvent[];
}

/**
 * Runs the labeler over `deltas` with node writes answered by `answer` (Events are answered by the script), stops
 * it at `stopAt` and runs virtual time to the end.
 */
function run(
  deltas: ReadonlyArray<readonly [number, ...WatchEvent<V1Node>[]]>,
  answer: (request: TransportRequest, index: number) => Observable<TransportResponse>,
  stopAt: number,
  options: Partial<NodeLabelerOptions> = {},
): Run {
  const scheduler = new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
  let result!: Run;
  scheduler.run(({ cold }) => {
    let nodeWrites = 0;
    const scripted = scriptedTransport(scheduler, (request) => eventAnswer(request) ?? answer(request, nodeWrites++));
    const events: ReconcileEvent[] = [];
    const { lines } = scripted;
    nodeLabeler(scripted.transport, {
      providerIdPrefix: 'demo://',
      nodes: informerFromSource(source(deltas), { scheduler }),
      scheduler,
      random: () => 0,
      print: (line) => lines.push(`${scheduler.now()} ${line}`),
      stop$: cold(`${stopAt}ms a`),
      ...options,
    }).subscribe({
      next: (event) => events.push(event),
      error: (error: unknown) => lines.push(`${scheduler.now()} error ${String(error)}`),
      complete: () => lines.push(`${scheduler.now()} complete`),
    });
    scheduler.flush();
    result = { lines, requests: scripted.requests, events };
  });
  return result;
}

const START = ['0 Starting node controller', '0 Node cache synced; starting workers'];
const added = (time: number, name: string): string[] => [`${time} controller: Add event, nodes [${name}]`, `${time} working queue add node ${name}`];
const STOP = (time: number): string[] => [`${time} complete`, `${time} Shutting down node controller`];
const kinds = (events: ReconcileEvent[]): string[] => events.map((e) => `${e.time} ${e.type}${'key' in e ? ` ${e.key}` : ''}`);

describe('the node-labeler example (marbles)', () => {
  it('labels a matching node from the initial list with one guarded JSON Patch, then records a Normal Event about it', () => {
    const cloud1 = node('cloud-1', '5', 'demo://zone-a/cloud-1');
    const { lines, requests } = run([[0, ...initialList(cloud1)]], () => ok(written(node('cloud-1', '', 'demo://zone-a/cloud-1', { [LABEL]: 'true' }), '6')), 1000);
    expect(lines).to.deep.equal([
      ...START,
      ...added(0, 'cloud-1'),
      `0 PATCH ${NODES}/cloud-1`,
      '1 Labeled node cloud-1 rxkube.io/cloud-node=true (providerID demo://zone-a/cloud-1)',
      `1 POST ${EVENTS}`,
      ...STOP(1000),
    ]);
    expect(requests[0]!.contentType).to.equal('application/json-patch+json');
    expect(requests[0]!.body).to.deep.equal([
      { op: 'test', path: '/metadata/resourceVersion', value: '5' },
      { op: 'add', path: '/metadata/labels', value: { [LABEL]: 'true' } },
    ]);
    expect(requests[0]!.query).to.include({ fieldManager: 'rxkube-node-labeler' });
    // The listed node had no kind: the Event still names a Node, at the version the patch wrote.
    expect(requests[1]!.body).to.deep.include({
      type: 'Normal', reason: 'Labeled', action: 'AddLabel', reportingController: 'rxkube.io/node-labeler',
      note: 'Added label rxkube.io/cloud-node=true: providerID demo://zone-a/cloud-1 starts with demo://',
      regarding: { apiVersion: 'v1', kind: 'Node', name: 'cloud-1', uid: 'uid-cloud-1', resourceVersion: '6' },
    });
  });

  it('re-checks a node without a spec.providerID every 30 s (requeueAfter, no failure), and labels it at the first re-check after it got one', () => {
    const { lines, events } = run([
      [0, ...initialList()],
      [1000, { type: 'added', object: node('cloud-2', '7') }],
      // The provider sets the providerID: an update, which triggers nothing (the seed has no UpdateFunc).
      [45_000, { type: 'modified', object: node('cloud-2', '8', 'demo://zone-b/cloud-2') }],
    ], () => ok(written(node('cloud-2', '', 'demo://zone-b/cloud-2', { [LABEL]: 'true' }), '9')), 100_000);
    expect(lines).to.deep.equal([
      ...START,
      ...added(1000, 'cloud-2'),
      '1000 Node cloud-2 has no spec.providerID yet; re-checking in 30 s',
      '31000 Node cloud-2 has no spec.providerID yet; re-checking in 30 s',
      `61000 PATCH ${NODES}/cloud-2`,
      '61001 Labeled node cloud-2 rxkube.io/cloud-node=true (providerID demo://zone-b/cloud-2)',
      `61001 POST ${EVENTS}`,
      ...STOP(100_000),
    ]);
    expect(kinds(events)).to.deep.equal([
      '1000 started cloud-2', '1000 succeeded cloud-2', '1000 requeued cloud-2',
      '31000 started cloud-2', '31000 succeeded cloud-2', '31000 requeued cloud-2',
      '61000 started cloud-2', '61001 succeeded cloud-2',
    ]);
    expect(events.filter((e) => e.type === 'requeued').map((e) => (e as { delayMs: number }).delayMs)).to.deep.equal([30_000, 30_000]);
  });

  it('takes the re-check delay from recheckAfterMs', () => {
    const { lines } = run([[0, ...initialList(node('cloud-2', '7'))]], () => fail(new Error('no write expected')), 2500, { recheckAfterMs: 1000 });
    expect(lines.filter((line) => line.includes('re-checking'))).to.deep.equal(
      [0, 1000, 2000].map((t) => `${t} Node cloud-2 has no spec.providerID yet; re-checking in 1 s`),
    );
  });

  it('rides out a conflict inside one run: mutate waits 10 ms, re-reads, runs the recipe again and writes against the new version', () => {
    const cloud1 = node('cloud-1', '5', 'demo://zone-a/cloud-1');
    // Another writer annotated the node after the cache read it at version 5.
    const annotated = written({ ...cloud1, metadata: { ...cloud1.metadata, annotations: { owner: 'ops' } } }, '9');
    const answers = [fail(conflict()), ok(annotated), ok(written(node('cloud-1', '', 'demo://zone-a/cloud-1', { [LABEL]: 'true' }), '10'))];
    const { lines, requests, events } = run([[0, ...initialList(cloud1)]], (_, i) => answers[i]!, 1000);
    expect(lines).to.deep.equal([
      ...START,
      ...added(0, 'cloud-1'),
      `0 PATCH ${NODES}/cloud-1`,
      `11 GET ${NODES}/cloud-1`,
      `12 PATCH ${NODES}/cloud-1`,
      '13 Labeled node cloud-1 rxkube.io/cloud-node=true (providerID demo://zone-a/cloud-1)',
      `13 POST ${EVENTS}`,
      ...STOP(1000),
    ]);
    expect((requests[2]!.body as unknown[])[0]).to.deep.equal({ op: 'test', path: '/metadata/resourceVersion', value: '9' });
    expect(kinds(events)).to.deep.equal(['0 started cloud-1', '13 succeeded cloud-1']);
  });

  it('records no Event when the re-read after a conflict shows another writer already set the label', () => {
    const cloud1 = node('cloud-1', '5', 'demo://zone-a/cloud-1');
    const answers = [fail(conflict()), ok(written(node('cloud-1', '', 'demo://zone-a/cloud-1', { [LABEL]: 'true' }), '9'))];
    const { lines } = run([[0, ...initialList(cloud1)]], (_, i) => answers[i]!, 1000);
    expect(lines.slice(START.length + 2)).to.deep.equal([
      `0 PATCH ${NODES}/cloud-1`,
      `11 GET ${NODES}/cloud-1`,
      '12 Node cloud-1 already has rxkube.io/cloud-node=true (set by another writer)',
      ...STOP(1000),
    ]);
  });

  it('retries a failed write with the operator backoff (5 ms doubling), printing the seed\'s error line and recording a Warning', () => {
    const cloud1 = node('cloud-1', '5', 'demo://zone-a/cloud-1');
    const boom = apiError(500, 'InternalError', 'etcd is unhappy');
    const answers = [fail(boom), fail(boom), ok(written(node('cloud-1', '', 'demo://zone-a/cloud-1', { [LABEL]: 'true' }), '6'))];
    const { lines, requests, events } = run([[0, ...initialList(cloud1)]], (_, i) => answers[i]!, 1000);
    expect(lines).to.deep.equal([
      ...START,
      ...added(0, 'cloud-1'),
      `0 PATCH ${NODES}/cloud-1`,
      '1 controller: error syncing node, etcd is unhappy',
      '1 Retrying node cloud-1 in 5 ms (failure 1)',
      `1 POST ${EVENTS}`,
      `6 PATCH ${NODES}/cloud-1`,
      '7 controller: error syncing node, etcd is unhappy',
      '7 Retrying node cloud-1 in 10 ms (failure 2)',
      // The second identical Warning joins the first one's series (count 2), written at once.
      `7 PATCH ${EVENTS}/${(requests[1]!.body as { metadata: { name: string } }).metadata.name}`,
      `17 PATCH ${NODES}/cloud-1`,
      '18 Labeled node cloud-1 rxkube.io/cloud-node=true (providerID demo://zone-a/cloud-1)',
      `18 POST ${EVENTS}`,
      ...STOP(1000),
    ]);
    expect(requests[1]!.body).to.deep.include({
      type: 'Warning', reason: 'LabelFailed', action: 'AddLabel', note: 'Adding label rxkube.io/cloud-node=true failed: etcd is unhappy',
      regarding: { apiVersion: 'v1', kind: 'Node', name: 'cloud-1', uid: 'uid-cloud-1', resourceVersion: '5' },
    });
    expect(kinds(events).filter((line) => !line.includes('started'))).to.deep.equal([
      '1 failed cloud-1', '1 retrying cloud-1', '7 failed cloud-1', '7 retrying cloud-1', '18 succeeded cloud-1',
    ]);
  });

  it('keeps retrying a write that keeps failing, with the backoff capped at the 30 s re-check delay', () => {
    const { events } = run(
      [[0, ...initialList(node('cloud-1', '5', 'demo://zone-a/cloud-1'))]],
      () => fail(apiError(503, 'ServiceUnavailable', 'try later')), 300_000,
    );
    const delays = events.filter((e) => e.type === 'retrying').map((e) => (e as { delayMs: number }).delayMs);
    expect(delays.slice(0, 14)).to.deep.equal([5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10240, 20480, 30000]);
    expect(delays.slice(14).every((delay) => delay === 30_000)).to.equal(true);
    expect(events.some((e) => e.type === 'dropped')).to.equal(false);
  });

  it('leaves alone, without a request, a node that joined another way and one that already has the label', () => {
    const { lines } = run([[0, ...initialList(
      node('onprem-1', '3', 'baremetal://rack-7/onprem-1'),
      node('cloud-3', '4', 'demo://zone-c/cloud-3', { [LABEL]: 'true' }),
    )]], () => fail(new Error('no write expected')), 1000, { workers: 1 });
    expect(lines).to.deep.equal([
      ...START,
      ...added(0, 'onprem-1'),
      '0 Node onprem-1 did not join through demo:// (providerID baremetal://rack-7/onprem-1); leaving it alone',
      ...added(0, 'cloud-3'),
      '0 Node cloud-3 already has rxkube.io/cloud-node=true',
      ...STOP(1000),
    ]);
  });

  it('prints the seed\'s Delete event and "Node has been deleted" for a deleted node, and stops re-checking it', () => {
    const cloud2 = node('cloud-2', '7');
    const { lines } = run([
      [0, ...initialList(cloud2)],
      [10_000, { type: 'deleted', object: cloud2 }],
    ], () => fail(new Error('no write expected')), 100_000);
    expect(lines).to.deep.equal([
      ...START,
      ...added(0, 'cloud-2'),
      '0 Node cloud-2 has no spec.providerID yet; re-checking in 30 s',
      '10000 controller: Delete event, nodes [cloud-2]',
      '10000 working queue add node cloud-2',
      // The fresh trigger takes the place of the re-check asked for at 0: nothing runs at 30 000.
      '10000 Node has been deleted cloud-2',
      ...STOP(100_000),
    ]);
  });

  it('takes a 404 on the write for a node deleted meanwhile: no failure, no Warning', () => {
    const { lines, events } = run(
      [[0, ...initialList(node('cloud-1', '5', 'demo://zone-a/cloud-1'))]],
      () => fail(apiError(404, 'NotFound', 'nodes "cloud-1" not found')), 1000,
    );
    expect(lines.slice(START.length + 2)).to.deep.equal([`0 PATCH ${NODES}/cloud-1`, '1 Node has been deleted cloud-1', ...STOP(1000)]);
    expect(kinds(events)).to.deep.equal(['0 started cloud-1', '1 succeeded cloud-1']);
  });

  it('on stop$ lets the write in flight finish and writes its Event before completing', () => {
    const slow = (): Observable<TransportResponse> => ok(written(node('cloud-1', '', 'demo://zone-a/cloud-1', { [LABEL]: 'true' }), '6'), 100);
    const { lines } = run([[0, ...initialList(node('cloud-1', '5', 'demo://zone-a/cloud-1'))]], slow, 50);
    expect(lines.slice(START.length + 2)).to.deep.equal([
      `0 PATCH ${NODES}/cloud-1`,
      '100 Labeled node cloud-1 rxkube.io/cloud-node=true (providerID demo://zone-a/cloud-1)',
      `100 POST ${EVENTS}`,
      ...STOP(101),
    ]);
  });
});

describe('the node-labeler example: options', () => {
  const transport = scriptedTransport(new TestScheduler(() => undefined), () => NEVER).transport;
  const cases: ReadonlyArray<readonly [string, Partial<NodeLabelerOptions>, string | RegExp]> = [
    ['an empty providerID prefix', { providerIdPrefix: '' }, 'nodeLabeler: providerIdPrefix must be a non-empty string, got ""'],
    ['a label key the API server refuses', { label: { key: 'bad key', value: 'x' } }, /^nodeLabeler: invalid label bad key=x: /],
    ['a label value the API server refuses', { label: { key: 'ok', value: '-x' } }, /^nodeLabeler: invalid label ok=-x: .*-x/],
    ['a label that is two labels', { label: { key: 'a', value: 'b,c=d' } }, 'nodeLabeler: invalid label a=b,c=d: not a single label key and value'],
    ['a zero re-check delay', { recheckAfterMs: 0 }, 'nodeLabeler: recheckAfterMs must be a finite number of ms > 0, got 0'],
    ['no workers', { workers: 0 }, 'nodeLabeler: workers must be an integer >= 1, got 0'],
  ];
  for (const [what, options, message] of cases) {
    it(`refuses ${what} when it is built, not on the first node`, () => {
      expect(() => nodeLabeler(transport, { providerIdPrefix: 'demo://', ...options })).to.throw(message);
      expect(() => nodeLabelerController({ providerIdPrefix: 'demo://', ...options })).to.throw(message);
    });
  }
});
