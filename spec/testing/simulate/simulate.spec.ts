/**
 * simulate's own guarantees, on tiny controllers: bad options, a stuck virtual clock, a broken setup, a cache that
 * lies, and the seed.
 */
import { expect } from 'chai';
import type { V1ConfigMap } from '@kubernetes/client-node';
import * as fc from 'fast-check';
import { NEVER, Observable } from 'rxjs';
import { reconcile, toKeys, type ControllerContext, type ControllerDefinition } from '../../../src/index.js';
import { fakeInformer, simulate, type Workload } from '../../../src/testing/index.js';

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const workload: Workload<V1ConfigMap> = {
  resource: CONFIG_MAP,
  minSteps: 1,
  maxSteps: 3,
  step: fc.constantFrom('a', 'b').map((name) => ({
    op: 'create' as const,
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } },
  })),
};
const quick = { seed: 1, runs: 2, duration: 10_000, settle: 10_000, workload, faults: false } as const;
/** A controller that does nothing. */
const idle: ControllerDefinition = { name: 'idle', start: () => NEVER };

describe('simulate', function () {
  this.timeout(60_000);

  it('passes a controller whose informer keeps up with the server', () => {
    const configs: ControllerDefinition = {
      name: 'configs',
      start: ({ informers, scheduler }) => {
        const configMaps = informers.for<V1ConfigMap>(CONFIG_MAP, { namespace: 'default' });
        return configMaps.events$.pipe(
          toKeys(),
          reconcile(() => undefined, { lookup: configMaps, gate: configMaps.synced$, scheduler }),
        );
      },
    };
    const caches = ({ informers }: ControllerContext) => [
      { resource: CONFIG_MAP, informer: informers.for(CONFIG_MAP, { namespace: 'default' }), namespace: 'default' },
    ];
    const report = simulate(configs, { ...quick, faults: { max: 3 }, caches });
    expect(report.failure?.message).to.equal(undefined);
    expect(report.runs).to.equal(2);
  });

  it('fails a controller whose cache does not hold what the server holds, naming the difference', () => {
    const report = simulate(idle, {
      ...quick,
      caches: () => [{ resource: CONFIG_MAP, informer: fakeInformer<V1ConfigMap>([]), namespace: 'default' }],
    });
    expect(report.failure!.violations[0]).to.match(
      /^the cache of v1\/ConfigMap differs from the server: missing default\/[ab] \(server rv \d+\)$/,
    );
    expect(report.failure!.steps).to.have.length(1);
  });

  it('fails a run whose virtual time stops advancing instead of hanging', () => {
    const spinning: ControllerDefinition = {
      name: 'spinning',
      start: ({ scheduler }) =>
        new Observable(() => {
          const spin = (): void => void scheduler.schedule(spin, 0);
          spin();
        }),
    };
    const report = simulate(spinning, { ...quick, runs: 1, noShrink: true });
    expect(report.failure!.violations).to.deep.equal([
      'the run stopped at 0 ms: virtual time stopped at 0 ms: more than 200000 actions ran at that instant (a timer re-armed at the same time forever?)',
    ]);
  });

  it('reports a controller whose start throws or returns something else as a failure', () => {
    const throwing: ControllerDefinition = {
      name: 'throwing',
      start: () => {
        throw new Error('no');
      },
    };
    expect(simulate(throwing, { ...quick, noShrink: true }).failure!.violations).to.include(
      "the controller's stream errored at 0 ms: no",
    );
    expect(
      simulate({ name: 'odd', start: () => 42 as never }, { ...quick, noShrink: true }).failure!.violations[0],
    ).to.equal(
      "the controller's stream errored at 0 ms: startController: odd.start() returned number, not an Observable",
    );
  });

  describe('replaying a failure with { seed, path }', () => {
    /** Fails whenever a ConfigMap `b` exists at the end. */
    const noB = {
      invariants: {
        desired: (world: { server: (r: typeof CONFIG_MAP, ns?: string) => V1ConfigMap[] }) =>
          !world.server(CONFIG_MAP, 'default').some((c) => c.metadata?.name === 'b') || 'b exists',
      },
    };
    const failing = { ...quick, runs: 20, ...noB };
    const found = () => simulate(idle, failing).failure!;

    it('replays the failure its seed and path were printed for', () => {
      const failure = found();
      const again = simulate(idle, { ...failing, seed: failure.seed, path: failure.path });
      expect(again.failure?.trace.join('\n')).to.equal(failure.trace.join('\n'));
      expect(failure.message).to.contain(
        `reproduce: simulate(controller, { ...options, seed: ${failure.seed}, path: ${JSON.stringify(failure.path)} })`,
      );
    });

    it('refuses a path printed for another seed, saying that they do not belong together', () => {
      const failure = found();
      expect(() => simulate(idle, { ...failing, seed: failure.seed + 1, path: failure.path })).to.throw(
        TypeError,
        new RegExp(`^simulate: seed ${failure.seed + 1} and path "${failure.path}" do not belong together: `),
      );
    });

    it('refuses a path printed for another scenario of the same seed (other options), instead of passing it silently', () => {
      const failure = found();
      const other = { ...failing, workload: { ...workload, minSteps: 3, maxSteps: 3 } };
      expect(() => simulate(idle, { ...other, seed: failure.seed, path: failure.path })).to.throw(
        TypeError,
        new RegExp(`^simulate: seed ${failure.seed} and path "${failure.path}" do not belong together: `),
      );
    });

    it('refuses a path without its seed, and a path that is not one', () => {
      expect(() => simulate(idle, { ...failing, seed: undefined, path: found().path })).to.throw(
        TypeError,
        /^simulate: path .* needs the seed it was printed with/,
      );
      expect(() => simulate(idle, { ...failing, seed: 1, path: 'x:y' })).to.throw(
        TypeError,
        /^simulate: seed 1 and path "x:y" do not belong together: /,
      );
    });
  });

  it('refuses bad options at once', () => {
    expect(() => simulate(idle, { ...quick, duration: 0 })).to.throw(
      RangeError,
      'simulate: duration must be a finite number of ms > 0, got 0',
    );
    expect(() => simulate(idle, { ...quick, settle: -1 })).to.throw(
      RangeError,
      'simulate: settle must be a finite number of ms >= 0, got -1',
    );
    expect(() => simulate(idle, { ...quick, faults: { kinds: ['meteor' as never] } })).to.throw(
      TypeError,
      /unknown fault kind "meteor"/,
    );
  });
});
