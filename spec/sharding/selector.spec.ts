import { expect } from 'chai';
import fc from 'fast-check';
import {
  ShardSelectorError,
  fnv1a64,
  formatShardSelector,
  hashSpaceEnd,
  matchesShard,
  parseShardSelector,
  shardHash,
  splitHashSpace,
} from '../../src/sharding/index.js';

// Known answers computed with apimachinery v0.36.3's sharding.HashField (Go hash/fnv New64a, %016x).
const goHashes: readonly (readonly [string, string])[] = [
  ['', 'cbf29ce484222325'],
  ['a', 'af63dc4c8601ec8c'],
  ['abc', 'e71fa2190541574b'],
  ['test-uid-123', 'd0ba679834556c0b'],
  ['aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee', '93754b7248a00eb9'],
  ['6f1d1c3e-8b7a-4c3d-9e2f-0a1b2c3d4e5f', '928e304f79bcd166'],
  ['default', 'ebada5168620c5fe'],
  ['kube-system', 'df65c7bc1d82b35e'],
  ['ns-1', '4a82b7ba48e25cc0'],
  ['ns-2', '4a82baba48e261d9'],
  ['ünïcode', 'b1b0d40350a25beb'],
];

const uid = (s: string) => `shardRange(object.metadata.uid, ${s})`;
const zero = "'0x0000000000000000'";
const half = "'0x8000000000000000'";
const end = `'${hashSpaceEnd}'`;

function refusal(text: string): string {
  try {
    parseShardSelector(text);
  } catch (error) {
    expect(error).to.be.instanceOf(ShardSelectorError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${text}`);
}

describe('fnv1a64', () => {
  for (const [input, hash] of goHashes) {
    it(`hashes ${JSON.stringify(input)} to the digits apimachinery's HashField gives (${hash})`, () => {
      expect(fnv1a64(input)).to.equal(hash);
    });
  }

  it('matches a BigInt reference implementation on arbitrary strings', () => {
    const reference = (s: string): string => {
      let h = 0xcbf29ce484222325n;
      for (const b of new TextEncoder().encode(s)) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
      return h.toString(16).padStart(16, '0');
    };
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => fnv1a64(s) === reference(s)));
  });

  it('hashes metadata.uid by default and metadata.namespace on request, with the 0x prefix', () => {
    const obj = { metadata: { uid: 'test-uid-123', namespace: 'default' } };
    expect(shardHash(obj)).to.equal('0xd0ba679834556c0b');
    expect(shardHash(obj, 'object.metadata.namespace')).to.equal('0xebada5168620c5fe');
    expect(shardHash({ metadata: {} })).to.equal('0xcbf29ce484222325');
  });
});

describe('parseShardSelector', () => {
  it('reads one range and writes it back in the normalised form the server echoes', () => {
    const ranges = parseShardSelector(`  shardRange( object.metadata.uid ,${zero},${end} )  `);
    expect(ranges).to.deep.equal([
      { field: 'object.metadata.uid', start: '0x0000000000000000', end: '0x10000000000000000' },
    ]);
    expect(formatShardSelector(ranges)).to.equal(
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')",
    );
  });

  it('reads || chains with parentheses and double quotes, in the order written, duplicates kept', () => {
    const text = `(${uid(`${zero}, '0x4000000000000000'`)} || ${uid(`"0x4000000000000000", "0x8000000000000000"`)}) || ${uid(`${zero}, ${half}`)}`;
    expect(formatShardSelector(parseShardSelector(text))).to.equal(
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000') || " +
        "shardRange(object.metadata.uid, '0x4000000000000000', '0x8000000000000000') || " +
        "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
    );
  });

  it('reads ranges over metadata.namespace', () => {
    expect(parseShardSelector(`shardRange(object.metadata.namespace, ${zero}, ${half})`)[0]!.field).to.equal(
      'object.metadata.namespace',
    );
  });

  // Each message is kube-apiserver 1.36.3's (sharding.Parse) for the same input.
  const refusals: readonly (readonly [string, string])[] = [
    [
      uid(`'0x0', ${half}`),
      `hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)`,
    ],
    [
      uid(`${zero}, '0x8'`),
      `hexEnd must be a 0x-prefixed 16-digit hex value, got "0x8" (did you mean "0x0000000000000008"?)`,
    ],
    [uid(`${half}, ${zero}`), 'shard range start 0x8000000000000000 must be less than end 0x0000000000000000'],
    [uid(`${half}, ${half}`), 'shard range start 0x8000000000000000 must be less than end 0x8000000000000000'],
    [uid(`'0X0000000000000000', ${half}`), `hexStart must have '0x' prefix, got "0X0000000000000000"`],
    [uid(`'0x000000000000000A', ${half}`), 'hexStart: invalid hex character "A" in "0x000000000000000A"'],
    [
      uid(`'0x00000000000000000', ${half}`),
      `hexStart: 17-digit hex value must be '0x10000000000000000' (2^64), got "0x00000000000000000"`,
    ],
    [uid(`'0x000000000000000000', ${half}`), 'hexStart: hex value too long (18 chars, max 17): "000000000000000000"'],
    [uid(`'', ${half}`), `hexStart must have '0x' prefix, got ""`],
    [uid(`'0x', ${half}`), "hexStart: hex value is required after '0x'"],
    [uid(`0, ${half}`), 'hexStart must be a string literal, got int64'],
    [uid(`x, ${half}`), "hexStart must be a string literal (e.g. '0xff'), got expression kind 3"],
    [
      `shardRange(object.metadata.name, ${zero}, ${half})`,
      'unsupported field path "object.metadata.name"; supported: object.metadata.uid, object.metadata.namespace',
    ],
    [
      `shardRange(metadata.uid, ${zero}, ${half})`,
      'unsupported field path "metadata.uid"; supported: object.metadata.uid, object.metadata.namespace',
    ],
    [uid(zero), 'shardRange() requires exactly 3 arguments, got 2'],
    [
      `shardRange('object.metadata.uid', ${zero}, ${half})`,
      'shardRange() first argument: expected field path (e.g. object.metadata.uid), got expression kind 5',
    ],
    [
      `${uid(`${zero}, ${half}`)} && ${uid(`${half}, ${end}`)}`,
      'unsupported function "_&&_"; only shardRange() and || are allowed',
    ],
    [
      `${uid(`${zero}, ${half}`)} || shardRange(object.metadata.namespace, ${half}, ${end})`,
      'all shard ranges must use the same field, got "object.metadata.uid" and "object.metadata.namespace"',
    ],
    [`foo(object.metadata.uid, ${zero}, ${half})`, 'unsupported function "foo"; only shardRange() and || are allowed'],
    ['object.metadata.uid', 'unexpected expression kind 7; expected shardRange() call or || operator'],
    ['true', 'unexpected expression kind 5; expected shardRange() call or || operator'],
    ['   ', 'empty shard selector is not allowed; omit the parameter for unfiltered lists'],
  ];
  for (const [text, message] of refusals) {
    it(`refuses ${text} with the server's message`, () => {
      expect(refusal(text)).to.equal(message);
    });
  }

  it('refuses CEL syntax errors with the server prefix and a description', () => {
    expect(refusal(uid(`${zero}, ${half}`).slice(0, -1))).to.match(/^CEL parse error: Syntax error: /);
    expect(refusal(`${uid(`${zero}, ${half}`)} ||`)).to.match(/^CEL parse error: Syntax error: /);
    expect(refusal(`${uid(`${zero}, ${half}`)} ; x`)).to.match(/^CEL parse error: Syntax error: /);
  });

  it('round-trips every formatted selector of arbitrary ranges', () => {
    const bound = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });
    const range = fc.tuple(bound, bound).filter(([a, b]) => a !== b);
    const hex = (v: bigint) => `0x${v.toString(16).padStart(16, '0')}`;
    fc.assert(
      fc.property(fc.array(range, { minLength: 1, maxLength: 5 }), (pairs) => {
        const ranges = pairs.map((pair) => {
          const [lo, hi] = [...pair].sort((x, y) => (x < y ? -1 : 1));
          return { field: 'object.metadata.uid' as const, start: hex(lo!), end: hex(hi!) };
        });
        expect(parseShardSelector(formatShardSelector(ranges))).to.deep.equal(ranges);
      }),
    );
  });

  it('formatShardSelector refuses ranges the server would refuse', () => {
    expect(() => formatShardSelector([])).to.throw(ShardSelectorError, 'empty shard selector');
    expect(() =>
      formatShardSelector([{ field: 'object.metadata.uid', start: '0x0', end: '0x8000000000000000' }]),
    ).to.throw(ShardSelectorError, 'did you mean "0x0000000000000000"');
  });
});

describe('splitHashSpace', () => {
  it('cuts the space into equal contiguous ranges that end at 2^64', () => {
    expect(formatShardSelector(splitHashSpace(4))).to.equal(
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000') || " +
        "shardRange(object.metadata.uid, '0x4000000000000000', '0x8000000000000000') || " +
        "shardRange(object.metadata.uid, '0x8000000000000000', '0xc000000000000000') || " +
        "shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')",
    );
  });

  it('puts every uid in exactly one range, whatever the count', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 64 }), fc.uuid(), (count, id) => {
        const ranges = splitHashSpace(count);
        const obj = { metadata: { uid: id } };
        expect(ranges.filter((r) => matchesShard([r], obj))).to.have.length(1);
        expect(matchesShard(ranges, obj)).to.equal(true);
      }),
    );
  });

  it('matches everything with no ranges, like an empty selector', () => {
    expect(matchesShard([], { metadata: { uid: 'x' } })).to.equal(true);
  });

  it('refuses a count that is not an integer from 1 to 65536', () => {
    for (const bad of [0, -1, 1.5, 65537, Number.NaN])
      expect(() => splitHashSpace(bad)).to.throw(RangeError, 'shard range count must be an integer from 1 to 65536');
  });
});
