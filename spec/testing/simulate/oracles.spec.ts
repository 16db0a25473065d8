/**
 * The oracles beside the invariants: eventually stable, idempotence, crash safety and no destructive action on a
 * stale read, each catching a tiny controller with the flaw and passing one without it.
 */
import { expect } from 'chai';
import type { V1ConfigMap } from '@kubernetes/client-node';
import * as fc from 'fast-check';
import { concat, defer, EMPTY, map, of, toArray } from 'rxjs';
import { reconcile, resourceClient, toKeys, type ControllerDefinition } from '../../../src/index.js';
import {
  runScenario,
  simulate,
  type FaultStep,
  type ScenarioStep,
  type SimulationWorld,
  type Workload,
} from '../../../src/testing/index.js';
import { CONFIG_MAP, config } from './config-maps.js';

const workload: Workload<V1ConfigMap> = {
  resource: CONFIG_MAP,
  minSteps: 1,
  maxSteps: 3,
  step: fc.constantFrom('a', 'b').map((name) => ({ op: 'create' as const, object: config(name) })),
};
const create = (at: number, name: string): ScenarioStep => ({
  at,
  workload: 0,
  step: { op: 'create', object: config(name) },
});
const fault = (at: number, step: FaultStep): ScenarioStep => ({ at, fault: step });
const names = ({ server }: SimulationWorld): string[] =>
  server(CONFIG_MAP, 'default').map((c) => c.metadata?.name ?? '?');

/** A ConfigMap controller whose run is `run(name, object, client, cache)`. */
function configController(
  name: string,
  run: (
    key: string,
    object: V1ConfigMap | undefined,
    client: ReturnType<typeof clientOf>,
    cached: (name: string) => V1ConfigMap | undefined,
    now: () => number,
  ) => unknown,
): ControllerDefinition {
  return {
    name,
    start: ({ informers, scheduler, connection }) => {
      const configs = informers.for<V1ConfigMap>(CONFIG_MAP, { namespace: 'default' });
      const client = clientOf(connection, scheduler);
      return configs.events$.pipe(
        toKeys(),
        reconcile(
          ({ key, object }) =>
            run(
              key.split('/')[1]!,
              object,
              client,
              (n) => configs.current().get(`default/${n}`),
              () => scheduler.now(),
            ) as never,
          { lookup: configs, gate: configs.synced$, scheduler },
        ),
      );
    },
  };
}
const clientOf = (
  connection: Parameters<typeof resourceClient>[0],
  scheduler: Parameters<ControllerDefinition['start']>[0]['scheduler'],
) => resourceClient<V1ConfigMap>(connection, CONFIG_MAP, { scheduler }).inNamespace('default');

/** Makes `<name>-1` and `<name>-2` for each plain ConfigMap, checking each one: crash safe. */
const pairs = configController('pairs', (name, object, client, cached) => {
  if (object === undefined || name.includes('-')) return EMPTY;
  const missing = ['1', '2'].filter((n) => cached(`${name}-${n}`) === undefined);
  return concat(...missing.map((n) => defer(() => client.create(config(`${name}-${n}`))))).pipe(toArray());
});
/** The same, but it takes `<name>-1` as proof that both exist: the two writes are assumed to happen together. */
const together = configController('together', (name, object, client, cached) => {
  if (object === undefined || name.includes('-') || cached(`${name}-1`) !== undefined) return EMPTY;
  return concat(
    defer(() => client.create(config(`${name}-1`))),
    defer(() => client.create(config(`${name}-2`))),
  ).pipe(toArray());
});

const settings = { duration: 10_000, settle: 20_000, workloads: [workload] } as const;

describe('simulate: oracles', function () {
  this.timeout(60_000);

  describe('eventually stable (stableFor)', () => {
    /** Stamps `<name>-stamp` again every 5 s, forever: it never stops writing. */
    let stamps = 0;
    const restless = configController('restless', (name, object, client, cached) => {
      if (object === undefined || name.includes('-')) return EMPTY;
      const stamp = { data: { at: String(++stamps) } };
      const write =
        cached(`${name}-stamp`) === undefined
          ? client.create({ ...config(`${name}-stamp`), ...stamp })
          : client.patch(`${name}-stamp`, { type: 'merge', body: stamp });
      return write.pipe(map(() => ({ requeueAfter: 5_000 })));
    });
    const steps = [create(100, 'a')];

    it('fails a controller that still writes after the settle period, naming its last write', () => {
      const run = runScenario(restless, { seed: 1, steps }, { ...settings, invariants: { stableFor: 10_000 } });
      expect(run.violations.join()).to.match(
        /^eventually stable does not hold: \d+ write\(s\) in the last 10000 ms, the last PATCH \/api\/v1\/namespaces\/default\/configmaps\/a-stamp at \d+ ms$/,
      );
    });

    it('passes a controller that stops writing once it converged', () => {
      const run = runScenario(pairs, { seed: 1, steps }, { ...settings, invariants: { stableFor: 10_000 } });
      expect(run.violations).to.deep.equal([]);
    });
  });

  describe('idempotence (idempotentWithin)', () => {
    /** Rewrites `<name>-1` on every run, even when it already holds the same data. */
    const rewriting = configController('rewriting', (name, object, client, cached) => {
      if (object === undefined || name.includes('-')) return EMPTY;
      return cached(`${name}-1`) === undefined
        ? client.create(config(`${name}-1`))
        : client.patch(`${name}-1`, { type: 'merge', body: { data: { copy: 'yes' } } });
    });
    const steps = [create(100, 'a')];

    it('fails a controller whose fresh run over a converged state writes again', () => {
      const run = runScenario(rewriting, { seed: 1, steps }, { ...settings, invariants: { idempotentWithin: 5_000 } });
      expect(run.violations).to.deep.equal([
        'idempotence does not hold: a fresh controller over the final state wrote 1 time(s) within 5000 ms, the first PATCH /api/v1/namespaces/default/configmaps/a-1 at 30000 ms',
      ]);
      expect(run.trace).to.include('30000 idempotence: a fresh controller over the final state');
    });

    it('passes a controller whose runs over a converged state write nothing', () => {
      const run = runScenario(pairs, { seed: 1, steps }, { ...settings, invariants: { idempotentWithin: 5_000 } });
      expect(run.violations).to.deep.equal([]);
    });
  });

  describe('crash safety (crashSafe)', () => {
    const options = {
      seed: 3,
      runs: 30,
      duration: 10_000,
      settle: 20_000,
      workload,
      faults: { kinds: ['crash' as const], min: 1, max: 2 },
      invariants: { crashSafe: names },
    };

    it('catches a controller that assumes its two writes happen together, shrunk to one step and one crash', () => {
      const report = simulate(together, options);
      expect(report.failure?.violations.join()).to.match(
        /^crash safety does not hold: with its crashes the run ends in/,
      );
      expect(report.failure!.steps.length).to.be.at.most(3);
      const again = simulate(together, { ...options, seed: report.failure!.seed, path: report.failure!.path });
      expect(again.failure!.trace.join('\n')).to.equal(report.failure!.trace.join('\n'));
    });

    it('passes a controller that checks each of its writes', () => {
      expect(simulate(pairs, options).failure?.message).to.equal(undefined);
    });
  });

  describe('no destructive action on stale reads (noStaleDeletes)', () => {
    /** Deletes every `<name>-copy` older than 5 s whose `<name>` its cache does not hold, looking when either changes. */
    const collector = (precondition: boolean) =>
      configController('collector', (name, _object, client, cached, now) => {
        const copy = name.endsWith('-copy') ? name : `${name}-copy`;
        const target = cached(copy);
        if (target === undefined || cached(copy.slice(0, -5)) !== undefined) return EMPTY;
        const age = now() - Date.parse(String(target.metadata?.creationTimestamp));
        if (age < 5_000) return of({ requeueAfter: 5_000 - age });
        return client.delete(
          copy,
          precondition ? { preconditions: { resourceVersion: target.metadata!.resourceVersion! } } : {},
        );
      });
    // The copy comes first, its source 100 ms later; at 6 s a failover relists one resourceVersion back: no source.
    const steps = [
      create(0, 'a-copy'),
      create(100, 'a'),
      fault(6_000, { fault: 'staleView', lagMs: 1, versions: 1, forMs: 3_000, relist: true }),
    ];

    it('fails a delete that only the stale view led to, carried out without a precondition', () => {
      const run = runScenario(
        collector(false),
        { seed: 1, steps },
        { ...settings, invariants: { noStaleDeletes: true } },
      );
      expect(run.violations).to.have.length(1);
      expect(run.violations[0]).to.match(
        /^no destructive action on stale reads does not hold: DELETE \/api\/v1\/namespaces\/default\/configmaps\/a-copy at 6001 ms while the controller's view lagged, without a resourceVersion precondition; with a true view it was never deleted$/,
      );
    });

    it('passes the same delete with a resourceVersion precondition, one the invariant allows, or one a true view makes too', () => {
      const guarded = runScenario(
        collector(true),
        { seed: 1, steps },
        { ...settings, invariants: { noStaleDeletes: true } },
      );
      expect(guarded.violations).to.deep.equal([]);
      const allowed = runScenario(
        collector(false),
        { seed: 1, steps },
        { ...settings, invariants: { noStaleDeletes: (path: string) => path.endsWith('-copy') } },
      );
      expect(allowed.violations).to.deep.equal([]);
      // Without its source ever, the copy is deleted with a true view as well: not the stale read's doing.
      const orphan = runScenario(
        collector(false),
        { seed: 1, steps: steps.filter((step) => !('step' in step) || step.step.op !== 'create' || step.at !== 100) },
        { ...settings, invariants: { noStaleDeletes: true } },
      );
      expect(orphan.violations).to.deep.equal([]);
      expect(orphan.deleted.has('/api/v1/namespaces/default/configmaps/a-copy')).to.equal(true);
    });
  });
});
