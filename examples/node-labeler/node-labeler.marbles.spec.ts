/**
 * The node labeler in virtual time on a virtual cluster: the labeler unchanged (its informer, its label writes,
 * its Events) against the in-memory API server served in process, driven by scheduled writes and faults, asserted
 * as reconcile marbles, printed lines and server state.
 */
import { expect } from 'chai';
import type { KubernetesObject, V1Node } from '@kubernetes/client-node';
import { timer, type Observable } from 'rxjs';
import type { RunHelpers } from 'rxjs/testing';
import { informer, resourceClient } from '../../src/index.js';
import { expectReconciles, runController, virtualCluster, type ControllerRun } from '../../src/testing/index.js';
import { NODE, nodeLabeler, nodeLabelerController } from './node-labeler.js';
import type { NodeLabelerOptions } from './options.js';
import { inVirtualTime } from '../shared/virtual-time.js';

const LABEL = 'rxkube.io/cloud-node';
const EVENT = { apiVersion: 'events.k8s.io/v1', kind: 'Event' };

const node = (name: string, providerID?: string, labels?: Record<string, string>): V1Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, ...(labels ? { labels } : {}) },
  spec: providerID === undefined ? {} : { providerID },
});

interface LabelerRun extends ControllerRun {
  /** `<time> <line>`: what the labeler printed. */
  readonly lines: string[];
  /** Writes as a user would, at the current virtual time. */
  readonly nodes: ReturnType<typeof resourceClient<V1Node>>;
}

/** Runs the labeler on a virtual cluster holding `objects` until `until`; `stop$` drains it instead when given. */
function labeler(
  helpers: RunHelpers & { scheduler: { now(): number } },
  objects: V1Node[],
  until: number,
  options: Partial<NodeLabelerOptions> = {},
): LabelerRun {
  const lines: string[] = [];
  const run = runController(
    {
      name: 'nodes',
      start: ({ connection, scheduler }) =>
        nodeLabeler(connection, {
          providerIdPrefix: 'demo://',
          // Jitter-free conflict retries, so their times are exact.
          nodes: informer<V1Node>(connection, NODE, { scheduler, random: () => 0 }),
          scheduler,
          random: () => 0,
          print: (line) => lines.push(`${scheduler.now()} ${line}`),
          ...options,
        }),
    },
    { scheduler: helpers.scheduler as never, until, objects },
  );
  timer(until - 1, helpers.scheduler as never).subscribe(() =>
    resourceClient<KubernetesObject>(run.cluster, EVENT, { namespace: 'default' })
      .list()
      .subscribe((list) => events.set(run.cluster, list.items as KubernetesObject[])),
  );
  return { ...run, lines, nodes: resourceClient<V1Node>(run.cluster, NODE) };
}

/** At virtual time `at`, subscribes `write()`. */
function at(helpers: { scheduler: never }, time: number, write: () => Observable<unknown>): void {
  timer(time, helpers.scheduler).subscribe(() => write().subscribe());
}

const labelOf = (run: ControllerRun, name: string): string | undefined =>
  (run.cluster.list(NODE).find((n) => n.metadata?.name === name) as V1Node | undefined)?.metadata?.labels?.[LABEL];
/** The Events as a client reads them through the API (events.k8s.io/v1), fetched just before the run ends. */
const events = new WeakMap<object, KubernetesObject[]>();
const eventsOf = (run: ControllerRun): KubernetesObject[] => events.get(run.cluster) ?? [];
const START = ['0 Starting node controller', '0 Node cache synced; starting workers'];

describe('the node-labeler example (marbles, virtual cluster)', () => {
  it('labels a matching node from the initial list at once and records a Normal Event about it', () => {
    let run!: LabelerRun;
    inVirtualTime((helpers) => {
      run = labeler(helpers, [node('cloud-1', 'demo://zone-a/cloud-1')], 1000);
      expectReconciles(helpers, run.events$).toBe('(sS) 996ms |');
    });
    expect(run.lines).to.deep.equal([
      ...START,
      '0 controller: Add event, nodes [cloud-1]',
      '0 working queue add node cloud-1',
      '0 Labeled node cloud-1 rxkube.io/cloud-node=true (providerID demo://zone-a/cloud-1)',
      '1000 Shutting down node controller',
    ]);
    const [stored] = run.cluster.list(NODE) as V1Node[];
    expect(stored!.metadata?.labels).to.deep.equal({ [LABEL]: 'true' });
    expect(eventsOf(run)).to.have.length(1);
    expect(eventsOf(run)[0]).to.deep.include({
      type: 'Normal',
      reason: 'Labeled',
      action: 'AddLabel',
      reportingController: 'rxkube.io/node-labeler',
      note: 'Added label rxkube.io/cloud-node=true: providerID demo://zone-a/cloud-1 starts with demo://',
    });
    expect((eventsOf(run)[0] as { regarding?: object }).regarding).to.deep.include({
      apiVersion: 'v1',
      kind: 'Node',
      name: 'cloud-1',
    });
  });

  it('re-checks a node without a spec.providerID every 30 s (requeueAfter, no failure), and labels it at the first re-check after it got one', () => {
    let run!: LabelerRun;
    inVirtualTime((helpers) => {
      run = labeler(helpers, [], 100_000);
      at(helpers as never, 1000, () => run.nodes.create(node('cloud-2')));
      // The provider sets the providerID: an update, which triggers nothing (the seed has no UpdateFunc).
      at(helpers as never, 45_000, () =>
        run.nodes.patch('cloud-2', { type: 'merge', body: { spec: { providerID: 'demo://zone-b/cloud-2' } } }),
      );
      expectReconciles(helpers, run.events$).toBe('1000ms (sSq) 29995ms (sSq) 29995ms (sS) 38996ms |', {
        q: { type: 'requeued', delayMs: 30_000 },
      });
    });
    expect(run.lines.filter((line) => /re-checking|Labeled/.test(line))).to.deep.equal([
      '1000 Node cloud-2 has no spec.providerID yet; re-checking in 30 s',
      '31000 Node cloud-2 has no spec.providerID yet; re-checking in 30 s',
      '61000 Labeled node cloud-2 rxkube.io/cloud-node=true (providerID demo://zone-b/cloud-2)',
    ]);
  });

  it('takes the re-check delay from recheckAfterMs', () => {
    let run!: LabelerRun;
    inVirtualTime((helpers) => {
      run = labeler(helpers, [node('cloud-2')], 2500, { recheckAfterMs: 1000 });
      expectReconciles(helpers, run.events$).toBe('(sSq) 995ms (sSq) 995ms (sSq) 495ms |');
    });
    expect(run.lines.filter((line) => line.includes('re-checking'))).to.deep.equal(
      [0, 1000, 2000].map((t) => `${t} Node cloud-2 has no spec.providerID yet; re-checking in 1 s`),
    );
  });

  it('rides out a conflict inside one run: mutate waits 10 ms, re-reads, runs the recipe again and writes against the new version', () => {
    let run!: LabelerRun;
    inVirtualTime((helpers) => {
      run = labeler(helpers, [node('cloud-1', 'demo://zone-a/cloud-1')], 1000);
      run.cluster.faults.conflictNext({ resource: NODE, name: 'cloud-1' });
      expectReconciles(helpers, run.events$).toBe('s 9ms S 989ms |');
    });
    expect(labelOf(run, 'cloud-1')).to.equal('true');
    expect(eventsOf(run).map((event) => (event as { reason?: string }).reason)).to.deep.equal(['Labeled']);
  });

  it('records no Event when the re-read after a conflict shows another writer already set the label', () => {
    let run!: LabelerRun;
    inVirtualTime((helpers) => {
      run = labeler(helpers, [node('cloud-1', 'demo://zone-a/cloud-1')], 1000);
      run.cluster.faults.conflictNext({ resource: NODE, name: 'cloud-1' });
      at(helpers as never, 5, () =>
        run.nodes.patch('cloud-1', { type: 'merge', body: { metadata: { labels: { [LABEL]: 'true' } } } }),
      );
      expectReconciles(helpers, run.events$).toBe('s 9ms S 989ms |');
    });
    expect(run.lines).to.include('10 Node cloud-1 already has rxkube.io/cloud-node=true (set by another writer)');
    expect(eventsOf(run)).to.deep.equal([]);
  });

  it("retries a failed write with the operator backoff (5 ms doubling), printing the seed's error line and recording a Warning", () => {
    let run!: LabelerRun;
    inVirtualTime((helpers) => {
      run = labeler(helpers, [node('cloud-1', 'demo://zone-a/cloud-1')], 1000);
      run.cluster.faults.failNext({ method: 'PATCH', path: '/api/v1/nodes/', status: 500, count: 2 });
      expectReconciles(helpers, run.events$).toBe('(sfr) 0ms (sfR) 5ms (sS) 981ms |', {
        r: { type: 'retrying', delayMs: 5, failures: 1 },
        R: { type: 'retrying', delayMs: 10, failures: 2 },
      });
    });
    expect(run.lines.filter((line) => /error syncing|Retrying/.test(line))).to.deep.equal([
      '0 controller: error syncing node, Internal error occurred: injected fault',
      '0 Retrying node cloud-1 in 5 ms (failure 1)',
      '5 controller: error syncing node, Internal error occurred: injected fault',
      '5 Retrying node cloud-1 in 10 ms (failure 2)',
    ]);
    // The second identical Warning joined the first one's series.
    const reasons = eventsOf(run).map((event) => [
      (event as { reason?: string }).reason,
      (event as { series?: { count?: number } }).series?.count,
    ]);
    expect(reasons).to.deep.equal([
      ['LabelFailed', 2],
      ['Labeled', undefined],
    ]);
  });

  it('keeps retrying a write that keeps failing, with the backoff capped at the 30 s re-check delay', () => {
    let run!: LabelerRun;
    inVirtualTime((helpers) => {
      run = labeler(helpers, [node('cloud-1', 'demo://zone-a/cloud-1')], 300_000);
      run.cluster.faults.failNext({ method: 'PATCH', path: '/api/v1/nodes/', status: 503, count: 10_000 });
    });
    const delays = run.events.filter((e) => e.type === 'retrying').map((e) => (e as { delayMs: number }).delayMs);
    expect(delays.slice(0, 14)).to.deep.equal([
      5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10240, 20480, 30000,
    ]);
    expect(delays.slice(14).every((delay) => delay === 30_000)).to.equal(true);
    expect(run.events.some((e) => e.type === 'dropped')).to.equal(false);
  });

  it('leaves alone, without a write, a node that joined another way and one that already has the label', () => {
    let run!: LabelerRun;
    inVirtualTime((helpers) => {
      run = labeler(
        helpers,
        [
          node('cloud-3', 'demo://zone-c/cloud-3', { [LABEL]: 'true' }),
          node('onprem-1', 'baremetal://rack-7/onprem-1'),
        ],
        1000,
        { workers: 1 },
      );
      expectReconciles(helpers, run.events$).toBe('(sSsS) 994ms |');
    });
    expect(run.lines.slice(START.length)).to.deep.equal([
      '0 controller: Add event, nodes [cloud-3]',
      '0 working queue add node cloud-3',
      '0 Node cloud-3 already has rxkube.io/cloud-node=true',
      '0 controller: Add event, nodes [onprem-1]',
      '0 working queue add node onprem-1',
      '0 Node onprem-1 did not join through demo:// (providerID baremetal://rack-7/onprem-1); leaving it alone',
      '1000 Shutting down node controller',
    ]);
    expect(labelOf(run, 'onprem-1')).to.equal(undefined);
    expect(eventsOf(run)).to.deep.equal([]);
  });

  it('prints the seed\'s Delete event and "Node has been deleted" for a deleted node, and stops re-checking it', () => {
    let run!: LabelerRun;
    inVirtualTime((helpers) => {
      run = labeler(helpers, [node('cloud-2')], 100_000);
      at(helpers as never, 10_000, () => run.nodes.delete('cloud-2'));
      // The fresh trigger takes the place of the re-check asked for at 0: nothing runs at 30 000.
      expectReconciles(helpers, run.events$).toBe('(sSq) 9995ms (sS) 89996ms |');
    });
    expect(run.lines.slice(-4)).to.deep.equal([
      '10000 controller: Delete event, nodes [cloud-2]',
      '10000 working queue add node cloud-2',
      '10000 Node has been deleted cloud-2',
      '100000 Shutting down node controller',
    ]);
  });

  it('on stop$ lets the write in flight finish and writes its Event before completing', () => {
    let run!: LabelerRun;
    inVirtualTime((helpers) => {
      run = labeler(helpers, [node('cloud-1', 'demo://zone-a/cloud-1')], 10_000, {
        stop$: timer(50, helpers.scheduler),
      });
      run.cluster.faults.latency(100);
      expectReconciles(helpers, run.events$).toBe('s 99ms S 99ms |');
    });
    expect(run.lines.slice(-2)).to.deep.equal([
      '100 Labeled node cloud-1 rxkube.io/cloud-node=true (providerID demo://zone-a/cloud-1)',
      '200 Shutting down node controller',
    ]);
    expect(eventsOf(run).map((event) => (event as { reason?: string }).reason)).to.deep.equal(['Labeled']);
  });
});

describe('the node-labeler example: options', () => {
  const cluster = virtualCluster({
    scheduler: { now: () => 0, schedule: () => ({ unsubscribe: () => undefined }) } as never,
  });
  const cases: ReadonlyArray<readonly [string, Partial<NodeLabelerOptions>, string | RegExp]> = [
    [
      'an empty providerID prefix',
      { providerIdPrefix: '' },
      'nodeLabeler: providerIdPrefix must be a non-empty string, got ""',
    ],
    [
      'a label key the API server refuses',
      { label: { key: 'bad key', value: 'x' } },
      /^nodeLabeler: invalid label bad key=x: /,
    ],
    [
      'a label value the API server refuses',
      { label: { key: 'ok', value: '-x' } },
      /^nodeLabeler: invalid label ok=-x: .*-x/,
    ],
    [
      'a label that is two labels',
      { label: { key: 'a', value: 'b,c=d' } },
      'nodeLabeler: invalid label a=b,c=d: not a single label key and value',
    ],
    [
      'a zero re-check delay',
      { recheckAfterMs: 0 },
      'nodeLabeler: recheckAfterMs must be a finite number of ms > 0, got 0',
    ],
    ['no workers', { workers: 0 }, 'nodeLabeler: workers must be an integer >= 1, got 0'],
  ];
  for (const [what, options, message] of cases) {
    it(`refuses ${what} when it is built, not on the first node`, () => {
      expect(() => nodeLabeler(cluster, { providerIdPrefix: 'demo://', ...options })).to.throw(message);
      expect(() => nodeLabelerController({ providerIdPrefix: 'demo://', ...options })).to.throw(message);
    });
  }
});
