/**
 * Properties of patch generation: for random JSON documents and random Immer recipes, the JSON Patch built from
 * Immer's patches, applied to the base by the in-memory server's RFC 6902 implementation (a port of the one
 * kube-apiserver uses), gives exactly the recipe's result; and a result equal to the base sends nothing.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { current, isDraft } from 'immer';
import { recipeChanges, splitStatus, toJsonPatch } from '../../src/client/patch/index.js';
import { applyJsonPatch } from '../../src/testing/apiserver/patch/index.js';
import { expectBackslashKeys, parseJson } from '../../src/transport/index.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Keys that need JSON Pointer escaping, digits (array-index lookalikes) and the ordinary kind. */
const keyArb = fc.oneof(
  fc.constantFrom('a', 'b', 'status', 'metadata', 'spec', '0', '1', '~', '/', '~0', '~1', 'a/b', 'x~y', ''),
  fc.string({ maxLength: 4 }),
);
const jsonArb: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(fc.constant(null), fc.boolean(), fc.integer(), fc.string({ maxLength: 5 })),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(keyArb, tie('value'), { maxKeys: 4 }),
  ),
})).value;
const documentArb = fc.dictionary(keyArb, jsonArb, { maxKeys: 5 });

/** One change a recipe makes, at a location chosen by walking the draft with `steps`. */
type Action =
  | { readonly kind: 'set'; readonly steps: number[]; readonly key: string; readonly value: Json }
  | { readonly kind: 'setUndefined'; readonly steps: number[]; readonly key: string }
  | { readonly kind: 'delete'; readonly steps: number[] }
  | { readonly kind: 'push'; readonly steps: number[]; readonly value: Json }
  | {
      readonly kind: 'splice';
      readonly steps: number[];
      readonly start: number;
      readonly remove: number;
      readonly insert: Json[];
    }
  | { readonly kind: 'setIndex'; readonly steps: number[]; readonly index: number; readonly value: Json }
  | { readonly kind: 'nestedMap'; readonly steps: number[]; readonly keys: string[]; readonly value: Json }
  | { readonly kind: 'reassignSame'; readonly steps: number[] };

const stepsArb = fc.array(fc.nat(), { maxLength: 4 });
const actionArb: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), steps: stepsArb, key: keyArb, value: jsonArb }),
  fc.record({ kind: fc.constant('setUndefined' as const), steps: stepsArb, key: keyArb }),
  fc.record({ kind: fc.constant('delete' as const), steps: stepsArb }),
  fc.record({ kind: fc.constant('push' as const), steps: stepsArb, value: jsonArb }),
  fc.record({
    kind: fc.constant('splice' as const),
    steps: stepsArb,
    start: fc.nat(5),
    remove: fc.nat(3),
    insert: fc.array(jsonArb, { maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant('setIndex' as const), steps: stepsArb, index: fc.nat(5), value: jsonArb }),
  fc.record({
    kind: fc.constant('nestedMap' as const),
    steps: stepsArb,
    keys: fc.array(keyArb, { minLength: 1, maxLength: 3 }),
    value: jsonArb,
  }),
  fc.record({ kind: fc.constant('reassignSame' as const), steps: stepsArb }),
);

type Container = Record<string, unknown> | unknown[];
const isContainer = (value: unknown): value is Container => typeof value === 'object' && value !== null;

/** Walks from `root` following `steps` (modulo the keys or length at each level) to a container and its parent. */
function locate(root: Container, steps: number[]): { node: Container; parent?: Container; key?: string | number } {
  let node: Container = root;
  let parent: Container | undefined;
  let key: string | number | undefined;
  for (const step of steps) {
    const keys: Array<string | number> = Array.isArray(node) ? node.map((_, i) => i) : Object.keys(node);
    if (keys.length === 0) break;
    const next = keys[step % keys.length]!;
    const child = (node as Record<string | number, unknown>)[next];
    if (!isContainer(child)) break;
    parent = node;
    key = next;
    node = child;
  }
  return { node, parent, key };
}

/** A deep copy of a value that may be (or hold) an Immer draft. */
const snapshot = <V>(value: V): V => structuredClone(isDraft(value) ? (current(value as object) as V) : value);

function perform(root: Container, action: Action): void {
  const { node, parent, key } = locate(root, action.steps);
  const clone = <V>(value: V): V => structuredClone(value);
  switch (action.kind) {
    case 'set':
      if (Array.isArray(node)) node.push(clone(action.value));
      else node[action.key] = clone(action.value);
      return;
    case 'setUndefined':
      if (!Array.isArray(node)) node[action.key] = undefined;
      return;
    case 'delete':
      if (parent !== undefined && key !== undefined) {
        if (Array.isArray(parent)) parent.splice(key as number, 1);
        else delete parent[key as string];
      }
      return;
    case 'push':
      if (Array.isArray(node)) node.push(clone(action.value));
      return;
    case 'splice':
      if (Array.isArray(node)) node.splice(action.start % (node.length + 1), action.remove, ...clone(action.insert));
      return;
    case 'setIndex':
      if (Array.isArray(node) && node.length > 0) node[action.index % node.length] = clone(action.value);
      return;
    case 'nestedMap': {
      if (Array.isArray(node)) return;
      let target: Record<string, unknown> = node;
      for (const k of action.keys.slice(0, -1)) {
        const existing = target[k];
        target[k] = isContainer(existing) && !Array.isArray(existing) ? existing : {};
        target = target[k] as Record<string, unknown>;
      }
      target[action.keys[action.keys.length - 1]!] = clone(action.value);
      return;
    }
    case 'reassignSame':
      if (parent !== undefined && key !== undefined) (parent as Record<string | number, unknown>)[key] = snapshot(node);
      return;
  }
}

/**
 * The recipe's result as the server would store it: JSON. Read back with parseJson, because the generated keys
 * (backslashes, escapes) are what V8's JSON.parse misreads (nodejs/node#63785), which made this property flaky.
 */
const asJson = (value: unknown): unknown => parseJson(JSON.stringify(value));
/** A patch as the transport sends it: serialized as JSON. */
const wire = asJson;

describe('client: patches from Immer recipes (properties)', () => {
  before(() => expectBackslashKeys());

  it('applies to the base to give exactly the recipe result, for recipes that change their draft', () => {
    fc.assert(
      fc.property(documentArb, fc.array(actionArb, { maxLength: 6 }), (base, actions) => {
        const frozen = structuredClone(base);
        const { result, operations } = recipeChanges(base, (draft) => {
          for (const action of actions) perform(draft as Container, action);
        });
        expect(base, 'the base is untouched').to.deep.equal(frozen);
        const patched = applyJsonPatch(base, wire(toJsonPatch(operations)));
        expect(patched).to.deep.equal(asJson(result));
      }),
      { numRuns: 3000 },
    );
  });

  it('applies to the base to give exactly the recipe result, for recipes that return a new object', () => {
    fc.assert(
      fc.property(documentArb, fc.array(actionArb, { maxLength: 6 }), (base, actions) => {
        const { result, operations } = recipeChanges(base, () => {
          const next = structuredClone(base);
          for (const action of actions) perform(next, action);
          return next;
        });
        expect(applyJsonPatch(base, wire(toJsonPatch(operations)))).to.deep.equal(asJson(result));
      }),
      { numRuns: 2000 },
    );
  });

  it('sends nothing when the result equals the base, whatever the recipe touched', () => {
    fc.assert(
      fc.property(documentArb, fc.array(actionArb, { maxLength: 4 }), (base, actions) => {
        // Changes then their undoing: the draft is modified, the result is equal.
        const { result, operations } = recipeChanges(base, (draft) => {
          const before = snapshot(draft as object) as Record<string, unknown>;
          for (const action of actions) perform(draft as Container, action);
          for (const key of Object.keys(draft)) delete (draft as Record<string, unknown>)[key];
          Object.assign(draft, before);
        });
        expect(operations).to.deep.equal([]);
        expect(result).to.equal(base);
      }),
      { numRuns: 1000 },
    );
  });

  it('routes exactly the operations under status to the status part, keeping their order', () => {
    fc.assert(
      fc.property(documentArb, fc.array(actionArb, { maxLength: 6 }), (base, actions) => {
        const { operations } = recipeChanges(base, (draft) => {
          for (const action of actions) perform(draft as Container, action);
        });
        const { main, status } = splitStatus(operations);
        expect(status.every((op) => op.path[0] === 'status')).to.equal(true);
        expect(main.every((op) => op.path[0] !== 'status')).to.equal(true);
        expect([...main, ...status]).to.have.deep.members([...operations]);
        // Each part applies alone: status changes never depend on the rest of the document's changes.
        const both = applyJsonPatch(applyJsonPatch(base, wire(toJsonPatch(main))), wire(toJsonPatch(status)));
        expect(both).to.deep.equal(applyJsonPatch(base, wire(toJsonPatch(operations))));
      }),
      { numRuns: 1000 },
    );
  });
});
