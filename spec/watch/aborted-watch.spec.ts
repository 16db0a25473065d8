import { expect } from 'chai';
import { concat, NEVER, of, throwError } from 'rxjs';
import { ApiError } from '../../src/transport/index.js';
import type { WatchHealthReport } from '../../src/watch/index.js';
import { page, statusLine } from './fake-transport.js';
import { scenario } from './harness.js';

describe('listWatch: a watch it aborted says nothing of the next one', () => {
  it('ignores the acceptance of a watch aborted while it was being subscribed, so it never announces watching while backing off', () => {
    // The first watch's first line (a 410, delivered during the subscribe call) has the reflector abort it, relist and
    // open a second watch, which the server refuses; the fake then reports the first watch as accepted.
    const reports: WatchHealthReport[] = [];
    const o = scenario((fake, { cold }) => {
      fake
        .onGet(of(page([], '10')))
        .onWatch(concat(of(statusLine(410, 'Expired')), NEVER))
        .onGet(of(page([], '20')))
        .onWatch(throwError(() => new ApiError(500, 'InternalError', 'etcd is slow')))
        .onWatch(cold('-'));
    }, { onHealth: (report) => reports.push(report) });
    expect(o.statuses().map(([t, s]) => `${t} ${s.state}`)).to.deep.equal([
      '0 connecting', '0 listing', '0 connecting', '0 watching', '0 error', '0 connecting', '0 listing', '0 connecting', '0 error', '0 backingOff',
      '400 connecting', '400 watching',
    ]);
    expect(reports.map((r) => r.type)).to.deep.equal(['failing', 'recovered']);
  });
});
