/**
 * runController's controller faults, in virtual time: a stale view (late by time or by resourceVersions), a crash at
 * a write with a fresh restart, and merged watch events; the same faults simulate draws.
 */
import { expect } from 'chai';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { concat, defer, EMPTY, timer, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { reconcile, resourceClient, toKeys, type ControllerDefinition } from '../../../src/index.js';
import { expectReconciles, runController, type ControllerRun } from '../../../src/testing/index.js';
import { CONFIG_MAP, config } from '../simulate/config-maps.js';

/** Reconciles every ConfigMap of `default`, writing nothing; `seen` gets what each run read. */
const watcher = (seen: string[]): ControllerDefinition => ({
  name: 'watcher',
  start: ({ informers, scheduler }) => {
    const configs = informers.for<V1ConfigMap>(CONFIG_MAP, { namespace: 'default' });
    return configs.events$.pipe(
      toKeys(),
      reconcile(
        ({ key, object }) => {
          seen.push(`${scheduler.now()} ${key} ${object === undefined ? 'absent' : `v=${object.data?.['v'] ?? '-'}`}`);
          return undefined;
        },
        { lookup: configs, gate: configs.synced$, scheduler },
      ),
    );
  },
});

/** For every ConfigMap without a dash, creates the missing ones of `<name>-1` and `<name>-2`, one after the other. */
const pairs: ControllerDefinition = {
  name: 'pairs',
  start: ({ informers, scheduler, client }) => {
    const configs = informers.for<V1ConfigMap>(CONFIG_MAP, { namespace: 'default' });
    const writes = client<V1ConfigMap>(CONFIG_MAP).inNamespace('default');
    return configs.events$.pipe(
      toKeys(),
      reconcile(
        ({ key, object }) => {
          const name = key.split('/')[1]!;
          if (object === undefined || name.includes('-')) return EMPTY;
          const missing = ['1', '2'].filter((n) => configs.current().get(`default/${name}-${n}`) === undefined);
          return concat(...missing.map((n) => defer(() => writes.create(config(`${name}-${n}`))))).pipe(toArray());
        },
        { lookup: configs, gate: configs.synced$, scheduler },
      ),
    );
  },
};

const testScheduler = (): TestScheduler =>
  new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });

describe('runController: controller faults', () => {
  it('staleView: the controller sees each change lagMs late, while the cluster and its other clients see the truth', () => {
    const seen: string[] = [];
    const scheduler = testScheduler();
    let run!: ControllerRun;
    scheduler.run((helpers) => {
      run = runController(watcher(seen), { scheduler, until: 1000 });
      const configs = resourceClient<V1ConfigMap>(run.cluster, CONFIG_MAP, { namespace: 'default' });
      run.controllerFaults.staleView({ lagMs: 50, versions: 1, forMs: 500, relist: false });
      timer(100, scheduler).subscribe(() => configs.create(config('a')).subscribe());
      // After the window, no lag: the update at 600 is seen at once.
      timer(600, scheduler).subscribe(() =>
        configs.patch('a', { type: 'merge', body: { data: { v: '2' } } }).subscribe(),
      );
      expectReconciles(helpers, run.events$).toBe('150ms (sS) 446ms (sS) 396ms |');
    });
    expect(seen).to.deep.equal(['150 default/a v=-', '600 default/a v=2']);
  });

  it('staleView by versions: each change shows once the truth has moved that many resourceVersions past it', () => {
    const seen: string[] = [];
    const scheduler = testScheduler();
    scheduler.run(() => {
      const run = runController(watcher(seen), { scheduler, until: 1000 });
      const configs = resourceClient<V1ConfigMap>(run.cluster, CONFIG_MAP, { namespace: 'default' });
      run.controllerFaults.staleView({ lagMs: 1, versions: 1, forMs: 500, relist: false, watchLag: 'versions' });
      timer(100, scheduler).subscribe(() => configs.create(config('a')).subscribe());
      timer(200, scheduler).subscribe(() => configs.create(config('b')).subscribe());
    });
    // a shows when b is written (one version later); b waits for a write that never comes, until the view heals.
    expect(seen).to.deep.equal(['200 default/a v=-', '500 default/b v=-']);
  });

  it('crash: the controller dies at the drawn write and a fresh one, restartMs later, finishes the job', () => {
    const scheduler = testScheduler();
    let run!: ControllerRun;
    scheduler.run((helpers) => {
      run = runController(pairs, { scheduler, until: 1000 });
      const configs = resourceClient<V1ConfigMap>(run.cluster, CONFIG_MAP, { namespace: 'default' });
      // The second write (a-2) never leaves: the first incarnation's run of a never ends.
      run.controllerFaults.crash({ write: 1, mode: 'notSent', restartMs: 300 });
      timer(100, scheduler).subscribe(() => configs.create(config('a')).subscribe());
      // The first incarnation's run of a never ends; the second one runs a (writing a-2), a-1 and a-2 at 400.
      expectReconciles(helpers, run.events$).toBe('100ms s 299ms (sSsSsS) 592ms |');
    });
    expect(run.controllerFaults.crashes).to.deep.equal([
      { at: 100, mode: 'notSent', request: 'POST /api/v1/namespaces/default/configmaps', restartMs: 300 },
    ]);
    expect(run.cluster.list(CONFIG_MAP, 'default').map((c) => c.metadata?.name)).to.deep.equal(['a', 'a-1', 'a-2']);
  });

  it('mergeEvents: changes made while the window is open reach the controller as one, the last state', () => {
    const seen: string[] = [];
    const scheduler = testScheduler();
    scheduler.run((helpers) => {
      const run = runController(watcher(seen), { scheduler, until: 1000 });
      const configs = resourceClient<V1ConfigMap>(run.cluster, CONFIG_MAP, { namespace: 'default' });
      run.controllerFaults.mergeEvents({ forMs: 500, spreadMs: 0 });
      timer(100, scheduler).subscribe(() => configs.create(config('a')).subscribe());
      for (const [at, v] of [
        [200, '2'],
        [300, '3'],
      ] as const)
        timer(at, scheduler).subscribe(() => configs.patch('a', { type: 'merge', body: { data: { v } } }).subscribe());
      expectReconciles(helpers, run.events$).toBe('500ms (sS) 496ms |');
    });
    expect(seen).to.deep.equal(['500 default/a v=3']);
  });

  it('refuses a fault with bad values at once, naming the value', () => {
    const scheduler = testScheduler();
    scheduler.run(() => {
      const { controllerFaults } = runController(watcher([]), { scheduler, until: 10 });
      expect(() => controllerFaults.staleView({ lagMs: -1, versions: 1, forMs: 10, relist: false })).to.throw(
        RangeError,
        'controllerFaults.staleView: lagMs must be a finite number of ms >= 0, got -1',
      );
      expect(() =>
        controllerFaults.staleView({ lagMs: 1, versions: 1, forMs: 10, relist: false, watchLag: 'rv' as 'time' }),
      ).to.throw(TypeError, 'controllerFaults.staleView: watchLag must be one of "time", "versions", got "rv"');
      expect(() => controllerFaults.crash({ write: 0.5, mode: 'sent', restartMs: 0 })).to.throw(
        RangeError,
        'controllerFaults.crash: write must be an integer >= 0, got 0.5',
      );
      expect(() => controllerFaults.mergeEvents({ forMs: Number.NaN, spreadMs: 0 })).to.throw(
        RangeError,
        'controllerFaults.mergeEvents: forMs must be a finite number of ms >= 0, got NaN',
      );
    });
  });
});
