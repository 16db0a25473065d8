/**
 * Bookmark-based liveness (`idleTimeout`): once the server is known to send bookmarks (kube-apiserver's watch cache
 * sends one about every minute), a watch silent for `idleTimeout` (default 90 s) is dead, long before
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

describe('listWatch: a watch silent for idleTimeout once the server is known to send bookmarks is dead', () => {
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
      'no bytes for 90 s (idleTimeout: the server sends a bookmark about once a minute); reconnecting',
    ]);
    expect([second!.at, second!.query.resourceVersion]).to.deep.equal([150_400, '12']);
  });

  it('holds every later watch of the subscription to it from its request: one left unanswered in a partition is cut after 90 s', () => {
    const cut = new TransportError('ConnectionClosed', 'stream cut');
    const o = scenario(
      (fake, { cold }) => {
        fake
          .onGet(of(page([], '10')))
          .onWatch(cold('60s a 9999ms #', { a: bookmark('12') }, cut))
          .onWatch(cold('-'))
          .onWatch(cold('-'));
      },
      {},
      200_000,
    );
    const [, unanswered, third] = o.fake.of('watch');
    expect(unanswered!.at).to.equal(70_400);
    expect([unanswered!.aborted, unanswered!.abortedAt]).to.deep.equal([true, 160_400]);
    expect(errorReasons(o)).to.deep.equal(['ConnectionClosed', 'DeadConnection']);
    expect(third!.query.resourceVersion).to.equal('12');
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
      'no bytes for 45 s (idleTimeout: the server sends a bookmark about once a minute); reconnecting',
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

  it('never cuts a quiet watch of a server that has sent no bookmark, whatever else it sent', () => {
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
