import { expect } from 'chai';
import { Subject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { InformerEvent } from '../../../src/informer/index.js';
import { LOW_PRIORITY, type ReconcileTrigger } from '../../../src/controller/index.js';
import { KeyMappingError, toKeys } from '../../../src/controller/triggers/index.js';
import { added, deleted, errorSink, obj, resync, updated } from '../predicates/fixtures.js';

function testScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
}

function run(events: InformerEvent[], onError?: (error: Error) => void): ReconcileTrigger[] {
  const source = new Subject<InformerEvent>();
  const out: ReconcileTrigger[] = [];
  source.pipe(toKeys(onError ? { onError } : {})).subscribe((t) => out.push(t));
  for (const event of events) source.next(event);
  return out;
}

describe('toKeys', () => {
  const a = obj('a');

  it('triggers the object of every event type with a reason saying what happened', () => {
    expect(run([added(a), updated(a, a), deleted(a), deleted(a, true), resync(a)])).to.deep.equal([
      { key: 'default/a', reason: 'added Pod default/a' },
      { key: 'default/a', reason: 'updated Pod default/a' },
      { key: 'default/a', reason: 'deleted Pod default/a' },
      { key: 'default/a', reason: 'deleted (state unknown) Pod default/a' },
      { key: 'default/a', reason: 'resync Pod default/a', priority: LOW_PRIORITY },
    ]);
  });

  it('keys a cluster-scoped object by its name alone', () => {
    const node = obj('n1', { namespace: undefined }, 'Node');
    expect(run([added(node)])).to.deep.equal([{ key: 'n1', reason: 'added Node n1' }]);
  });

  it('leaves the kind out of the reason when the object has none', () => {
    expect(run([added(obj('a', {}, null))])).to.deep.equal([{ key: 'default/a', reason: 'added default/a' }]);
  });

  it('falls back to the object key when the event has no key', () => {
    const event = { ...added(a), key: '' } as InformerEvent;
    expect(run([event])).to.deep.equal([{ key: 'default/a', reason: 'added Pod default/a' }]);
  });

  it('reports an event with no usable key and carries on with the next one', () => {
    const sink = errorSink();
    const broken = { type: 'added', key: '', object: { metadata: {} } } as unknown as InformerEvent;
    expect(run([broken, added(a)], sink.onError)).to.deep.equal([{ key: 'default/a', reason: 'added Pod default/a' }]);
    expect(sink.errors).to.have.length(1);
    expect(sink.errors[0]).to.be.instanceOf(KeyMappingError).and.include({ eventType: 'added', key: '<no key>' });
    expect(sink.errors[0]!.message).to.match(/neither a key nor an object with metadata.name/);
  });

  it('emits one trigger per event at the frame of the event', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold('a-b--|', { a: added(a), b: deleted(a, true) });
      expectObservable(source.pipe(toKeys())).toBe('a-b--|', {
        a: { key: 'default/a', reason: 'added Pod default/a' },
        b: { key: 'default/a', reason: 'deleted (state unknown) Pod default/a' },
      });
    });
  });

  it('passes source errors through', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('a-#', { a: added(a) }).pipe(toKeys())).toBe('a-#', {
        a: { key: 'default/a', reason: 'added Pod default/a' },
      });
    });
  });
});
