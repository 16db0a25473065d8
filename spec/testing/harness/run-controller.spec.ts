/**
 * runController's guard against virtual time that stands still: a key that keeps starting at one instant would keep
 * the flush from ever reaching `until`, so the test would hang instead of failing.
 */
import { expect } from 'chai';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { TestScheduler } from 'rxjs/testing';
import { reconcile, toKeys, type ControllerDefinition, type ReconcileEvent } from '../../../src/index.js';
import { runController } from '../../../src/testing/index.js';
import { CONFIG_MAP, config } from '../simulate/config-maps.js';

/** Reconciles every ConfigMap of `default`, asking for `{ requeueAfter: 0 }` from its first `times` runs. */
const requeuesAtOnce = (times: number): ControllerDefinition => ({
  name: 'requeues-at-once',
  start: ({ informers, scheduler }) => {
    const configs = informers.for<V1ConfigMap>(CONFIG_MAP, { namespace: 'default' });
    let runs = 0;
    return configs.events$.pipe(
      toKeys(),
      reconcile(() => (runs++ < times ? { requeueAfter: 0 } : undefined), {
        lookup: configs,
        gate: configs.synced$,
        scheduler,
      }),
    );
  },
});

describe('runController: virtual time that stands still', () => {
  it('stops a controller that requeues one key at one instant forever, and its flush throws an error naming the key and the instant', () => {
    const scheduler = new TestScheduler(() => undefined);
    let run: { events: readonly ReconcileEvent[] } | undefined;
    let streamError: unknown;
    expect(() =>
      scheduler.run(({ flush }) => {
        scheduler.schedule(() => {
          const started = runController(requeuesAtOnce(Number.POSITIVE_INFINITY), {
            scheduler,
            until: 1000,
            objects: [config('a')],
          });
          started.events$.subscribe({ error: (error: unknown) => (streamError = error) });
          run = started;
        }, 5);
        flush();
      }),
    ).to.throw(
      /^virtual time stopped at \d+ ms: default\/a started 1000 times at that instant \(a run that returns \{ requeueAfter: 0 \} every time\?\)$/,
    );
    expect(streamError).to.have.property('name', 'VirtualTimeStuckError');
    expect(run!.events.filter((event) => event.type === 'started')).to.have.length(1000);
  });

  it('leaves alone a key that starts a few times at one instant and then rests', () => {
    const scheduler = new TestScheduler(() => undefined);
    let run: { events: readonly ReconcileEvent[] } | undefined;
    scheduler.run(({ flush }) => {
      run = runController(requeuesAtOnce(998), { scheduler, until: 1000, objects: [config('a')] });
      flush();
    });
    const starts = run!.events.filter(
      (event): event is Extract<ReconcileEvent, { type: 'started' }> => event.type === 'started',
    );
    expect(starts).to.have.length(999);
    expect(new Set(starts.map((event) => event.time)).size).to.equal(1);
  });
});
