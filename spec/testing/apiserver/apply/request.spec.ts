import { expect } from 'chai';
import fc from 'fast-check';
import { parse as parseYaml } from 'yaml';
import { parseApplyBody } from '../../../../src/testing/apiserver/apply/index.js';
import { expectBackslashKeys, parseJson } from '../../../../src/transport/index.js';

/** What the YAML parser alone makes of a body (the reference the JSON shortcut must agree with). */
function throughYaml(raw: string): unknown {
  try {
    const parsed: unknown = parseYaml(raw, { version: '1.1', uniqueKeys: true, maxAliasCount: 100 });
    return { value: parsed === null || parsed === undefined ? {} : parseJson(JSON.stringify(parsed)) };
  } catch {
    return 'refused';
  }
}

function throughServer(raw: string): unknown {
  try {
    return { value: parseApplyBody(raw) };
  } catch {
    return 'refused';
  }
}

const whitespace = fc.constantFrom('', ' ', '\n', '\t', '\r\n');
const jsonObjectText = fc
  .tuple(
    fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 5 }),
    fc.nat({ max: 3 }),
    whitespace,
    fc.option(fc.string({ maxLength: 3 })),
  )
  .map(([object, indent, pad, repeated]) => {
    const text = JSON.stringify(object, null, indent === 0 ? undefined : indent);
    const body =
      repeated === null
        ? text
        : `{${JSON.stringify(repeated)}:1,${JSON.stringify(repeated)}:2${text === '{}' ? '' : ','}${text.slice(1)}`;
    return `${pad}${body}${pad}`;
  });

describe('apply bodies (application/apply-patch+yaml)', () => {
  // The YAML parser writes generated keys (backslashes among them) outside parseJson.
  before(() => expectBackslashKeys());

  it('reads a JSON body exactly as the YAML parser reads it, duplicate keys refused included', () => {
    fc.assert(
      fc.property(jsonObjectText, (raw) => {
        const server = throughServer(raw);
        expect(server).to.deep.equal(throughYaml(raw));
        if (typeof server === 'object')
          expect(Object.getPrototypeOf((server as { value: object }).value)).to.equal(Object.prototype);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a key repeated in a nested JSON object, as YAML does', () => {
    expect(() => parseApplyBody('{"metadata":{"name":"a","name":"b"}}')).to.throw(/Map keys must be unique/);
  });
});
