import { expect } from 'chai';
import fc from 'fast-check';
import type { InformerEvent } from '../../../src/informer/index.js';
import { and, not, or, type EventTest } from '../../../src/controller/predicates/index.js';
import { added, deleted, obj, resync, updated } from './fixtures.js';

const event: fc.Arbitrary<InformerEvent> = fc
  .record({
    kind: fc.constantFrom('added', 'updated', 'deleted', 'resync'),
    name: fc.constantFrom('a', 'b', 'c'),
    generation: fc.integer({ min: 1, max: 3 }),
    stateUnknown: fc.boolean(),
  })
  .map(({ kind, name, generation, stateUnknown }) => {
    const o = obj(name, { generation });
    if (kind === 'added') return added(o);
    if (kind === 'updated') return updated(obj(name, { generation: 1 }), o);
    if (kind === 'deleted') return deleted(o, stateUnknown);
    return resync(o);
  });

/** A random, deterministic test: the same event (by value) always gets the same answer. */
const test: fc.Arbitrary<EventTest> = fc
  .func(fc.boolean())
  .map(
    (f) => (e: InformerEvent) =>
      f(e.type, e.key, e.object.metadata?.generation, e.type === 'deleted' && e.stateUnknown),
  );

const always: EventTest = () => true;
const never: EventTest = () => false;
const runs = { numRuns: 200 };

describe('predicate combinator laws', () => {
  it('and() passes everything and or() passes nothing', () => {
    fc.assert(
      fc.property(event, (e) => and().test(e) === true && or().test(e) === false),
      runs,
    );
  });

  it('and and or have true and false as identities', () => {
    fc.assert(
      fc.property(
        test,
        event,
        (p, e) => and(p, always).test(e) === p(e) && or(p, never).test(e) === p(e) && and(p).test(e) === p(e),
      ),
      runs,
    );
  });

  it('false annihilates and, true annihilates or', () => {
    fc.assert(
      fc.property(test, event, (p, e) => and(p, never).test(e) === false && or(p, always).test(e) === true),
      runs,
    );
  });

  it('obeys De Morgan for two and three predicates', () => {
    fc.assert(
      fc.property(
        test,
        test,
        test,
        event,
        (p, q, r, e) =>
          not(and(p, q)).test(e) === or(not(p), not(q)).test(e) &&
          not(or(p, q, r)).test(e) === and(not(p), not(q), not(r)).test(e),
      ),
      runs,
    );
  });

  it('undoes a double negation', () => {
    fc.assert(
      fc.property(test, event, (p, e) => not(not(p)).test(e) === p(e)),
      runs,
    );
  });

  it('is commutative and associative', () => {
    fc.assert(
      fc.property(
        test,
        test,
        test,
        event,
        (p, q, r, e) =>
          and(p, q).test(e) === and(q, p).test(e) &&
          or(p, q).test(e) === or(q, p).test(e) &&
          and(and(p, q), r).test(e) === and(p, and(q, r)).test(e) &&
          or(or(p, q), r).test(e) === or(p, or(q, r)).test(e),
      ),
      runs,
    );
  });

  it('short-circuits: and stops at the first false, or at the first true', () => {
    const calls: string[] = [];
    const spy =
      (name: string, answer: boolean): EventTest =>
      () => {
        calls.push(name);
        return answer;
      };
    const e = added(obj('a'));
    and(spy('p', false), spy('q', true)).test(e);
    or(spy('r', true), spy('s', false)).test(e);
    expect(calls).to.deep.equal(['p', 'r']);
  });
});
