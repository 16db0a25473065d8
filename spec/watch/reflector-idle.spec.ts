/**
 * Bookmark-based liveness (`idleTimeout`): once a watch has had a bookmark (kube-apiserver's watch cache then sends
 * it one about every minute), a silence of `idleTimeout` (default 90 s) is a dead connection, long before
 * `timeoutSeconds + 30 s` (480 s here: `random()` is 0.5, so timeoutSeconds is 450).
 */
import { expect } from 'chai';
import { of } from 'rxjs';
import { TransportError } from '../../src/transport/index.js';
import { defaults } from '../../src/index.js';
import { DEFAULT_WATCH_IDLE_TIMEOUT_MS } from '../../src/watch/index.js';
import { bookmark, line, page, pod } from './fake-transport.js';
import { errorReasons, scenario } from './harness.js';

/** The message of every `DeadConnection` error status, in order. */
const deadMessages = (o: ReturnType<typeof scenario>): string[] =>
  o
    .statuses()
    .flatMap(([, s]) => (s.state === 'error' && s.cause.reason === 'DeadConnection' ? [s.cause.message] : []));

describe('listWatch: a watch silent for idleTimeout after it has had a bookmark is dead', () => {
  it('cuts a watch 90 s after its last byte once it has had a bookmark, and resumes from that bookmark', () => {
    const o = scenario(
      (fake, { cold }) => {
        fake
          .onGet(of(page([], '10')))
          .onWatch(cold('60s a', { a: bookmark('12') }))
          .onWatch(cold('-'));
      },
      {},
      200_000,
    );
    const [first, second] = o.fake.of('watch');
    expect(first!.query.timeoutSeconds).to.equal(450);
    expect([first!.aborted, first!.abortedAt]).to.deep.equal([true, 150_000]);
    expect(errorReasons(o)).to.deep.equal(['DeadConnection']);
    expect(deadMessages(o)).to.deep.equal([
      'no bytes for 90 s (idleTimeout: this watch had bookmarks, which come about once a minute); reconnecting',
    ]);
    expect([second!.at, second!.query.resourceVersion]).to.deep.equal([150_400, '12']);
  });

  it('holds each watch to it only from its own first bookmark: a resumed watch that gets none is left alone', () => {
    // kube-apiserver sends a watch bookmarks only once its cache has passed the resourceVersion the watch started
    // from, so a watch resumed on a quiet resource gets none, for as long as nothing changes.
    const cut = new TransportError('ConnectionClosed', 'stream cut');
    const o = scenario(
      (fake, { cold }) => {
        fake
          .onGet(of(page([], '10')))
          .onWatch(cold('60s a 9999ms #', { a: bookmark('12') }, cut))
          .onWatch(cold('-'));
      },
      {},
      500_000,
    );
    const [, quiet] = o.fake.of('watch');
    expect([quiet!.at, quiet!.query.resourceVersion]).to.deep.equal([70_400, '12']);
    expect(quiet!.abortedAt, 'open until the unsubscription (its bound is 70.4 s + 480 s)').to.equal(500_000);
    expect(errorReasons(o)).to.deep.equal(['ConnectionClosed']);
  });

  it('holds a resumed watch to it from its first bookmark on', () => {
    const cut = new TransportError('ConnectionClosed', 'stream cut');
    const o = scenario(
      (fake, { cold }) => {
        fake
          .onGet(of(page([], '10')))
          .onWatch(cold('60s a 9999ms #', { a: bookmark('12') }, cut))
          .onWatch(cold('30s b', { b: bookmark('13') }))
          .onWatch(cold('-'));
      },
      {},
      200_000,
    );
    const [, second] = o.fake.of('watch');
    expect([second!.aborted, second!.abortedAt]).to.deep.equal([true, 70_400 + 30_000 + 90_000]);
    expect(errorReasons(o)).to.deep.equal(['ConnectionClosed', 'DeadConnection']);
  });

  it('takes the silence allowed from the idleTimeout option', () => {
    const o = scenario(
      (fake, { cold }) => {
        fake
          .onGet(of(page([], '10')))
          .onWatch(cold('60s a', { a: bookmark('12') }))
          .onWatch(cold('-'));
      },
      { idleTimeout: 45_000 },
      120_000,
    );
    expect(o.fake.of('watch')[0]!.abortedAt).to.equal(105_000);
    expect(deadMessages(o)).to.deep.equal([
      'no bytes for 45 s (idleTimeout: this watch had bookmarks, which come about once a minute); reconnecting',
    ]);
  });

  it('keeps only the timeoutSeconds + 30 s bound with idleTimeout: false', () => {
    const o = scenario(
      (fake, { cold }) => {
        fake
          .onGet(of(page([], '10')))
          .onWatch(cold('60s a', { a: bookmark('12') }))
          .onWatch(cold('-'));
      },
      { idleTimeout: false },
      600_000,
    );
    expect(o.fake.of('watch')[0]!.abortedAt).to.equal(540_000);
    expect(deadMessages(o)).to.deep.equal(['no bytes for 480 s (timeoutSeconds + 30 s); reconnecting']);
  });

  it('never cuts a quiet watch that has had no bookmark, whatever else it got', () => {
    const o = scenario(
      (fake, { cold }) => {
        fake.onGet(of(page([], '10'))).onWatch(cold('a', { a: line('ADDED', pod('a', '11')) }));
      },
      {},
      470_000,
    );
    expect(errorReasons(o)).to.deep.equal([]);
    expect(o.fake.of('watch')).to.have.length(1);
  });

  it("does not count a streaming list's initial-events-end bookmark as a sign of bookmarks to come", () => {
    const o = scenario(
      (fake, { cold }) => {
        fake.onWatch(cold('ab', { a: line('ADDED', pod('a', '11')), b: bookmark('11', true) }));
      },
      { streamingList: true },
      470_000,
    );
    expect(errorReasons(o)).to.deep.equal([]);
    expect(o.fake.of('watch')).to.have.length(1);
  });

  it('keeps alive a watch that gets a bookmark every 60 s, as from kube-apiserver', () => {
    const bookmarks = Object.fromEntries([...'abcdefghij'].map((name, i) => [name, bookmark(String(11 + i))]));
    const o = scenario(
      (fake, { cold }) => {
        fake
          .onGet(of(page([], '10')))
          .onWatch(cold(`${[...'abcdefghij'].map((n) => `59999ms ${n}`).join(' ')}`, bookmarks));
      },
      {},
      650_000,
    );
    expect(errorReasons(o)).to.deep.equal([]);
    expect(o.fake.of('watch')).to.have.length(1);
  });

  it('refuses an idleTimeout that is not a positive finite number of ms or false, naming it', () => {
    for (const idleTimeout of [0, -5, Number.NaN, Number.POSITIVE_INFINITY, '90s', true] as never[]) {
      const o = scenario(() => {}, { idleTimeout });
      expect(o.error, String(idleTimeout)).to.be.instanceOf(RangeError);
      expect((o.error as Error).message).to.match(/idleTimeout must be a finite number of ms > 0 or false/);
      expect(o.fake.of('get')).to.have.length(0);
    }
  });

  it('says its default in defaults.watch.idleTimeout', () => {
    expect(defaults.watch.idleTimeout).to.equal(DEFAULT_WATCH_IDLE_TIMEOUT_MS).and.to.equal(90_000);
  });
});
