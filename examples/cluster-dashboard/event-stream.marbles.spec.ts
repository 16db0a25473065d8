/**
 * The dashboard's backpressure: `latestWhenWritable` on a timeline (marbles), and its promises for any interleaving
 * of frames, writes that fill the socket and drains (a fast-check property).
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { Subject, tap } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { latestWhenWritable } from './event-stream.js';

describe("latestWhenWritable: the dashboard's backpressure", () => {
  const scheduler = () =>
    new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });

  it('passes frames on at once while the socket has room, holds only the latest while it drains, and sends that one on the drain', () => {
    scheduler().run(({ hot, expectObservable }) => {
      const socket = { writableNeedDrain: false };
      const frames = hot('a-b-c-d---e-f|');
      const drain = hot('  ------x-------').pipe(
        tap(() => {
          socket.writableNeedDrain = false;
        }),
      );
      // Writing `a` fills the socket; b, c and d come while it drains: b and c are dropped, d is sent on the drain.
      const written = frames.pipe(
        latestWhenWritable(socket, drain),
        tap((frame) => {
          if (frame === 'a') socket.writableNeedDrain = true;
        }),
      );
      expectObservable(written).toBe('a-----d---e-f|');
    });
  });

  it('keeps holding while the socket stays full, and completes after sending the frame it held', () => {
    scheduler().run(({ hot, expectObservable }) => {
      const socket = { writableNeedDrain: false };
      const frames = hot('a-b-c|');
      const drain = hot('  --------x').pipe(
        tap(() => {
          socket.writableNeedDrain = false;
        }),
      );
      const written = frames.pipe(
        latestWhenWritable(socket, drain),
        tap(() => {
          socket.writableNeedDrain = true;
        }),
      );
      expectObservable(written).toBe('a-------(c|)');
    });
  });

  it('for any frames, fills and drains: never writes to a socket that needs draining, never sends an older frame after a newer one, and ends on the latest once drained', () => {
    type Step = { readonly type: 'frame' } | { readonly type: 'drain' } | { readonly type: 'fill' };
    const step = fc.oneof(
      fc.constant<Step>({ type: 'frame' }),
      fc.constant<Step>({ type: 'drain' }),
      fc.constant<Step>({ type: 'fill' }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const socket = { writableNeedDrain: false };
        const frames = new Subject<number>();
        const drain = new Subject<void>();
        const written: number[] = [];
        let fillNext = false;
        let writesToAFullSocket = 0;
        frames.pipe(latestWhenWritable(socket, drain)).subscribe((frame) => {
          if (socket.writableNeedDrain) writesToAFullSocket += 1;
          written.push(frame);
          // A write fills the socket when the step before said it would.
          socket.writableNeedDrain = fillNext;
          fillNext = false;
        });
        let sent = 0;
        for (const { type } of steps) {
          if (type === 'frame') frames.next(++sent);
          else if (type === 'fill') fillNext = true;
          else {
            socket.writableNeedDrain = false;
            drain.next();
          }
          expect(written.every((frame, i) => i === 0 || frame > written[i - 1]!)).to.equal(true);
        }
        socket.writableNeedDrain = false;
        drain.next();
        if (sent > 0) expect(written.at(-1)).to.equal(sent);
        expect(writesToAFullSocket).to.equal(0);
      }),
    );
  });
});
