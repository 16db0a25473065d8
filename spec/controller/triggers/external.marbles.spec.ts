/**
 * Triggers from outside Kubernetes, in virtual time: a timer, a message queue and another controller's outcomes go
 * through the same keyed queue as the informer's own events, with their reasons, and coalesce with them.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { expect } from 'chai';
import { filter, interval, map, merge, share, takeUntil, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { reconcile, type ReconcileEvent } from '../../../src/controller/index.js';
import { predicates } from '../../../src/controller/predicates/index.js';
import { toKeys, toTriggers } from '../../../src/controller/triggers/index.js';
import { fakeInformer, watchEvent } from '../../../src/testing/index.js';

const widget = (name: string, rv = '1', generation = 1): KubernetesObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'default', resourceVersion: rv, generation },
});

describe('triggers from outside Kubernetes', () => {
  it("a timer, a message queue and another controller's outcomes share one keyed queue with the informer, reasons and all", () => {
    const scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
    scheduler.run((helpers) => {
      const { cold, hot, flush } = helpers;
      // The cache syncs at 5 ms; widget b changes at 150 ms.
      const widgets = fakeInformer(helpers, '-----a' + '-'.repeat(144) + 'b', {
        a: watchEvent.relist([widget('a'), widget('b')]),
        b: widget('b', '2'),
      });
      // Another controller (an inventory) reconciles default/a at 20 ms and default/zz at 60 ms, 10 ms each.
      const inventory$ = hot<string>('--------------------a' + '-'.repeat(39) + 'z', {
        a: 'default/a',
        z: 'default/zz',
      }).pipe(
        reconcile(() => timer(10, scheduler).pipe(map(() => undefined)), { scheduler }),
        share(),
      );
      // A message queue delivers at 40 ms and at 100 ms (with a key no object can have at 100 ms).
      const queue$ = cold<{ id: number; keys: string[] }>('-'.repeat(40) + 'm' + '-'.repeat(59) + 'n', {
        m: { id: 1, keys: ['default/b'] },
        n: { id: 2, keys: ['default/a', 'not a key'] },
      });
      const refused: string[] = [];
      const stop$ = timer(220, scheduler);
      const runs: string[] = [];
      const events: ReconcileEvent[] = [];
      merge(
        widgets.events$.pipe(toKeys()),
        // Every 100 ms, every cached key: a periodic re-check that costs no API call.
        interval(100, scheduler).pipe(toTriggers(() => widgets.current().keys(), { reason: 'periodic re-check' })),
        queue$.pipe(
          toTriggers((message) => message.keys, {
            reason: (message) => `queue message ${message.id}`,
            source: 'queue',
            onError: (e) => refused.push(e.message),
          }),
        ),
        // Only the other controller's successes, and only for widgets it knows.
        inventory$.pipe(
          filter((event) => event.type === 'succeeded'),
          toTriggers((event) => event.key, { reason: (event) => `inventory reconciled ${event.key}` }),
          filter((trigger) => widgets.current().has(trigger.key)),
        ),
      )
        .pipe(
          takeUntil(stop$),
          reconcile(
            ({ key, object, reasons }) => {
              runs.push(
                `${scheduler.now()} ${key}@${object?.metadata?.resourceVersion ?? 'gone'}: ${reasons.join('; ')}`,
              );
              return timer(5, scheduler).pipe(map(() => undefined));
            },
            { lookup: widgets, gate: widgets.synced$, scheduler },
          ),
        )
        .subscribe((event) => events.push(event));
      flush();
      expect(runs).to.deep.equal([
        '5 default/a@1: added Widget default/a',
        '10 default/b@1: added Widget default/b',
        '30 default/a@1: inventory reconciled default/a',
        '40 default/b@1: queue message 1',
        // The timer starts default/a at 100; the queue names it in the same frame, while it runs: that marks it
        // dirty, and it runs once more when it is done, after default/b, which was ready before.
        '100 default/a@1: periodic re-check',
        '105 default/b@1: periodic re-check',
        '110 default/a@1: queue message 2',
        '150 default/b@2: updated Widget default/b',
        '200 default/a@1: periodic re-check',
        '205 default/b@2: periodic re-check',
      ]);
      expect(refused).to.deep.equal([
        'key mapper returned "not a key", which holds whitespace or a control character, which no object key does (queue <no key>)',
      ]);
      expect(events.filter((e) => e.type === 'rejected')).to.deep.equal([]);
    });
  });

  it('an outside trigger before the cache syncs waits at the gate and runs on the synced cache; predicates filter the events, RxJS filter the messages, each run names its sources', () => {
    const scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
    scheduler.run((helpers) => {
      const { hot, flush } = helpers;
      // The cache syncs at 10 ms; at 50 ms widget a's status changes (same generation), at 80 ms b's spec does.
      const widgets = fakeInformer(helpers, `${'-'.repeat(10)}s${'-'.repeat(39)}a${'-'.repeat(29)}b`, {
        s: watchEvent.relist([widget('a'), widget('b')]),
        a: widget('a', '2', 1),
        b: widget('b', '3', 2),
      });
      // A webhook: a POST for a at 2 ms (before the sync), one for b from a sender this controller ignores at 30 ms.
      const webhook$ = hot<{ key: string; from: string }>(`--p${'-'.repeat(27)}u`, {
        p: { key: 'default/a', from: 'ci' },
        u: { key: 'default/b', from: 'untrusted' },
      });
      // A message queue names a at 50 ms, in the frame of a's status-only change.
      const queue$ = hot<{ id: number; key: string }>(`${'-'.repeat(50)}m`, { m: { id: 7, key: 'default/a' } });
      const runs: string[] = [];
      const events: ReconcileEvent[] = [];
      merge(
        widgets.events$.pipe(predicates.generationChanged(), toKeys()),
        webhook$.pipe(
          filter((post) => post.from !== 'untrusted'),
          toTriggers((post) => post.key, { reason: (post) => `webhook from ${post.from}`, source: 'webhook' }),
        ),
        queue$.pipe(toTriggers((message) => message.key, { reason: (message) => `queue message ${message.id}` })),
      )
        .pipe(
          takeUntil(timer(200, scheduler)),
          reconcile(
            ({ key, object, reasons }) => {
              runs.push(
                `${scheduler.now()} ${key}@${object?.metadata?.resourceVersion ?? 'gone'}: ${reasons.join('; ')}`,
              );
              return timer(5, scheduler).pipe(map(() => undefined));
            },
            { lookup: widgets, gate: widgets.synced$, scheduler },
          ),
        )
        .subscribe((event) => events.push(event));
      flush();
      expect(runs).to.deep.equal([
        // The webhook's POST at 2 ms was held by the gate, and runs as the cache syncs, reading the synced object.
        // The gate opens as the relist lands, before the relist's events reach the queue: a's add arrives while a
        // runs, so a runs once more after b (an extra run, never a missed one).
        '10 default/a@1: webhook from ci',
        '15 default/b@1: added Widget default/b',
        '20 default/a@1: added Widget default/a',
        // The untrusted POST at 30 ms was filtered out; a's status-only change at 50 ms too (generationChanged),
        // but the queue's message for a in that frame runs it, reading the new state.
        '50 default/a@2: queue message 7',
        '80 default/b@3: updated Widget default/b',
      ]);
      expect(events.filter((e) => e.type === 'rejected' || e.type === 'failed')).to.deep.equal([]);
    });
  });
});
