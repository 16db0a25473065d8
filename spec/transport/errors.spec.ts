import { expect } from 'chai';
import { apiErrorFromResponse, parseRetryAfter } from '../../src/transport/index.js';

describe('transport errors', () => {
  it('parses Retry-After as seconds or as an HTTP date relative to now', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('12', now)).to.equal(12);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now)).to.equal(30);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now)).to.equal(0);
    expect(parseRetryAfter('soon', now)).to.equal(undefined);
    expect(parseRetryAfter(undefined, now)).to.equal(undefined);
  });

  it('takes retryAfterSeconds from the Status details when there is no header', () => {
    const err = apiErrorFromResponse(503, 'Service Unavailable', JSON.stringify({ kind: 'Status', code: 503, reason: 'ServiceUnavailable', message: 'busy', details: { retryAfterSeconds: 4 } }), undefined);
    expect([err.code, err.reason, err.message, err.retryAfterSeconds]).to.deep.equal([503, 'ServiceUnavailable', 'busy', 4]);
  });

  it('falls back to the status line for an empty body', () => {
    const err = apiErrorFromResponse(500, 'Internal Server Error', '', undefined);
    expect([err.reason, err.message, err.retryAfterSeconds]).to.deep.equal(['Internal Server Error', 'Internal Server Error', undefined]);
  });
});
