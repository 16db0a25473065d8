import { expect } from 'chai';
import fc from 'fast-check';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { ApiError, deduplicateWarnings, parseWarningHeaders, sendRequest } from '../../src/transport/index.js';
import { warningHeaders } from '../../src/testing/apiserver/machinery/warnings.js';

/** A header value as Node hands it out: each byte one Latin-1 character. */
const asReceived = (utf8Text: string) => Buffer.from(utf8Text, 'utf8').toString('latin1');

describe('transport: parseWarningHeaders', () => {
  it('reads the text of each 299 warning, one per header line or several joined on one', () => {
    expect(
      parseWarningHeaders(['299 - "unknown field \\"colour\\""', '299 - "v1beta1 Widget is deprecated"']),
    ).to.deep.equal(['unknown field "colour"', 'v1beta1 Widget is deprecated']);
    expect(
      parseWarningHeaders(['299 - "a, b", 299 kube-apiserver "c" "Sun, 06 Nov 1994 08:49:37 GMT" ,, 299 - "d\\\\e"']),
    ).to.deep.equal(['a, b', 'c', 'd\\e']);
  });

  it('decodes the UTF-8 bytes kube-apiserver writes and Node hands out as Latin-1 characters', () => {
    expect(parseWarningHeaders([asReceived('299 - "unknown field \\"größe\\" — 字段"')])).to.deep.equal([
      'unknown field "größe" — 字段',
    ]);
  });

  it('leaves out warnings with another code, which HTTP caches give and are not API warnings', () => {
    expect(parseWarningHeaders(['110 proxy "Response is Stale", 299 - "kept"'])).to.deep.equal(['kept']);
  });

  it('keeps a header value it cannot parse whole, so no warning is lost', () => {
    for (const raw of [
      '299 - unquoted',
      '299 - "unterminated',
      'deprecated API',
      '299 "no agent"',
      '299 - "a" trailing',
    ]) {
      expect(parseWarningHeaders(['299 - "fine"', raw]), raw).to.deep.equal(['fine', raw]);
    }
    expect(parseWarningHeaders([])).to.deep.equal([]);
  });

  it('reads back every non-empty text the in-memory server writes, in order and once each, as a property', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 12 }), { minLength: 1, maxLength: 5 }), (texts) => {
        const header = warningHeaders(texts)['Warning'];
        // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what the server replaces
        const controlCharacters = /[\x00-\x1f\x7f-\x9f]/g;
        const expected = [...new Set(texts)]
          .filter((text) => text !== '')
          .map((text) => text.replace(controlCharacters, '\ufffd'));
        expect(header === undefined ? [] : parseWarningHeaders([header])).to.deep.equal(expected);
      }),
      { numRuns: 300 },
    );
  });
});

describe('transport: warnings over HTTP', () => {
  let server: http.Server;
  let kc: KubeConfig;

  before(async () => {
    server = http.createServer((req, res) => {
      // Two header lines, as kube-apiserver writes two warnings; the second in UTF-8. writeHead writes each character
      // as one byte (setHeader would encode them as UTF-8 once more).
      const warnings = ['299 - "first"', asReceived('299 - "zweite Warnung: Größe, 字段"')];
      const failing = req.url?.startsWith('/fail') === true;
      res.writeHead(failing ? 409 : 200, { 'Content-Type': 'application/json', Warning: warnings });
      res.end(
        failing
          ? JSON.stringify({
              kind: 'Status',
              apiVersion: 'v1',
              status: 'Failure',
              reason: 'Conflict',
              code: 409,
              message: 'modified',
            })
          : '{"kind":"ConfigMap"}',
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        { name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true },
      ],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('hands every warning of a successful answer out on the response, one per header line', async () => {
    const response = await sendRequest(kc, { method: 'POST', path: '/ok', body: {} });
    expect(response.warnings).to.deep.equal(['first', 'zweite Warnung: Größe, 字段']);
  });

  it('keeps the warnings of a refused request on its ApiError', async () => {
    const error = await sendRequest(kc, { method: 'PUT', path: '/fail', body: {} }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(ApiError);
    expect([(error as ApiError).code, (error as ApiError).warnings]).to.deep.equal([
      409,
      ['first', 'zweite Warnung: Größe, 字段'],
    ]);
  });
});

describe('transport: deduplicateWarnings', () => {
  it('passes each distinct text on once, the first request that received it with it', () => {
    const passed: string[] = [];
    const handler = deduplicateWarnings(({ text, path }) => passed.push(`${path} ${text}`));
    handler({ text: 'deprecated', method: 'GET', path: '/a' });
    handler({ text: 'deprecated', method: 'GET', path: '/b' });
    handler({ text: 'unknown field "x"', method: 'POST', path: '/a' });
    expect(passed).to.deep.equal(['/a deprecated', '/a unknown field "x"']);
  });

  it('remembers at most 1024 texts, then starts over, so unique texts cannot grow it forever', () => {
    let passed = 0;
    const handler = deduplicateWarnings(() => void (passed += 1));
    for (let i = 0; i < 1024; i++) handler({ text: `t${i}`, method: 'GET', path: '/' });
    handler({ text: 't0', method: 'GET', path: '/' });
    expect(passed).to.equal(1024);
    handler({ text: 'one more', method: 'GET', path: '/' });
    handler({ text: 't0', method: 'GET', path: '/' });
    expect(passed).to.equal(1026);
  });

  it('gives two handlers their own memory', () => {
    const passed: string[] = [];
    const one = deduplicateWarnings(({ text }) => passed.push(`one ${text}`));
    const two = deduplicateWarnings(({ text }) => passed.push(`two ${text}`));
    one({ text: 'x', method: 'GET', path: '/' });
    two({ text: 'x', method: 'GET', path: '/' });
    expect(passed).to.deep.equal(['one x', 'two x']);
  });
});
