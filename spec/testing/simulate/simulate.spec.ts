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
  resource: CONFIG_MAP, minSteps: 1, maxSteps: 3,
  step: fc.constantFrom('a', 'b').map((name) => ({ op: 'create' as const, object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } } })),
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
        return configMaps.events$.pipe(toKeys(), reconcile(() => undefined, { lookup: configMaps, gate: configMaps.synced$, scheduler }));
      },
    };
    const caches = ({ informers }: ControllerContext) => [{ resource: CONFIG_MAP, informer: informers.for(CONFIG_MAP, { namespace: 'default' }), namespace: 'default' }];
    const report = simulate(configs, { ...quick, faults: { max: 3 }, caches });
    expect(report.failure?.message).to.equal(undefined);
    expect(report.runs).to.equal(2);
  });

  it('fails a controller whose cache does not hold what the server holds, naming the difference', () => {
    const report = simulate(idle, { ...quick, caches: () => [{ resource: CONFIG_MAP, informer: fakeInformer<V1ConfigMap>([]), namespace: 'default' }] });
    expect(report.failure!.violations[0]).to.match(/^the cache of v1\/ConfigMap differs from the server: missing default\/[ab] \(server rv \d+\)$/);
    expect(report.failure!.steps).to.have.length(1);
  });

  it('fails a run whose virtual time stops advancing instead of hanging', () => {
    const spinning: ControllerDefinition = {
      name: 'spinning',
      start: ({ scheduler }) => new Observable(() => {
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
    const throwing: ControllerDefinition = { name: 'throwing', start: () => { throw new Error('no'); } };
    expect(simulate(throwing, { ...quick, noShrink: true }).failure!.violations).to.include('the controller\'s stream errored at 0 ms: no');
    expect(simulate({ name: 'odd', start: () => 42 as never }, { ...quick, noShrink: true }).failure!.violations[0]).to.equal(
      'the controller\'s stream errored at 0 ms: startController: odd.start() returned number, not an Observable',
    );
  });

  it('refuses bad options at once', () => {
    expect(() => simulate(idle, { ...quick, duration: 0 })).to.throw(RangeError, 'simulate: duration must be a finite number of ms > 0, got 0');
    expect(() => simulate(idle, { ...quick, settle: -1 })).to.throw(RangeError, 'simulate: settle must be a finite number of ms >= 0, got -1');
    expect(() => simulate(idle, { ...quick, faults: { kinds: ['meteor' as never] } })).to.throw(TypeError, /unknown fault kind "meteor"/);
  });
});
