import { expect } from 'chai';
import { apiErrorFromResponse, parseRetryAfter } from '../../src/transport/index.js';

describe('transport errors', () => {
  it("parses Retry-After as seconds or as an HTTP date relative to the server's Date header", () => {
    const serverDate = 'Wed, 01 Jan 2025 00:00:00 GMT';
    expect(parseRetryAfter('12', serverDate)).to.equal(12);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', serverDate)).to.equal(30);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', serverDate)).to.equal(0);
    expect(parseRetryAfter('soon', serverDate)).to.equal(undefined);
    expect(parseRetryAfter(undefined, serverDate)).to.equal(undefined);
  });

  it("reads no local clock: an HTTP-date Retry-After without a Date header is left to the caller's backoff", () => {
    const realNow = Date.now;
    Date.now = () => {
      throw new Error('parseRetryAfter read the wall clock');
    };
    try {
      expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT')).to.equal(undefined);
      expect(parseRetryAfter('7')).to.equal(7);
      const err = apiErrorFromResponse({
        statusCode: 429,
        body: '',
        retryAfter: 'Wed, 01 Jan 2025 00:00:30 GMT',
        date: 'Wed, 01 Jan 2025 00:00:20 GMT',
      });
      expect(err.retryAfterSeconds).to.equal(10);
    } finally {
      Date.now = realNow;
    }
  });

  it('takes retryAfterSeconds from the Status details when there is no header', () => {
    const err = apiErrorFromResponse({
      statusCode: 503,
      statusMessage: 'Service Unavailable',
      body: JSON.stringify({
        kind: 'Status',
        code: 503,
        reason: 'ServiceUnavailable',
        message: 'busy',
        details: { retryAfterSeconds: 4 },
      }),
    });
    expect([err.code, err.reason, err.message, err.retryAfterSeconds]).to.deep.equal([
      503,
      'ServiceUnavailable',
      'busy',
      4,
    ]);
  });

  it('falls back to the status line for an empty body', () => {
    const err = apiErrorFromResponse({ statusCode: 500, statusMessage: 'Internal Server Error', body: '' });
    expect([err.reason, err.message, err.retryAfterSeconds]).to.deep.equal([
      'Internal Server Error',
      'Internal Server Error',
      undefined,
    ]);
  });
});
