/**
 * `readYourWrites`: what the next run of a key waits for, until when, and what it says when it gives up (marbles).
 */
import { expect } from 'chai';
import { TestScheduler } from 'rxjs/testing';
import { ownWriteLedger, readYourWrites, type ReadSource } from '../../../src/controller/own-writes/index.js';
import { CONFIG_MAP, SECRET, fakeCache, object, request, write, type FakeCache } from './support.js';

function marbles(
  body: (helpers: Parameters<Parameters<TestScheduler['run']>[0]>[0], scheduler: TestScheduler) => void,
): void {
  const scheduler = new TestScheduler((actual, expected) => void expect(actual).to.deep.equal(expected));
  scheduler.run((helpers) => body(helpers, scheduler));
}

describe('readYourWrites: what the next run of a key waits for', () => {
  it('lets a key run at once when nothing was written, or its caches already show it', () => {
    const writes = ownWriteLedger();
    const cache = fakeCache('10');
    const readiness = readYourWrites(writes, [{ resource: CONFIG_MAP, informer: cache }], { primary: CONFIG_MAP });
    expect(readiness.wait('default/a')).to.equal(undefined);
    write(writes, object('a', '9'));
    expect(readiness.wait('default/a')).to.equal(undefined);
  });

  it('waits for the cache to reach the resourceVersion of a write charged to the key, and ends one action later', () => {
    marbles(({ cold, expectObservable }, scheduler) => {
      const writes = ownWriteLedger({ scheduler });
      const secrets = fakeCache('5');
      const readiness = readYourWrites(writes, [{ resource: SECRET, informer: secrets }]);
      const run = request('default/parent');
      readiness.began!(run);
      write(
        writes,
        { ...object('child', '7'), kind: 'Secret' },
        { resource: SECRET, verb: 'create', base: null, signal: run.signal },
      );
      cold('10ms a 9ms b').subscribe((step) => secrets.set(step === 'a' ? '6' : '7'));
      expectObservable(readiness.wait('default/parent')!).toBe('20ms (u|)', { u: undefined });
    });
  });

  it('gives up after maxWait and names what the caches did not show', () => {
    marbles(({ expectObservable }, scheduler) => {
      const writes = ownWriteLedger({ scheduler });
      const cache = fakeCache('5');
      const readiness = readYourWrites(writes, [{ resource: CONFIG_MAP, informer: cache }], {
        primary: CONFIG_MAP,
        maxWait: 50,
      });
      write(writes, object('a', '8'), { base: '5' });
      expectObservable(readiness.wait('default/a')!).toBe('50ms (s|)', {
        s: {
          waitedMs: 50,
          behind: [
            { resource: CONFIG_MAP, key: 'default/a', resourceVersion: '8', deleted: false, cacheResourceVersion: '5' },
          ],
        },
      });
    });
  });

  it('waits without a bound when maxWait is Infinity', () => {
    marbles(({ expectObservable }, scheduler) => {
      const writes = ownWriteLedger({ scheduler });
      const readiness = readYourWrites(writes, [{ resource: CONFIG_MAP, informer: fakeCache('5') }], {
        primary: CONFIG_MAP,
        maxWait: Number.POSITIVE_INFINITY,
      });
      write(writes, object('a', '8'));
      expectObservable(readiness.wait('default/a')!, '^ 3600000ms !').toBe('');
    });
  });

  it("waits for the last write to the key's own object whoever sent it, only with a primary kind", () => {
    const writes = ownWriteLedger();
    const cache = fakeCache('5');
    write(writes, object('a', '6'));
    write(writes, object('a', '7'));
    expect(readYourWrites(writes, [{ resource: CONFIG_MAP, informer: cache }]).wait('default/a')).to.equal(undefined);
    const readiness = readYourWrites(writes, [{ resource: CONFIG_MAP, informer: cache }], { primary: CONFIG_MAP });
    cache.set('6');
    expect(readiness.wait('default/a'), 'the cache has the first write, not the last').to.not.equal(undefined);
    cache.set('7');
    expect(readiness.wait('default/a')).to.equal(undefined);
  });

  it('waits only in the caches that can hold the object: its kind, its namespace, a label selector that selects it', () => {
    const writes = ownWriteLedger();
    const lagging = (extra: Partial<ReadSource>): ReadSource => ({
      resource: CONFIG_MAP,
      informer: fakeCache('1'),
      ...extra,
    });
    const run = request('k');
    const readiness = (source: ReadSource) => {
      const hook = readYourWrites(writes, [source]);
      hook.began!(run);
      return hook;
    };
    const hooks = {
      otherKind: readiness(lagging({ resource: SECRET })),
      otherNamespace: readiness(lagging({ namespace: 'other' })),
      notSelected: readiness(lagging({ labelSelector: 'app=db' })),
      selected: readiness(lagging({ labelSelector: 'app=web' })),
      everyNamespace: readiness(lagging({})),
    };
    write(writes, object('a', '5', { labels: { app: 'web' } }), { signal: run.signal });
    const waiting = Object.entries(hooks)
      .filter(([, hook]) => hook.wait('k') !== undefined)
      .map(([name]) => name);
    expect(waiting).to.deep.equal(['selected', 'everyNamespace']);
  });

  it('counts a delete as shown once the object is gone, is another object, or shows its deletion at the answered version', () => {
    const writes = ownWriteLedger();
    const cache = fakeCache('9', object('a', '4'));
    const readiness = readYourWrites(writes, [{ resource: CONFIG_MAP, informer: cache }], { primary: CONFIG_MAP });
    write(writes, object('a', '6', { deletionTimestamp: '2026-01-01T00:00:00Z' as never }), { verb: 'delete' });
    expect(readiness.wait('default/a'), 'the cache still shows it alive').to.not.equal(undefined);
    cache.set('9', object('a', '6', { deletionTimestamp: '2026-01-01T00:00:00Z' as never }));
    expect(readiness.wait('default/a'), 'it shows the deletion').to.equal(undefined);
    write(writes, { kind: 'Status', apiVersion: 'v1', metadata: {}, details: { name: 'a', uid: 'uid-a' } } as never, {
      verb: 'delete',
      name: 'a',
    });
    expect(readiness.wait('default/a'), 'gone for the server, still in the cache').to.not.equal(undefined);
    cache.set('9', object('a', '12', { uid: 'uid-new' }));
    expect(readiness.wait('default/a'), 'another object under the name').to.equal(undefined);
    cache.set('12');
    expect(readiness.wait('default/a'), 'gone').to.equal(undefined);
  });

  it('does not wait for a write whose resourceVersion does not compare, and waits on a cache that has not listed yet', () => {
    const writes = ownWriteLedger();
    const cache = fakeCache('');
    const readiness = readYourWrites(writes, [{ resource: CONFIG_MAP, informer: cache }], { primary: CONFIG_MAP });
    write(writes, object('opaque', 'a1b2'));
    expect(readiness.wait('default/opaque')).to.equal(undefined);
    write(writes, object('a', '3'));
    expect(readiness.wait('default/a')).to.not.equal(undefined);
  });

  it("forgets what was charged to a key when its next run begins, and charges that run's writes anew", () => {
    const writes = ownWriteLedger();
    const cache: FakeCache = fakeCache('1');
    const readiness = readYourWrites(writes, [{ resource: CONFIG_MAP, informer: cache }]);
    const first = request('k');
    readiness.began!(first);
    write(writes, object('child', '5'), { signal: first.signal });
    expect(readiness.wait('k')).to.not.equal(undefined);
    readiness.began!(request('k'));
    expect(readiness.wait('k')).to.equal(undefined);
    write(writes, object('child', '6'), { signal: first.signal });
    expect(readiness.wait('k'), 'a late answer of the earlier run still counts').to.not.equal(undefined);
  });

  it('reads its sources at each check: a cache added later is waited on', () => {
    const writes = ownWriteLedger();
    const reads = new Set<ReadSource>();
    const readiness = readYourWrites(writes, reads, { primary: CONFIG_MAP });
    write(writes, object('a', '5'));
    expect(readiness.wait('default/a')).to.equal(undefined);
    reads.add({ resource: CONFIG_MAP, informer: fakeCache('4') });
    expect(readiness.wait('default/a')).to.not.equal(undefined);
  });

  it('refuses a maxWait that is not a number of ms >= 0', () => {
    expect(() => readYourWrites(ownWriteLedger(), [], { maxWait: -1 })).to.throw(
      RangeError,
      'maxWait must be a number of ms >= 0',
    );
  });
});
