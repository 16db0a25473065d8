import { expect } from 'chai';
import fc from 'fast-check';
import { SortedKeys } from '../../../src/testing/apiserver/storage/sorted-keys.js';

/** Keys from a small alphabet, so inserts collide with existing keys and deletes hit present ones. */
const key = fc.string({ unit: fc.constantFrom('a', 'b', 'c', '/', '0'), maxLength: 4 });

describe('in-memory API server: sorted key index', () => {
  it('matches a sorted array model after any inserts and deletes', () => {
    const op = fc.tuple(fc.boolean(), key);
    fc.assert(
      fc.property(
        fc.array(key, { maxLength: 60 }),
        fc.array(op, { maxLength: 400 }),
        key,
        fc.option(key, { nil: undefined }),
        fc.integer({ min: 2, max: 16 }),
        (initial, ops, from, to, chunk) => {
          const keys = SortedKeys.of(initial, chunk);
          const model = new Set(initial);
          for (const [add, k] of ops) {
            if (add) {
              keys.insert(k);
              model.add(k);
            } else {
              keys.delete(k);
              model.delete(k);
            }
          }
          const sorted = [...model].sort();
          expect(keys.size).to.equal(sorted.length);
          expect([...keys.range('', undefined)]).to.deep.equal(sorted);
          expect([...keys.range(from, to)]).to.deep.equal(
            sorted.filter((k) => k >= from && (to === undefined || k < to)),
          );
          expect(keys.rank(from)).to.equal(sorted.filter((k) => k < from).length);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('splits large chunks and stays ordered over thousands of keys', () => {
    const keys = new SortedKeys();
    const all = Array.from({ length: 5000 }, (_, i) => `ns/${String((i * 7919) % 5000).padStart(5, '0')}`);
    for (const k of all) keys.insert(k);
    expect([...keys.range('', undefined)]).to.deep.equal([...all].sort());
    expect(keys.rank('ns/02500')).to.equal(2500);
    for (const k of all.slice(0, 4990)) keys.delete(k);
    expect(keys.size).to.equal(10);
    expect([...keys.range('ns/', 'ns0')]).to.deep.equal(all.slice(4990).sort());
  });
});
