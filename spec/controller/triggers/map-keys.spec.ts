import { expect } from 'chai';
import { Subject, config, map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { InformerEvent } from '../../../src/informer/index.js';
import type { ReconcileTrigger } from '../../../src/controller/index.js';
import { KeyMappingError, mapKeys, type KeyMapping } from '../../../src/controller/triggers/index.js';
import { added, deleted, errorSink, obj } from '../predicates/fixtures.js';

function run(fn: (event: InformerEvent) => KeyMapping, events: InformerEvent[], onError?: (error: Error) => void) {
  const source = new Subject<InformerEvent>();
  const out: ReconcileTrigger[] = [];
  let failed: unknown;
  source.pipe(mapKeys(fn, onError ? { onError } : {})).subscribe({
    next: (t) => out.push(t),
    error: (e) => {
      failed = e;
    },
  });
  for (const event of events) source.next(event);
  expect(failed, 'the output must never error because of the mapper').to.equal(undefined);
  return out;
}

const cfg = obj('cfg', {}, 'ConfigMap');

describe('mapKeys', () => {
  it('gives a bare key the reason of the event that caused it', () => {
    expect(run(() => 'default/web', [added(cfg)])).to.deep.equal([
      { key: 'default/web', reason: 'added ConfigMap default/cfg' },
    ]);
  });

  it('keeps a reason the mapper chose, and fills one in when a trigger has none', () => {
    expect(run(() => [{ key: 'a', reason: 'mounts cfg' }, { key: 'b' }], [added(cfg)])).to.deep.equal([
      { key: 'a', reason: 'mounts cfg' },
      { key: 'b', reason: 'added ConfigMap default/cfg' },
    ]);
  });

  it('accepts arrays, Sets and generators, in the order they yield', () => {
    function* gen(): Generator<string> {
      yield 'x';
      yield 'y';
    }
    const out = run((e) => (e.type === 'added' ? new Set(['s1', 's2']) : gen()), [added(cfg), deleted(cfg)]);
    expect(out.map((t) => t.key)).to.deep.equal(['s1', 's2', 'x', 'y']);
  });

  it('emits nothing for undefined or null', () => {
    expect(run((e) => (e.type === 'added' ? undefined : null), [added(cfg), deleted(cfg)])).to.deep.equal([]);
  });

  it('reports bad values and keeps the good keys of the same event', () => {
    const sink = errorSink();
    const bad = ['', 42, { key: '' }, { key: 'r', reason: 7 }, ['nested']];
    const out = run(() => ['ok', ...bad] as never, [added(cfg)], sink.onError);
    expect(out).to.deep.equal([
      { key: 'ok', reason: 'added ConfigMap default/cfg' },
      { key: 'r', reason: 'added ConfigMap default/cfg' },
    ]);
    expect(sink.errors.map((e) => (e as KeyMappingError).value)).to.deep.equal(bad);
    expect(sink.errors.every((e) => e instanceof KeyMappingError && e.key === 'default/cfg')).to.equal(true);
  });

  it('reports a throwing mapper, keeps what it yielded first, and carries on with the next event', () => {
    const sink = errorSink();
    function* partial(): Generator<string> {
      yield 'first';
      throw new Error('lookup failed');
    }
    const out = run((e) => (e.type === 'added' ? partial() : 'next'), [added(cfg), deleted(cfg)], sink.onError);
    expect(out.map((t) => t.key)).to.deep.equal(['first', 'next']);
    expect(sink.errors).to.have.length(1);
    expect(sink.errors[0]!.message).to.match(/key mapper threw/);
    expect((sink.errors[0]!.cause as Error).message).to.equal('lookup failed');
  });

  it('does not blame the mapper for an error thrown downstream', () => {
    const sink = errorSink();
    const source = new Subject<InformerEvent>();
    let downstream: unknown;
    source
      .pipe(
        mapKeys(() => 'k', sink),
        map(() => {
          throw new Error('consumer');
        }),
      )
      .subscribe({
        error: (error) => {
          downstream = error;
        },
      });
    source.next(added(cfg));
    expect((downstream as Error).message).to.equal('consumer');
    expect(sink.errors).to.deep.equal([]);
  });

  it('survives an onError handler that throws, and still reports the error to the next destination', () => {
    const previous = config.onUnhandledError;
    const fallback: Error[] = [];
    config.onUnhandledError = (error) => fallback.push(error as Error);
    try {
      const out = run(
        () => ['', 'k'],
        [added(cfg)],
        () => {
          throw new Error('handler broke');
        },
      );
      expect(out.map((t) => t.key)).to.deep.equal(['k']);
      expect(fallback.map((e) => e.message)).to.deep.equal(['key mapper returned an empty key (added default/cfg)']);
    } finally {
      config.onUnhandledError = previous;
    }
  });

  it('rejects a mapper that is not a function when it is built', () => {
    expect(() => mapKeys('nope' as never)).to.throw(TypeError, /mapKeys: fn must be a function/);
  });

  it("emits every key of an event at that event's frame", () => {
    new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    }).run(({ cold, expectObservable }) => {
      const source = cold<InformerEvent<V1ConfigMap>>('-a-|', { a: added(cfg) as InformerEvent<V1ConfigMap> });
      // The event type flows from the stream into the mapper: `e.object.data` type-checks as V1ConfigMap.
      const out = source.pipe(mapKeys((e) => Object.keys(e.object.data ?? { x: '' }).map((k) => `default/${k}`)));
      expectObservable(out).toBe('-x-|', { x: { key: 'default/x', reason: 'added ConfigMap default/cfg' } });
    });
  });
});
