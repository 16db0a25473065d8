import { expect } from 'chai';
import { Subject } from 'rxjs';
import type { ReconcileTrigger } from '../../../src/controller/index.js';
import {
  KeyMappingError,
  toTriggers,
  type KeyMapping,
  type ToTriggersOptions,
} from '../../../src/controller/triggers/index.js';
import { errorSink } from '../predicates/fixtures.js';

function run<M>(fn: (message: M) => KeyMapping, options: ToTriggersOptions<M>, messages: M[]): ReconcileTrigger[] {
  const source = new Subject<M>();
  const out: ReconcileTrigger[] = [];
  let failed: unknown;
  source.pipe(toTriggers(fn, options)).subscribe({
    next: (t) => out.push(t),
    error: (e) => {
      failed = e;
    },
  });
  for (const message of messages) source.next(message);
  expect(failed, 'the output never errors because of the mapping').to.equal(undefined);
  return out;
}

describe('toTriggers', () => {
  it('gives bare keys the reason of their source, fixed or made from the message, and keeps reasons given', () => {
    expect(run((m: string) => m, { reason: 'webhook' }, ['default/a', 'node-1'])).to.deep.equal([
      { key: 'default/a', reason: 'webhook' },
      { key: 'node-1', reason: 'webhook' },
    ]);
    expect(
      run(
        (m: { id: number; keys: string[] }) => [...m.keys, { key: 'x/y', reason: 'own' }],
        { reason: (m) => `queue message ${m.id}` },
        [{ id: 7, keys: ['a/b'] }],
      ),
    ).to.deep.equal([
      { key: 'a/b', reason: 'queue message 7' },
      { key: 'x/y', reason: 'own' },
    ]);
  });

  it('refuses keys no object can have, reports each, and keeps the good keys of the same message', () => {
    const sink = errorSink();
    const bad = ['a/b/c', '/name', 'ns/', 'with space', 'tab\there', 'x'.repeat(318), ''];
    const out = run(
      () => ['ok/one', ...bad, { key: 'ok/two' }],
      { reason: 'webhook', source: 'webhook', onError: sink.onError },
      [null],
    );
    expect(out.map((t) => t.key)).to.deep.equal(['ok/one', 'ok/two']);
    expect(sink.errors).to.have.length(bad.length);
    expect(sink.errors.every((e) => e instanceof KeyMappingError && e.eventType === 'webhook')).to.equal(true);
    expect(sink.errors.map((e) => e.message.replace(/"x{318}"/, '"x…"'))).to.deep.equal([
      'key mapper returned "a/b/c", which has more than one "/": an object key is namespace/name or name (webhook <no key>)',
      'key mapper returned "/name", which has an empty namespace or name (webhook <no key>)',
      'key mapper returned "ns/", which has an empty namespace or name (webhook <no key>)',
      'key mapper returned "with space", which holds whitespace or a control character, which no object key does (webhook <no key>)',
      'key mapper returned "tab\\there", which holds whitespace or a control character, which no object key does (webhook <no key>)',
      'key mapper returned "x…", which is longer than the 317 characters of any object key (webhook <no key>)',
      'key mapper returned an empty key (webhook <no key>)',
    ]);
  });

  it("accepts any non-empty key with keys: 'any'", () => {
    expect(run(() => ['a/b/c', 'with space'], { reason: 'r', keys: 'any' }, [1]).map((t) => t.key)).to.deep.equal([
      'a/b/c',
      'with space',
    ]);
  });

  it('reports a throwing mapper or reason and keeps what it can, message after message', () => {
    const sink = errorSink();
    const out = run(
      (m: number) => {
        if (m === 1) throw new Error('unreadable');
        return `k/${m}`;
      },
      {
        reason: (m) => {
          if (m === 2) throw new Error('no words');
          return `m${m}`;
        },
        onError: sink.onError,
      },
      [1, 2, 3],
    );
    expect(out).to.deep.equal([
      { key: 'k/2', reason: 'external (reason unavailable)' },
      { key: 'k/3', reason: 'm3' },
    ]);
    expect(sink.errors.map((e) => e.message)).to.deep.equal([
      'key mapper threw; keys mapped before the throw were kept (external <no key>)',
      'reason threw; the triggers were kept: no words (external <no key>)',
    ]);
  });

  it('refuses options that cannot work, when called', () => {
    expect(() => toTriggers((m) => m as string, {} as never)).to.throw(
      TypeError,
      /reason must be a non-empty string or a function/,
    );
    expect(() => toTriggers((m) => m as string, { reason: 'r', keys: 'some' as never })).to.throw(
      TypeError,
      /keys must be 'object' or 'any'/,
    );
    expect(() => toTriggers('key' as never, { reason: 'r' })).to.throw(TypeError, /fn must be a function/);
  });
});
