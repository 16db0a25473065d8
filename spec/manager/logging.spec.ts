import { expect } from 'chai';
import fc from 'fast-check';
import { jsonLogger, REDACTED } from '../../src/manager/index.js';
import { MIN_LITERAL_LENGTH, redactingLogger, redactor } from '../../src/manager/logging/index.js';

describe('manager logs: redaction', () => {
  const redact = redactor(() => ['s3cr3t-literal-value']);

  it('blanks credential fields, Secret data, bearer tokens, JWTs, URL passwords and known literals', () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW0ifQ.c2lnbmF0dXJl';
    const out = redact({
      token: 'abc',
      password: 'pw',
      secretName: 'db',
      authorization: 'Basic Zm9vOmJhcg==',
      header: 'Authorization: Bearer abc.def-ghi',
      jwt: `id ${jwt}`,
      url: 'https://user:pa55@example.com/x',
      note: 'the value s3cr3t-literal-value leaked',
      object: {
        kind: 'Secret',
        metadata: { name: 'db' },
        data: { password: 'aHVudGVyMg==' },
        stringData: { user: 'admin' },
      },
    });
    expect(out).to.deep.equal({
      token: REDACTED,
      password: REDACTED,
      secretName: 'db',
      authorization: REDACTED,
      header: `Authorization: Bearer ${REDACTED}`,
      jwt: `id ${REDACTED}`,
      url: `https://${REDACTED}@example.com/x`,
      note: `the value ${REDACTED} leaked`,
      object: {
        kind: 'Secret',
        metadata: { name: 'db' },
        data: { password: REDACTED },
        stringData: { user: REDACTED },
      },
    });
  });

  it('turns errors into name, message, stack, code, reason and cause, each redacted, and never mutates its input', () => {
    const cause = { token: 'xyz' };
    const error = Object.assign(new Error('failed with s3cr3t-literal-value', { cause }), {
      code: 403,
      reason: 'Forbidden',
    });
    const out = redact({ error }) as { error: Record<string, unknown> };
    expect(out.error).to.include({ name: 'Error', message: `failed with ${REDACTED}`, code: 403, reason: 'Forbidden' });
    expect(out.error.cause).to.deep.equal({ token: REDACTED });
    expect(out.error.stack).to.match(/^Error: failed with \[REDACTED\]/);
    expect(cause.token).to.equal('xyz');
  });

  it('survives cycles, BigInts, functions, Maps and depth', () => {
    const cyclic: Record<string, unknown> = { n: 1n, f: function named() {}, m: new Map([['k', 'v']]) };
    cyclic.self = cyclic;
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 20; i++) deep = deep.next = {};
    expect(redact(cyclic)).to.deep.equal({ n: '1', f: '[Function named]', m: { k: 'v' }, self: '[Circular]' });
    expect(JSON.stringify(redact(root))).to.contain('[Truncated]');
  });

  it('never lets a registered literal through, wherever it is nested (property)', () => {
    const literal = fc
      .string({ minLength: MIN_LITERAL_LENGTH, maxLength: 24 })
      .filter((s) => s.trim() === s && !s.includes('[REDACTED]'));
    fc.assert(
      fc.property(literal, fc.string(), fc.string(), fc.nat(3), (secret, before, after, depth) => {
        let value: unknown = `${before}${secret}${after}`;
        for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { message: value } : [value];
        const out = JSON.stringify(redactor(() => [secret])(value));
        return !out.includes(JSON.stringify(secret).slice(1, -1));
      }),
    );
  });

  it('keeps the logger away from its caller: a throwing logger loses its line, never the caller', () => {
    const broken = {
      debug: () => {
        throw new Error('x');
      },
      info: () => {
        throw new Error('x');
      },
      warn: () => undefined,
      error: () => undefined,
    };
    expect(() => redactingLogger(broken, redact).info({}, 'hello')).to.not.throw();
  });
});

describe('jsonLogger', () => {
  it('writes one JSON line per record with level, time and msg first, dropping records below its level', () => {
    const lines: string[] = [];
    const logger = jsonLogger({ level: 'info', write: (line) => lines.push(line), now: () => Date.UTC(2026, 0, 1) });
    logger.debug({ a: 1 }, 'hidden');
    logger.info({ a: 1, msg: 'not this', nested: { text: 'two\nlines' } }, 'shown');
    logger.error({ n: 2n }, 'bigint');
    expect(lines).to.deep.equal([
      '{"level":"info","time":"2026-01-01T00:00:00.000Z","msg":"shown","a":1,"nested":{"text":"two\\nlines"}}',
      '{"level":"error","time":"2026-01-01T00:00:00.000Z","msg":"bigint","n":"2"}',
    ]);
  });

  it('rejects an unknown level', () => {
    expect(() => jsonLogger({ level: 'loud' as never })).to.throw(
      RangeError,
      /level must be one of debug, info, warn, error/,
    );
  });
});
