/**
 * parseJson: JSON.parse without V8's misreading of escaped property keys after a key holding a backslash exists
 * (nodejs/node#63785). The bug depends on what the process has parsed before, so the scenarios that need a clean
 * V8 run in a child process of their own.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import fc from 'fast-check';
import { expectBackslashKeys, parseJson } from '../../src/transport/index.js';

const transport = fileURLToPath(new URL('../../src/transport/index.ts', import.meta.url));

/** Runs `body` (with `parseJson`, `expectBackslashKeys` and `keysOf` in scope) in a fresh Node, and returns its JSON output. */
function inFreshProcess(body: string): unknown {
  const script = `
    const { parseJson, expectBackslashKeys } = await import(${JSON.stringify(transport)});
    const keysOf = (value) => Object.keys(value);
    const out = await (async () => { ${body} })();
    process.stdout.write(JSON.stringify(out));
  `;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 25_000,
  });
  expect(run.status, run.stderr).to.equal(0);
  return JSON.parse(run.stdout) as unknown;
}

describe('transport: parseJson', () => {
  it('reads an escaped key as written after a text with a backslash key was read', function () {
    this.timeout(30_000);
    const keys = inFreshProcess(`
      parseJson('{"h":[],"\\\\\\\\":0}');
      return [
        keysOf(parseJson('{"h":1,"\\\\"":2}')),
        keysOf(parseJson('{"h":1,"\\\\n":2}')),
        keysOf(parseJson('{"h":1,"\\\\/":2}')),
      ];
    `);
    expect(keys).to.deep.equal([
      ['h', '"'],
      ['h', '\n'],
      ['h', '/'],
    ]);
  });

  for (const spelling of ['\\u005c', '\\u005C']) {
    it(`reads an escaped key as written after a key spelt ${spelling} was read`, function () {
      this.timeout(30_000);
      const keys = inFreshProcess(`
        parseJson('{"h":[],"${spelling.replace(/\\/g, '\\\\')}":0}');
        return keysOf(parseJson('{"h":1,"\\\\"":2}'));
      `);
      expect(keys).to.deep.equal(['h', '"']);
    });
  }

  it('reads escaped keys as written after expectBackslashKeys, when code outside it made the backslash key', function () {
    this.timeout(30_000);
    const keys = inFreshProcess(`
      expectBackslashKeys();
      JSON.parse('{"h":[],"a\\\\\\\\":0}');
      return keysOf(parseJson('{"h":1,"a\\\\"":2}'));
    `);
    expect(keys).to.deep.equal(['h', 'a"']);
  });

  it('gives back every document with keys full of escapes and backslashes, whatever was parsed before, as a property', () => {
    expectBackslashKeys();
    const key = fc.oneof(
      fc.constantFrom('h', 'a', '\\', '"', 'a\\', 'a"', '\n', '/', '\\"', 'k:{"name":"x"}'),
      fc.string({ maxLength: 3 }),
    );
    const document = fc.dictionary(key, fc.oneof(fc.integer(), fc.dictionary(key, fc.boolean(), { maxKeys: 3 })), {
      maxKeys: 4,
    });
    fc.assert(
      fc.property(fc.array(document, { minLength: 1, maxLength: 6 }), (documents) => {
        for (const doc of documents) {
          // Build the same shapes through V8's JSON.parse too, as other code in the process would.
          JSON.parse(JSON.stringify(doc));
          expect(parseJson(JSON.stringify(doc))).to.deep.equal(doc);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('reads any JSON value exactly on the path that parses again, as a property', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        // The escaped backslash in the key sends the text down the path that parses it a second time.
        const text = JSON.stringify({ 'C:\\': value });
        expect(JSON.stringify(parseJson(text))).to.equal(text);
      }),
      { numRuns: 300 },
    );
  });

  it("throws JSON.parse's own SyntaxError for a text that is not one JSON value", () => {
    expectBackslashKeys();
    for (const text of ['1,2', '{"a\\"":1', '"\\"', '', '{"a":1}]', '[1,"\\n"']) {
      const expected = (() => {
        try {
          JSON.parse(text);
        } catch (error) {
          return (error as Error).message;
        }
        throw new Error(`${text} parses`);
      })();
      expect(() => parseJson(text), text).to.throw(SyntaxError, expected);
    }
  });

  it('reads every other JSON value as JSON.parse does', () => {
    for (const text of [
      '1',
      '"a\\\\b"',
      '[{"a":"\\u005c"},null,true]',
      ' {"x":{"y":[1.5e3]}} ',
      '{"__proto__":{"a":1}}',
    ]) {
      expect(parseJson(text), text).to.deep.equal(JSON.parse(text));
    }
  });
});
