/**
 * The integration specs' own checkers must be able to fail: the event-sequence fold rejects duplicates and gaps,
 * and the compressed clock really compresses (checked in virtual time).
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { expect } from 'chai';
import { TestScheduler } from 'rxjs/testing';
import type { InformerEvent } from '../../../src/informer/index.js';
import { Store } from '../../../src/store/index.js';
import { fastClock, foldEvents } from './support.js';

const snapshot = Store.empty();
const obj = (name: string, rv: string): KubernetesObject => ({
  metadata: { name, namespace: 'ns', resourceVersion: rv },
});
const added = (name: string, rv: string): InformerEvent => ({
  type: 'added',
  key: `ns/${name}`,
  object: obj(name, rv),
  snapshot,
});
const updated = (name: string, from: string, to: string): InformerEvent => ({
  type: 'updated',
  key: `ns/${name}`,
  old: obj(name, from),
  object: obj(name, to),
  snapshot,
});
const deleted = (name: string, rv: string, stateUnknown = false): InformerEvent => ({
  type: 'deleted',
  key: `ns/${name}`,
  object: obj(name, rv),
  stateUnknown,
  snapshot,
});

describe('informer integration support', () => {
  it('folds a consistent event sequence into the final key → resourceVersion state', () => {
    const model = foldEvents([added('a', '1'), added('b', '2'), updated('a', '1', '3'), deleted('b', '2', true)]);
    expect([...model]).to.deep.equal([['ns/a', '3']]);
  });

  it('rejects a duplicate added', () => {
    expect(() => foldEvents([added('a', '1'), added('a', '1')])).to.throw(/duplicate added/);
  });

  it('rejects an update from a version that was never delivered (a missed event)', () => {
    expect(() => foldEvents([added('a', '1'), updated('a', '2', '3')])).to.throw(/never delivered/);
  });

  it('rejects a delete of a key that was never added and a tombstone that is not the last known object', () => {
    expect(() => foldEvents([deleted('a', '1')])).to.throw(/never added/);
    expect(() => foldEvents([added('a', '1'), deleted('a', '5', true)])).to.throw(/last known object/);
  });

  it('runs the clock factor times faster, for first and rescheduled actions alike', () => {
    const base = new TestScheduler(() => undefined);
    const clock = fastClock(200, base);
    const fired: [number, number][] = [];
    clock.schedule(
      function (this: { schedule(state?: number, delay?: number): unknown }, n?: number) {
        fired.push([base.now(), clock.now()]);
        if (n! < 2) this.schedule(n! + 1, 400);
      },
      1000,
      0,
    );
    base.flush();
    expect(fired, '[virtual base time, compressed clock time]').to.deep.equal([
      [5, 1000],
      [7, 1400],
      [9, 1800],
    ]);
  });
});
