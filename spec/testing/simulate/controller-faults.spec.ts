/**
 * The controller faults of simulate, in virtual time: a stale view (lagging watches, lists from the past, a relist
 * back in time), a crash at a drawn write with a fresh restart, and merged and reordered watch events; each one
 * deterministic for a seed.
 */
import { expect } from 'chai';
import type { V1ConfigMap } from '@kubernetes/client-node';
import * as fc from 'fast-check';
import { concat, defer, EMPTY, toArray } from 'rxjs';
import { reconcile, resourceClient, toKeys, type ControllerDefinition } from '../../../src/index.js';
import {
  CONTROLLER_FAULT_KINDS,
  runScenario,
  simulate,
  type FaultStep,
  type ScenarioStep,
  type SimulationWorld,
  type Workload,
  type WorkloadStep,
} from '../../../src/testing/index.js';
import { CONFIG_MAP, config } from './config-maps.js';

const workload: Workload<V1ConfigMap> = {
  resource: CONFIG_MAP,
  maxSteps: 4,
  step: fc.oneof(
    fc.constantFrom('a', 'b').map((name): WorkloadStep<V1ConfigMap> => ({ op: 'create', object: config(name) })),
    fc.record({ name: fc.constantFrom('a', 'b'), v: fc.constantFrom('1', '2', '3') }).map(
      ({ name, v }): WorkloadStep<V1ConfigMap> => ({
        op: 'update',
        name,
        namespace: 'default',
        patch: { data: { v } },
      }),
    ),
  ),
};

/** Reports what each run sees of its ConfigMap: `saw default/a v=2` or `saw default/a absent`. */
const observer: ControllerDefinition = {
  name: 'observer',
  start: ({ informers, scheduler, reportError }) => {
    const configs = informers.for<V1ConfigMap>(CONFIG_MAP, { namespace: 'default' });
    return configs.events$.pipe(
      toKeys(),
      reconcile(
        ({ key, object }) => {
          reportError(new Error(`saw ${key} ${object === undefined ? 'absent' : `v=${object.data?.['v'] ?? '-'}`}`));
        },
        { lookup: configs, gate: configs.synced$, scheduler },
      ),
    );
  },
};

/** For every ConfigMap without a dash, creates `<name>-1` then `<name>-2`: two writes in one reconcile. */
const pairs: ControllerDefinition = {
  name: 'pairs',
  start: ({ informers, scheduler, connection }) => {
    const configs = informers.for<V1ConfigMap>(CONFIG_MAP, { namespace: 'default' });
    const client = resourceClient<V1ConfigMap>(connection, CONFIG_MAP, { scheduler }).inNamespace('default');
    return configs.events$.pipe(
      toKeys(),
      reconcile(
        ({ key, object }) => {
          const name = key.split('/')[1]!;
          if (object === undefined || name.includes('-')) return EMPTY;
          const missing = ['1', '2'].filter((n) => configs.current().get(`default/${name}-${n}`) === undefined);
          // Both writes, one after the other: the run succeeds once the last is answered.
          return concat(...missing.map((n) => defer(() => client.create(config(`${name}-${n}`))))).pipe(toArray());
        },
        { lookup: configs, gate: configs.synced$, scheduler },
      ),
    );
  },
};

const settings = { duration: 20_000, settle: 20_000, workloads: [workload], invariants: {} } as const;
const create = (at: number, name: string, data?: Record<string, string>): ScenarioStep => ({
  at,
  workload: 0,
  step: { op: 'create', object: config(name, data) },
});
const update = (at: number, name: string, v: string): ScenarioStep => ({
  at,
  workload: 0,
  step: { op: 'update', name, namespace: 'default', patch: { data: { v } } },
});
const fault = (at: number, step: FaultStep): ScenarioStep => ({ at, fault: step });
/** The trace lines of the controller's reports and crashes, without the rest. */
const seen = (trace: readonly string[]): string[] =>
  trace
    .filter((line) => / (controller reported|controller crashed|controller restarted)/.test(line))
    .map((line) => line.replace('controller reported: ', ''));

describe('simulate: controller faults', function () {
  this.timeout(60_000);

  describe('staleView', () => {
    it('delivers every watch event lagMs late, in order, while the view is stale', () => {
      const steps = [
        fault(0, { fault: 'staleView', lagMs: 5_000, versions: 1, forMs: 10_000, relist: false }),
        create(100, 'a'),
        update(200, 'a', '2'),
        create(12_000, 'b'),
      ];
      const run = runScenario(observer, { seed: 1, steps }, settings);
      expect(seen(run.trace)).to.deep.equal([
        '5100 saw default/a v=-',
        '5200 saw default/a v=2',
        '12000 saw default/b v=-',
      ]);
    });

    it('holds each watch event until the truth is `versions` resourceVersions past it, in order, when the watches lag by versions', () => {
      const steps = [
        fault(0, { fault: 'staleView', lagMs: 1, versions: 2, forMs: 10_000, relist: false, watchLag: 'versions' }),
        create(100, 'a'),
        update(200, 'a', '2'),
        create(300, 'b'),
        update(400, 'a', '3'),
        update(15_000, 'b', '4'),
      ];
      const run = runScenario(observer, { seed: 1, steps }, settings);
      // a's creation shows once two more writes happened (b's creation, at 300), its update at the next write (400);
      // the last two wait for writes that never come, until the view heals at 10 000; from then on, no lag.
      expect(seen(run.trace)).to.deep.equal([
        '300 saw default/a v=-',
        '400 saw default/a v=2',
        '10000 saw default/b v=-',
        '10000 saw default/a v=3',
        '15000 saw default/b v=4',
      ]);
    });

    it('relists back in time at a failover: the controller sees a state older than the one it had seen', () => {
      const steps = [
        create(100, 'a'),
        update(200, 'a', '2'),
        update(300, 'a', '3'),
        fault(1_000, { fault: 'staleView', lagMs: 1, versions: 2, forMs: 3_000, relist: true }),
      ];
      const run = runScenario(observer, { seed: 1, steps }, settings);
      // The 410 arrives 1 ms late; the relist is served two resourceVersions back, then the watch replays, 1 ms late.
      expect(seen(run.trace)).to.deep.equal([
        '100 saw default/a v=-',
        '200 saw default/a v=2',
        '300 saw default/a v=3',
        '1001 saw default/a v=-',
        '1002 saw default/a v=2',
        '1002 saw default/a v=3',
      ]);
    });
  });

  describe('crash', () => {
    const at = (mode: 'notSent' | 'sent' | 'answerLost') => [
      fault(0, { fault: 'crash', write: 1, mode, restartMs: 1_000 }),
      create(100, 'a'),
    ];
    /** Both pairs exist at the end, made once each. */
    const both = {
      ...settings,
      invariants: {
        desired: ({ server }: SimulationWorld) => {
          const names = server(CONFIG_MAP, 'default')
            .map((c) => c.metadata?.name)
            .join();
          return names === 'a,a-1,a-2' || names;
        },
      },
    };

    it('crashes before the drawn write leaves (notSent), then restarts from a fresh manager that finishes the job', () => {
      const run = runScenario(pairs, { seed: 1, steps: at('notSent') }, both);
      expect(seen(run.trace)).to.deep.equal([
        '100 controller crashed at POST /api/v1/namespaces/default/configmaps (notSent)',
        '1100 controller restarted (incarnation 2)',
      ]);
      // Only the first write reached the server before the crash; the restarted controller made the second.
      const log = run.trace.filter((line) => /^1100 (started default\/a#|succeeded default\/a$)/.test(line));
      expect(log).to.deep.equal(['1100 started default/a#1', '1100 succeeded default/a']);
      expect(run.violations).to.deep.equal([]);
    });

    it('crashes once the drawn write is stored (sent, answerLost), and nothing it sends afterwards leaves', () => {
      for (const mode of ['sent', 'answerLost'] as const) {
        const run = runScenario(pairs, { seed: 1, steps: at(mode) }, both);
        expect(seen(run.trace), mode).to.deep.equal([
          `100 controller crashed at POST /api/v1/namespaces/default/configmaps (${mode})`,
          '1100 controller restarted (incarnation 2)',
        ]);
        // Both pairs existed before the restart: the new manager finds nothing to do.
        expect(
          run.trace.filter((line) => /^1100 (started default\/a#|succeeded default\/a$)/.test(line)),
        ).to.deep.equal(['1100 started default/a#1', '1100 succeeded default/a']);
        expect(run.violations).to.deep.equal([]);
      }
    });
  });

  describe('mergeEvents', () => {
    it('delivers only the last state of each object after the window: the intermediate states are never seen', () => {
      const steps = [
        fault(0, { fault: 'mergeEvents', forMs: 1_000, spreadMs: 0 }),
        create(100, 'a'),
        update(200, 'a', '2'),
        update(300, 'a', '3'),
        create(400, 'b'),
        update(2_000, 'a', '4'),
      ];
      const run = runScenario(observer, { seed: 1, steps }, settings);
      expect(seen(run.trace)).to.deep.equal([
        '1000 saw default/a v=3',
        '1000 saw default/b v=-',
        '2000 saw default/a v=4',
      ]);
    });
  });

  it('gives the same trace, byte for byte, for the same seed with every controller fault drawn', () => {
    fc.assert(
      fc.property(fc.nat(), (seed) => {
        const options = {
          seed,
          runs: 1,
          duration: 20_000,
          settle: 20_000,
          workload,
          faults: { kinds: CONTROLLER_FAULT_KINDS, min: 2, max: 4 },
        };
        const first = simulate(pairs, options);
        const second = simulate(pairs, options);
        expect(second.trace.join('\n')).to.equal(first.trace.join('\n'));
      }),
      { numRuns: 5, seed: 7 },
    );
  });

  it('shows the drawn controller faults in the trace', () => {
    const run = runScenario(
      observer,
      { seed: 3, steps: [fault(5, { fault: 'mergeEvents', forMs: 10, spreadMs: 0 })] },
      settings,
    );
    expect(run.trace).to.include('5 fault mergeEvents forMs=10 spreadMs=0');
  });
});
