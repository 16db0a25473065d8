import { expect } from 'chai';
import { Subject, config, map, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { V1ReplicaSet } from '@kubernetes/client-node';
import type { InformerEvent } from '../../../src/informer/index.js';
import {
  PredicateError,
  and,
  eventType,
  generationChanged,
  not,
  predicate,
  type EventPredicate,
} from '../../../src/controller/predicates/index.js';
import { toKeys } from '../../../src/controller/triggers/index.js';
import { added, errorSink, obj, resync, updated } from './fixtures.js';

function testScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
}

const v1 = obj('a', { generation: 1, resourceVersion: '1' });
const v2Status = obj('a', { generation: 1, resourceVersion: '2' });
const v3Spec = obj('a', { generation: 2, resourceVersion: '3' });
const events = {
  a: added(v1),
  s: updated(v1, v2Status),
  g: updated(v2Status, v3Spec),
  r: resync(v3Spec),
};

describe('predicates as operators', () => {
  it('keeps only the events the predicate passes, in order and at the same frames', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold('a-s-g-r-|', events);
      expectObservable(source.pipe(generationChanged())).toBe('a---g-r-|', events);
    });
  });

  it('passes source errors through unchanged', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold('a-s-#', events, new Error('watch broke'));
      expectObservable(source.pipe(generationChanged())).toBe('a---#', events, new Error('watch broke'));
    });
  });

  it('composes with and/not inside a pipe', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const notResync = not((e) => e.type === 'resync');
      const source = cold('a-s-g-r-|', events);
      expectObservable(source.pipe(and(generationChanged(), notResync))).toBe('a---g---|', events);
    });
  });

  it('unsubscribes from the source when the consumer unsubscribes', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('a-s-g-r-|', events);
      expectObservable(source.pipe(generationChanged()), '^--!').toBe('a---', events);
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('keeps the event and reports a PredicateError when the test throws', () => {
    const sink = errorSink();
    const boom = predicate(
      () => {
        throw new Error('bad test');
      },
      { onError: sink.onError },
    );
    const source = new Subject<InformerEvent>();
    const seen: string[] = [];
    let failed = false;
    source.pipe(boom).subscribe({
      next: (e) => seen.push(e.type),
      error: () => {
        failed = true;
      },
    });
    source.next(events.a);
    source.next(events.s);
    expect(seen).to.deep.equal(['added', 'updated']);
    expect(failed).to.equal(false);
    expect(sink.errors).to.have.length(2);
    expect(sink.errors[0]).to.be.instanceOf(PredicateError).and.include({ key: 'default/a', eventType: 'added' });
    expect(sink.errors[0]!.message).to.match(/bad test/);
    expect((sink.errors[0] as PredicateError).cause).to.be.instanceOf(Error);
  });

  it('reports to config.onUnhandledError when no onError was given', () => {
    const previous = config.onUnhandledError;
    const seen: unknown[] = [];
    config.onUnhandledError = (error) => seen.push(error);
    try {
      const source = new Subject<InformerEvent>();
      const kept: string[] = [];
      source
        .pipe(
          predicate(() => {
            throw new Error('x');
          }),
        )
        .subscribe((e) => kept.push(e.type));
      source.next(events.a);
      expect(kept).to.deep.equal(['added']);
      expect(seen).to.have.length(1);
      expect(seen[0]).to.be.instanceOf(PredicateError);
    } finally {
      config.onUnhandledError = previous;
    }
  });

  it('does not blame the predicate for an error thrown downstream', () => {
    const sink = errorSink();
    const source = new Subject<InformerEvent>();
    let downstream: unknown;
    source
      .pipe(
        predicate(() => true, { onError: sink.onError }),
        map(() => {
          throw new Error('consumer');
        }),
      )
      .subscribe({
        error: (error) => {
          downstream = error;
        },
      });
    source.next(events.a);
    expect((downstream as Error).message).to.equal('consumer');
    expect(sink.errors).to.deep.equal([]);
  });

  it('rejects a value that is not a function when the predicate is built', () => {
    expect(() => predicate(42 as never)).to.throw(TypeError, /expected a predicate/);
    expect(() => and(generationChanged(), 'x' as never)).to.throw(TypeError);
  });

  it('re-wraps an existing predicate with its own test', () => {
    const wrapped = predicate(generationChanged());
    expect(wrapped.test(events.s)).to.equal(false);
    expect(wrapped.test(events.g)).to.equal(true);
  });

  it('keeps the element type of a typed stream (compile-time check of the DESIGN §5 pipeline)', () => {
    const rs = (name: string, generation: number): V1ReplicaSet => ({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name, namespace: 'default', generation },
    });
    const source = new Subject<InformerEvent<V1ReplicaSet>>();
    const typed: Observable<InformerEvent<V1ReplicaSet>> = source.pipe(generationChanged());
    const p: EventPredicate<V1ReplicaSet> = predicate((e) => (e.object.spec?.replicas ?? 0) >= 0);
    const keys: string[] = [];
    source.pipe(generationChanged(), p, toKeys()).subscribe((t) => keys.push(t.key));
    // Generic predicates and typed tests mix in the combinators.
    const composed: Observable<InformerEvent<V1ReplicaSet>> = source.pipe(
      and<V1ReplicaSet>(generationChanged(), not(eventType('resync')), (e) => e.object.spec?.replicas !== -1),
    );
    composed.subscribe((e) => keys.push(`composed ${e.key}`));
    const seen: string[] = [];
    typed.subscribe((e) => seen.push(e.object.metadata!.name!));
    source.next({ ...(added(rs('web', 1)) as unknown as InformerEvent<V1ReplicaSet>) });
    expect(keys).to.deep.equal(['default/web', 'composed default/web']);
    expect(seen).to.deep.equal(['web']);
  });
});
