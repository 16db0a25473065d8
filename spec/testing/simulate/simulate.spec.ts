/**
 * simulate's own guarantees, on tiny controllers: bad options, a stuck virtual clock, a broken setup, a cache that
 * lies, and the seed.
 */
import { expect } from 'chai';
import type { V1ConfigMap } from '@kubernetes/client-node';
import * as fc from 'fast-check';
import { NEVER, Observable } from 'rxjs';
import { informer, reconcile, toKeys } from '../../../src/index.js';
import { fakeInformer, simulate, type ControllerSetup, type Workload } from '../../../src/testing/index.js';

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const workload: Workload<V1ConfigMap> = {
  resource: CONFIG_MAP, minSteps: 1, maxSteps: 3,
  step: fc.constantFrom('a', 'b').map((name) => ({ op: 'create' as const, object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } } })),
};
const quick = { seed: 1, runs: 2, duration: 10_000, settle: 10_000, workload, faults: false } as const;

describe('simulate', function () {
  this.timeout(60_000);

  it('passes a controller whose informer keeps up with the server', () => {
    const setup: ControllerSetup = ({ cluster, scheduler, random }) => {
      const configs = informer<V1ConfigMap>(cluster, CONFIG_MAP, { namespace: 'default', scheduler, random });
      return {
        events$: configs.events$.pipe(toKeys(), reconcile(() => undefined, { lookup: configs, gate: configs.synced$, scheduler })),
        caches: [{ resource: CONFIG_MAP, informer: configs, namespace: 'default' }],
      };
    };
    const report = simulate(setup, { ...quick, faults: { max: 3 } });
    expect(report.failure?.message).to.equal(undefined);
    expect(report.runs).to.equal(2);
  });

  it('fails a controller whose cache does not hold what the server holds, naming the difference', () => {
    const setup: ControllerSetup = () => ({ events$: NEVER, caches: [{ resource: CONFIG_MAP, informer: fakeInformer<V1ConfigMap>([]), namespace: 'default' }] });
    const report = simulate(setup, quick);
    expect(report.failure!.violations[0]).to.match(/^the cache of v1\/ConfigMap differs from the server: missing default\/[ab] \(server rv \d+\)$/);
    expect(report.failure!.steps).to.have.length(1);
  });

  it('fails a run whose virtual time stops advancing instead of hanging', () => {
    const setup: ControllerSetup = ({ scheduler }) => new Observable(() => {
      const spin = (): void => void scheduler.schedule(spin, 0);
      spin();
    });
    const report = simulate(setup, { ...quick, runs: 1, noShrink: true });
    expect(report.failure!.violations).to.deep.equal([
      'the run stopped at 0 ms: virtual time stopped at 0 ms: more than 200000 actions ran at that instant (a timer re-armed at the same time forever?)',
    ]);
  });

  it('reports a setup that throws or returns something else as a failure', () => {
    expect(simulate(() => { throw new Error('no'); }, { ...quick, noShrink: true }).failure!.violations).to.include('setup threw: no');
    expect(simulate(() => 42 as never, { ...quick, noShrink: true }).failure!.violations[0]).to.equal(
      'setup threw: simulate: setup must return an Observable of ReconcileEvents or { events$, caches? }',
    );
  });

  it('refuses bad options at once', () => {
    expect(() => simulate(() => NEVER, { ...quick, duration: 0 })).to.throw(RangeError, 'simulate: duration must be a finite number of ms > 0, got 0');
    expect(() => simulate(() => NEVER, { ...quick, settle: -1 })).to.throw(RangeError, 'simulate: settle must be a finite number of ms >= 0, got -1');
    expect(() => simulate(() => NEVER, { ...quick, faults: { kinds: ['meteor' as never] } })).to.throw(TypeError, /unknown fault kind "meteor"/);
  });
});
