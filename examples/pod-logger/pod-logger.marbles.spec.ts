/**
 * The pod logger in virtual time on a virtual cluster: the controller unchanged (its informer, its workqueue
 * semantics, its lines) against the in-memory API server served in process, driven by scheduled writes and faults.
 */
import { expect } from 'chai';
import type { V1Pod } from '@kubernetes/client-node';
import { timer, type Observable } from 'rxjs';
import { resourceClient } from '../../src/index.js';
import { expectReconciles, runController, type ControllerRun } from '../../src/testing/index.js';
import { FAIL_ANNOTATION, podLogger } from './pod-logger.js';
import { demoLines, faultScenarioLines } from './spec-helpers.js';
import { inVirtualTime } from '../shared/virtual-time.js';

const POD = { apiVersion: 'v1', kind: 'Pod' };

const pod = (name: string, annotations: Record<string, string> = {}): V1Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', annotations },
  spec: { containers: [{ name: 'app', image: 'registry.example.com/demo:1.0' }] },
});

interface PodRun extends ControllerRun {
  readonly lines: string[];
  readonly pods: ReturnType<typeof resourceClient<V1Pod>>;
}

type Helpers = Parameters<Parameters<typeof inVirtualTime>[0]>[0];

/** Runs the pod logger on a virtual cluster holding `objects` until `until`. */
function podRun(helpers: Helpers, objects: V1Pod[], until: number, stop$?: Observable<unknown>): PodRun {
  const lines: string[] = [];
  const { scheduler } = helpers;
  const run = runController(podLogger({ print: (line) => lines.push(`${scheduler.now()} ${line}`) }), {
    scheduler,
    until,
    objects,
    ...(stop$ ? { stop$ } : {}),
  });
  return { ...run, lines, pods: resourceClient<V1Pod>(run.cluster, POD, { namespace: 'default' }) };
}

/** At virtual time `time`, subscribes `act()`. */
function at(helpers: Helpers, time: number, act: () => Observable<unknown> | void): void {
  timer(time, helpers.scheduler).subscribe(() => act()?.subscribe());
}

describe('the pod-logger example (marbles, virtual cluster)', () => {
  it('prints what the seed controller prints for the demo workload: syncs, retries with 5 ms doubling, a drop after 5 retries, a delete', () => {
    let run!: PodRun;
    inVirtualTime((helpers) => {
      run = podRun(helpers, [], 10_000);
      at(helpers, 300, () => run.pods.create(pod('web-1')));
      at(helpers, 600, () => run.pods.create(pod('web-2')));
      at(helpers, 1100, () =>
        run.pods.patch('web-1', { type: 'merge', body: { metadata: { labels: { tier: 'frontend' } } } }),
      );
      at(helpers, 1600, () => run.pods.create(pod('flaky', { [FAIL_ANNOTATION]: '3' })));
      at(helpers, 2400, () => run.pods.create(pod('doomed', { [FAIL_ANNOTATION]: 'always' })));
      at(helpers, 3200, () => run.pods.delete('web-2'));
      expectReconciles(helpers, run.events$, { key: 'default/flaky' }).toBe(
        '1600ms (sfr) 0ms (sfr) 5ms (sfr) 15ms (sS) 8361ms |',
      );
      expectReconciles(helpers, run.events$, { key: 'default/doomed' }).toBe(
        '2400ms (sfr) 0ms (sfr) 5ms (sfr) 15ms (sfr) 35ms (sfr) 75ms (sfd) 7440ms |',
      );
    });
    expect(run.lines.map((line) => line.replace(/^[\d.]+ /, ''))).to.deep.equal([
      ...demoLines(),
      'Stopping Pod controller',
    ]);
  });

  it('logs each change exactly once through dropped watches, a 410 relist and a server restart', () => {
    let run!: PodRun;
    inVirtualTime((helpers) => {
      run = podRun(helpers, [pod('a')], 600_000);
      at(helpers, 1000, () => void run.cluster.faults.dropWatches({ mode: 'abrupt' }));
      at(helpers, 1001, () => run.pods.create(pod('b')));
      // Delete `a` while no watch is open, then compact: the resumed watch gets 410 and the relist finds `a` gone.
      at(helpers, 60_000, () => {
        run.cluster.faults.failNext({ count: 1000, method: 'GET', path: /watch=/, status: 503 });
        run.cluster.faults.dropWatches({ mode: 'clean' });
      });
      at(helpers, 60_001, () => run.pods.delete('a'));
      at(helpers, 60_002, () => {
        run.cluster.faults.compact();
        run.cluster.faults.clear();
      });
      at(helpers, 300_000, () => void run.cluster.faults.restart());
      at(helpers, 300_001, () =>
        run.pods.patch('b', { type: 'merge', body: { metadata: { labels: { touched: 'yes' } } } }),
      );
    });
    expect(
      run.lines.map((line) => line.replace(/^[\d.]+ /, '')).filter((line) => !line.startsWith('Error watching pods')),
    ).to.deep.equal([...faultScenarioLines(), 'Stopping Pod controller']);
    expect(run.events.filter((e) => e.type === 'failed')).to.deep.equal([]);
  });

  it('drains and stops cleanly on stop$', () => {
    let run!: PodRun;
    inVirtualTime((helpers) => {
      run = podRun(helpers, [], 10_000, timer(100, helpers.scheduler));
      expectReconciles(helpers, run.events$).toBe('100ms |');
    });
    expect(run.lines).to.deep.equal([
      '0 Starting Pod controller',
      '0 Pod cache synced; starting workers',
      '100 Stopping Pod controller',
    ]);
  });
});
