import { expect } from 'chai';
import fc from 'fast-check';
import { cloneJson, deepFreeze } from '../../../src/testing/apiserver/machinery/object.js';
import { frozenJson, itemsWithoutTypeMeta, toJson } from '../../../src/testing/apiserver/representation/serialize.js';

/** Freezes a pseudo-random selection of subtrees, so shells and cached parts mix as they do in responses. */
function freezeSome(value: unknown, pick: () => boolean): unknown {
  if (typeof value !== 'object' || value === null) return value;
  for (const child of Object.values(value)) freezeSome(child, pick);
  if (pick()) deepFreeze(value);
  return value;
}

describe('in-memory API server: response serialization', () => {
  it('writes exactly what JSON.stringify writes, whatever parts are frozen', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 2 ** 31 }), (value, seed) => {
        const expected = JSON.stringify(value);
        let x = seed;
        const copy = freezeSome(cloneJson(value), () => ((x = (x * 1103515245 + 12345) % 2 ** 31) & 4) !== 0);
        expect(toJson(copy)).to.equal(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('skips undefined and functions in objects and writes null for them in arrays', () => {
    const body = { a: undefined, b: () => 1, c: [undefined, () => 1, 2], d: new Date(0) };
    expect(toJson(body)).to.equal(JSON.stringify(body));
  });

  it('writes exactly what JSON.stringify writes for stored objects whose managedFields share FieldsV1 objects', () => {
    const fieldsV1 = fc.jsonValue({ maxDepth: 3 }).map((v) => ({ 'f:x': v }));
    const entry = fc.record(
      { manager: fc.string(), fieldsV1, time: fc.option(fc.string()), extra: fc.jsonValue({ maxDepth: 1 }) },
      { requiredKeys: [] },
    );
    const stored = fc.record(
      {
        kind: fc.string(),
        metadata: fc.record(
          {
            name: fc.string(),
            managedFields: fc.array(fc.oneof(entry, fc.jsonValue({ maxDepth: 1 })), { maxLength: 3 }),
            labels: fc.dictionary(fc.string(), fc.string()),
          },
          { requiredKeys: [] },
        ),
        spec: fc.jsonValue({ maxDepth: 2 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(stored, fc.boolean(), (value, share) => {
        const expected = JSON.stringify(value);
        const copy = cloneJson(value) as { metadata?: { managedFields?: unknown } };
        if (share && Array.isArray(copy.metadata?.managedFields)) {
          // As the field manager stores them: each FieldsV1 frozen (and here shared by two objects) before the object.
          for (const item of copy.metadata.managedFields)
            if (typeof item === 'object' && item !== null && 'fieldsV1' in item) deepFreeze(item.fieldsV1);
        }
        const twin = share ? deepFreeze({ ...copy }) : undefined;
        expect(frozenJson(deepFreeze(copy))).to.equal(expected);
        if (twin !== undefined) expect(frozenJson(twin)).to.equal(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('writes marked list items as JSON.stringify would write them without kind and apiVersion, stored or not', () => {
    const typeMeta = fc.record({ kind: fc.string(), apiVersion: fc.string() }, { requiredKeys: [] });
    const entry = fc.record({
      manager: fc.string(),
      fieldsV1: fc.jsonValue({ maxDepth: 2 }).map((v) => ({ 'f:x': v })),
    });
    const item = fc
      .tuple(
        typeMeta,
        fc.boolean(),
        fc.record(
          {
            metadata: fc.record(
              { name: fc.string(), managedFields: fc.array(entry, { maxLength: 2 }) },
              { requiredKeys: [] },
            ),
            spec: fc.jsonValue({ maxDepth: 2 }),
            kind: fc.string(),
          },
          { requiredKeys: [] },
        ),
      )
      .map(([meta, first, rest]) => (first ? { ...meta, ...rest } : { ...rest, ...meta }));
    fc.assert(
      fc.property(fc.array(fc.tuple(item, fc.boolean()), { maxLength: 4 }), (items) => {
        const expected = JSON.stringify(
          items.map(([value]) => {
            const { kind: _kind, apiVersion: _apiVersion, ...rest } = value as Record<string, unknown>;
            return rest;
          }),
        );
        const marked = itemsWithoutTypeMeta(
          items.map(([value, frozen]) => {
            const copy = cloneJson(value) as { metadata?: { managedFields?: { fieldsV1: unknown }[] } };
            for (const e of copy.metadata?.managedFields ?? []) deepFreeze(e.fieldsV1 as object);
            return frozen ? deepFreeze(copy) : copy;
          }),
        );
        expect(toJson(marked)).to.equal(expected);
        expect(toJson({ items: marked })).to.equal(`{"items":${expected}}`);
      }),
      { numRuns: 300 },
    );
  });

  it('serializes a frozen object once and reuses the text', () => {
    const obj = deepFreeze({ metadata: { name: 'x' } });
    const first = frozenJson(obj);
    expect(toJson({ items: [obj] })).to.equal(`{"items":[${first}]}`);
    expect(frozenJson(obj)).to.equal(first);
  });
});

describe('in-memory API server: cloneJson', () => {
  it('copies JSON values deeply, sharing nothing with the input', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = cloneJson(value);
        expect(copy).to.deep.equal(value);
        if (typeof value === 'object' && value !== null) expect(copy).to.not.equal(value);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a "__proto__" key as data instead of changing the prototype', () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    const copy = cloneJson(parsed);
    expect(Object.getPrototypeOf(copy)).to.equal(Object.prototype);
    expect(Object.keys(copy)).to.deep.equal(['__proto__', 'a']);
    expect(JSON.stringify(copy)).to.equal(JSON.stringify(parsed));
  });

  it('stores Date values as the strings JSON would carry', () => {
    expect(cloneJson({ at: new Date(Date.UTC(2026, 0, 2)) })).to.deep.equal({ at: '2026-01-02T00:00:00.000Z' });
  });
});
