import { expect } from 'chai';
import { of, takeWhile } from 'rxjs';
import type { RunHelpers } from 'rxjs/testing';
import { TestScheduler } from 'rxjs/testing';
import { TransportError } from '../../src/transport/index.js';
import { listWatch } from '../../src/watch/index.js';
import type { ListWatchOptions, WatchEvent } from '../../src/watch/index.js';
import { FakeTransport, kc, line, page, pod, PODS } from './fake-transport.js';

/**
 * Subscribes, unsubscribes from inside the consumer the first time `stopOn` matches, and counts the scheduler
 * actions still pending right after (a check scheduled at the same virtual instant runs before any later action).
 */
function pendingAfterUnsubscribe(
  stopOn: (event: WatchEvent) => boolean,
  setup: (fake: FakeTransport, helpers: RunHelpers) => void,
  options: ListWatchOptions = {},
): { stopped: boolean; pending: number } {
  const scheduler = new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
  const fake = new FakeTransport();
  let stopped = false;
  let pending = -1;
  scheduler.run((helpers) => {
    setup(fake, helpers);
    let safety: unknown;
    // takeWhile unsubscribes from listWatch synchronously, inside the emission that matched.
    const subscription = listWatch(kc, PODS, { transport: fake, random: () => 0.5, ...options })
      .pipe(takeWhile((event) => !stopOn(event), true))
      .subscribe({
        complete: () => {
          stopped = true;
          scheduler.schedule(() => (pending = scheduler.actions.filter((action) => action !== safety).length), 0);
        },
      });
    // Ends a scenario whose stop condition never came, so a leak shows as a failed expectation, not a hang.
    safety = scheduler.schedule(() => subscription.unsubscribe(), 3_600_000);
  });
  return { stopped, pending };
}

const status = (state: string, nth = 1) => {
  let seen = 0;
  return (event: WatchEvent): boolean => event.type === 'status' && event.status.state === state && ++seen === nth;
};
const networkError = (): TransportError => new TransportError('NetworkError', 'connect ECONNREFUSED');

describe('listWatch: unsubscribing from inside a callback leaves nothing scheduled', () => {
  // Every answer arrives a little later (1 ms), as over a network: the consumer then unsubscribes after the
  // subscription was set up, which is what `firstValueFrom(status$.pipe(filter(…)))` does.
  const cases: Array<
    [string, () => (event: WatchEvent) => boolean, (fake: FakeTransport, helpers: RunHelpers) => void]
  > = [
    [
      'connecting',
      () => status('connecting', 2),
      (fake, { cold }) => fake.onGet(cold('1ms (a|)', { a: page([], '10') })),
    ],
    [
      'listing',
      () => status('listing', 2),
      (fake, { cold }) =>
        fake.onGet(cold('1ms (a|)', { a: page([], '10', 'tok') })).onGet(cold('10s (a|)', { a: page([], '10') })),
    ],
    [
      'watching',
      () => status('watching'),
      (fake, { cold }) => fake.onGet(cold('1ms (a|)', { a: page([pod('a', '1')], '10') })).onWatch(cold('-')),
    ],
    ['error', () => status('error'), (fake, { cold }) => fake.onGet(cold('1ms #', undefined, networkError()))],
    [
      'backingOff',
      () => status('backingOff'),
      (fake, { cold }) => fake.onGet(cold('1ms #', undefined, networkError())),
    ],
    [
      'relistDone',
      () => (e) => e.type === 'relistDone',
      (fake, { cold }) => fake.onGet(cold('1ms (a|)', { a: page([pod('a', '1')], '10') })).onWatch(cold('-')),
    ],
    [
      'a problem',
      () => (e) => e.type === 'problem',
      (fake, { cold }) =>
        fake.onGet(cold('1ms (a|)', { a: page([], '10') })).onWatch(cold('1ms a', { a: '{not json' })),
    ],
    [
      'a watch event',
      () => (e) => e.type === 'added',
      (fake, { cold }) =>
        fake
          .onGet(cold('1ms (a|)', { a: page([], '10') }))
          .onWatch(cold('1ms a', { a: line('ADDED', pod('a', '11')) })),
    ],
  ];
  for (const [what, stopOn, setup] of cases) {
    it(`leaves no timer behind when the consumer unsubscribes on ${what}`, () => {
      const { stopped, pending } = pendingAfterUnsubscribe(stopOn(), setup);
      expect(stopped, `the scenario reached ${what}`).to.equal(true);
      expect(pending, 'scheduler actions left after unsubscribe').to.equal(0);
    });
  }

  it('leaves no timer behind when the consumer unsubscribes during the subscribe call itself', () => {
    const { stopped, pending } = pendingAfterUnsubscribe(status('watching'), (fake, { cold }) =>
      fake.onGet(of(page([], '10'))).onWatch(cold('-')),
    );
    expect([stopped, pending]).to.deep.equal([true, 0]);
  });

  it('leaves no timer behind on a streaming list stopped at its initial phase', () => {
    const { stopped, pending } = pendingAfterUnsubscribe(
      status('listing'),
      (fake, { cold }) => fake.onWatch(cold('1ms a', { a: line('ADDED', pod('a', '1')) })),
      { streamingList: true },
    );
    expect([stopped, pending]).to.deep.equal([true, 0]);
  });
});
