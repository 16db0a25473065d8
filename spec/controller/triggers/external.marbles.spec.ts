/**
 * Triggers from outside Kubernetes, in virtual time: a timer, a message queue and another controller's outcomes go
 * through the same keyed queue as the informer's own events, with their reasons, and coalesce with them.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { expect } from 'chai';
import { filter, interval, map, merge, share, takeUntil, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { reconcile, type ReconcileEvent } from '../../../src/controller/index.js';
import { toKeys, toTriggers } from '../../../src/controller/triggers/index.js';
import { fakeInformer, watchEvent } from '../../../src/testing/index.js';

const widget = (name: string, rv = '1'): KubernetesObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'default', resourceVersion: rv },
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
});
