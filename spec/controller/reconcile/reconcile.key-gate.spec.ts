import { expect } from 'chai';
import { map, Observable, Subject, timer } from 'rxjs';
import { reconcile, type KeyGate } from '../../../src/controller/index.js';
import { record, timeline, virtual } from '../helpers.js';

/** A key gate open for the keys in `open`, which the spec changes with `set`. */
function keyGate(initial: readonly string[]): KeyGate & { set(keys: readonly string[]): void } {
  let open = new Set(initial);
  const changed = new Subject<void>();
  return {
    isOpen: (key) => open.has(key),
    changed$: changed.asObservable(),
    set(keys) {
      open = new Set(keys);
      changed.next();
    },
  };
}

/** A run that never ends by itself and fails when `signal` is aborted. */
function failOnAbort(signal: AbortSignal): Observable<undefined> {
  return new Observable<undefined>((subscriber) => {
    const onAbort = (): void => subscriber.error(new Error('aborted'));
    signal.addEventListener('abort', onAbort);
    return () => signal.removeEventListener('abort', onAbort);
  });
}

describe('reconcile: the key gate', () => {
  it('starts only the keys it opens, holds the others without a slot, and runs them once they open', () => {
    const lines = virtual(({ hot, scheduler }) => {
      const gate = keyGate(['a']);
      scheduler.schedule(() => gate.set(['a', 'b']), 100);
      return timeline(
        hot('(ab)').pipe(
          reconcile(() => timer(10, scheduler).pipe(map(() => undefined)), { keyGate: gate, scheduler }),
        ),
        scheduler,
      );
    });
    expect(lines).to.deep.equal(['0 started a#1', '10 succeeded a', '100 started b#1', '110 succeeded b']);
  });

  it('coalesces the triggers of a held key into one run that carries every reason', () => {
    const events = virtual(({ hot, scheduler }) => {
      const gate = keyGate([]);
      scheduler.schedule(() => gate.set(['a']), 100);
      const triggers = { x: { key: 'a', reason: 'x' }, y: { key: 'a', reason: 'y' } };
      return record(hot('x-y-x', triggers).pipe(reconcile(() => undefined, { keyGate: gate, scheduler })), scheduler)
        .events;
    });
    expect(events.map((event) => `${event.time} ${event.type}`)).to.deep.equal(['100 started', '100 succeeded']);
    expect(events[0]).to.include({ key: 'a', attempt: 1 });
    expect((events[0] as { reasons: readonly string[] }).reasons).to.deep.equal(['x', 'y']);
  });

  it('aborts the run of a key it closes, counts no failure, and runs the key again when it reopens', () => {
    const lines = virtual(({ hot, scheduler }) => {
      const gate = keyGate(['a']);
      scheduler.schedule(() => gate.set([]), 20);
      scheduler.schedule(() => gate.set(['a']), 50);
      let calls = 0;
      return timeline(
        hot('a').pipe(
          reconcile(
            ({ signal }) => {
              calls += 1;
              // The first run fails when its signal is aborted; the second succeeds.
              if (calls === 1) return failOnAbort(signal);
              return undefined;
            },
            { keyGate: gate, scheduler, globalRateLimiter: false },
          ),
        ),
        scheduler,
      );
    });
    expect(lines).to.deep.equal(['0 started a#1', '20 failed a', '50 started a#1', '50 succeeded a']);
  });

  it('drops held keys when intake stops, and completes once the source completes and no key is held', () => {
    const lines = virtual(({ cold, scheduler }) => {
      const gate = keyGate([]);
      scheduler.schedule(() => gate.set(['a']), 100);
      return timeline(cold('a|').pipe(reconcile(() => undefined, { keyGate: gate, scheduler })), scheduler);
    });
    expect(lines).to.deep.equal(['100 started a#1', '100 succeeded a', '100 complete']);
  });

  it('asks again only about the key a keyed change names', () => {
    const lines = virtual(({ hot, scheduler }) => {
      const open = new Set<string>();
      const changed = new Subject<unknown>();
      const gate: KeyGate = { isOpen: (key) => open.has(key), changed$: changed };
      scheduler.schedule(() => {
        open.add('a').add('b');
        changed.next('b');
      }, 100);
      scheduler.schedule(() => changed.next(undefined), 200);
      return timeline(hot('(ab)').pipe(reconcile(() => undefined, { keyGate: gate, scheduler })), scheduler);
    });
    expect(lines).to.deep.equal(['100 started b#1', '100 succeeded b', '200 started a#1', '200 succeeded a']);
  });

  it('refuses a key gate without isOpen and changed$ when the operator is built', () => {
    expect(() => reconcile(() => undefined, { keyGate: { isOpen: () => true } as never })).to.throw(
      TypeError,
      'keyGate must be an object with isOpen(key) and a changed$ Observable',
    );
  });
});
