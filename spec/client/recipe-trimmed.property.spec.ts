/**
 * Properties of patch generation on trimmed bases (defect 6 of issue 26): an informer `transform` removed keys from
 * the object a recipe runs on, and the patch goes to the server's untrimmed object. Whatever the recipe, and
 * whichever way it writes (changing its draft in place, or re-assigning parts rebuilt by spreading), the server
 * must end where the same recipe run on the untrimmed object ends: the fields the recipe did not touch as they
 * were, and the ones it did as it made them.
 *
 * `mutate`'s answer to a failed guard (a map or list the recipe creates where the trimmed base had none, but the
 * server has one) is modelled exactly as `mutate` does it: run the recipe again on the server's object.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { recipeChanges, toJsonPatch } from '../../src/client/patch/index.js';
import { applyJsonPatch } from '../../src/testing/apiserver/patch/index.js';
import { PatchError } from '../../src/testing/apiserver/patch/errors.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonMap = { [key: string]: Json };

/** The keys of maps; a transform drops some of them at every depth. `name` only ever identifies list items. */
const KEYS = ['a', 'b', 'c', 'd'] as const;
const NAMES = ['n1', 'n2', 'n3', 'n4', 'n5'] as const;
const keyArb = fc.constantFrom(...KEYS);
const scalarArb: fc.Arbitrary<Json> = fc.oneof(
  fc.integer({ min: 0, max: 9 }),
  fc.constantFrom('x', 'y'),
  fc.boolean(),
  fc.constant(null),
);

const valueArb: fc.Arbitrary<Json> = fc.letrec<{ value: Json; map: JsonMap }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalarArb,
    tie('map'),
    // A keyed list (containers, env, conditions): items with unique names.
    fc
      .uniqueArray(fc.tuple(fc.constantFrom(...NAMES), tie('map')), { selector: ([name]) => name, maxLength: 4 })
      .map((items) => items.map(([name, fields]): Json => ({ ...fields, name }))),
    fc.array(scalarArb, { maxLength: 4 }),
    // A keyless list of objects (tolerations).
    fc.array(tie('map'), { maxLength: 3 }),
  ),
  map: fc.dictionary(keyArb, tie('value'), { maxKeys: 4 }),
})).value;
const documentArb = fc
  .dictionary(keyArb, valueArb, { maxKeys: 4 })
  .map((doc): JsonMap => ({ ...doc, metadata: { name: 'o', resourceVersion: '7' } }));

/** One change, at a path of map keys; list changes name items by `name` (keyed lists) or index (keyless ones). */
type Action =
  | { readonly kind: 'set'; readonly path: string[]; readonly value: Json }
  | { readonly kind: 'delete'; readonly path: string[] }
  | { readonly kind: 'push'; readonly path: string[]; readonly value: Json }
  | { readonly kind: 'removeItem'; readonly path: string[]; readonly name: string }
  | {
      readonly kind: 'setInItem';
      readonly path: string[];
      readonly item: string | number;
      readonly key: string;
      readonly value: Json;
    }
  | { readonly kind: 'deleteInItem'; readonly path: string[]; readonly item: string; readonly key: string }
  | { readonly kind: 'reverse'; readonly path: string[] };
type Styled = Action & { readonly style: 'draft' | 'spread' };

const pathArb = fc.array(keyArb, { minLength: 1, maxLength: 3 });
const itemArb = fc
  .tuple(fc.constantFrom(...NAMES), fc.dictionary(keyArb, scalarArb, { maxKeys: 2 }))
  .map(([name, fields]): Json => ({ ...fields, name }));
const actionArb: fc.Arbitrary<Styled> = fc
  .tuple(
    fc.oneof(
      fc.record({ kind: fc.constant('set' as const), path: pathArb, value: valueArb }),
      fc.record({ kind: fc.constant('delete' as const), path: pathArb }),
      fc.record({ kind: fc.constant('push' as const), path: pathArb, value: fc.oneof(scalarArb, itemArb) }),
      fc.record({ kind: fc.constant('removeItem' as const), path: pathArb, name: fc.constantFrom(...NAMES) }),
      fc.record({
        kind: fc.constant('setInItem' as const),
        path: pathArb,
        item: fc.oneof(fc.constantFrom(...NAMES), fc.nat(3)),
        key: keyArb,
        value: valueArb,
      }),
      fc.record({
        kind: fc.constant('deleteInItem' as const),
        path: pathArb,
        item: fc.constantFrom(...NAMES),
        key: keyArb,
      }),
      fc.record({ kind: fc.constant('reverse' as const), path: pathArb }),
    ),
    fc.constantFrom('draft' as const, 'spread' as const),
  )
  .map(([action, style]) => ({ ...action, style }));

const isMap = (value: unknown): value is JsonMap =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isKeyedList = (value: unknown): value is JsonMap[] =>
  Array.isArray(value) && value.every((item) => isMap(item) && typeof item.name === 'string');

/** The informer transform: drops the `hidden` keys from every map at every depth (never `name`, never list items). */
function trim(value: Json, hidden: ReadonlySet<string>): Json {
  if (Array.isArray(value)) return value.map((item) => trim(item, hidden));
  if (!isMap(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !hidden.has(key))
      .map(([key, v]) => [key, trim(v, hidden)]),
  );
}

/** The map at `path`, built (draft style) or undefined when a step is not a map. */
function walk(root: JsonMap, path: readonly string[], create: boolean): JsonMap | undefined {
  let node = root;
  for (const key of path) {
    if (!isMap(node[key])) {
      if (!create) return undefined;
      node[key] = {};
    }
    node = node[key] as JsonMap;
  }
  return node;
}

/** Spread style: re-assigns every map along `path`, rebuilt by spreading, with `change` applied to the last. */
function rebuild(
  root: JsonMap,
  path: readonly string[],
  change: (map: JsonMap) => JsonMap | undefined,
  create: boolean,
): void {
  const step = (node: JsonMap, depth: number): JsonMap | undefined => {
    if (depth === path.length) return change(node);
    const key = path[depth]!;
    const child = node[key];
    if (!isMap(child) && !create) return undefined;
    const rebuilt = step({ ...(isMap(child) ? child : {}) }, depth + 1);
    return rebuilt === undefined ? undefined : { ...node, [key]: rebuilt };
  };
  const result = step(root, 0);
  if (result !== undefined) for (const key of Object.keys(result)) root[key] = result[key]!;
}

/** A list at `path` through maps, changed by `change` in place (draft) or re-assigned as its result (spread). */
function changeList(
  root: JsonMap,
  action: Styled,
  inPlace: (list: Json[]) => void,
  rebuilt: (list: Json[]) => Json[],
): void {
  const parent = walk(root, action.path.slice(0, -1), false);
  const key = action.path[action.path.length - 1]!;
  const list = parent?.[key];
  if (!Array.isArray(list)) return;
  if (action.style === 'draft') inPlace(list);
  else parent![key] = rebuilt(list);
}

const indexOfItem = (list: Json[], item: string | number): number =>
  typeof item === 'number'
    ? isKeyedList(list) || item >= list.length || !isMap(list[item])
      ? -1
      : item
    : isKeyedList(list)
      ? list.findIndex((x) => (x as JsonMap).name === item)
      : -1;

function perform(root: JsonMap, action: Styled): void {
  const copy = <V>(value: V): V => structuredClone(value);
  const last = action.path[action.path.length - 1]!;
  const parentPath = action.path.slice(0, -1);
  switch (action.kind) {
    case 'set':
      if (action.style === 'draft') walk(root, parentPath, true)![last] = copy(action.value);
      else rebuild(root, parentPath, (map) => ({ ...map, [last]: copy(action.value) }), true);
      return;
    case 'delete':
      if (action.style === 'draft') delete walk(root, parentPath, false)?.[last];
      else
        rebuild(
          root,
          parentPath,
          (map) =>
            Object.hasOwn(map, last) ? Object.fromEntries(Object.entries(map).filter(([k]) => k !== last)) : undefined,
          false,
        );
      return;
    case 'push':
      return changeList(
        root,
        action,
        (list) => {
          if (canPush(list, action.value)) list.push(copy(action.value));
        },
        (list) => (canPush(list, action.value) ? [...list, copy(action.value)] : list),
      );
    case 'removeItem':
      return changeList(
        root,
        action,
        (list) => {
          const at = indexOfItem(list, action.name);
          if (at !== -1) list.splice(at, 1);
        },
        (list) =>
          indexOfItem(list, action.name) === -1 ? list : list.filter((x) => (x as JsonMap).name !== action.name),
      );
    case 'setInItem':
      return changeList(
        root,
        action,
        (list) => {
          const at = indexOfItem(list, action.item);
          if (at !== -1) (list[at] as JsonMap)[action.key] = copy(action.value);
        },
        (list) => {
          const at = indexOfItem(list, action.item);
          return at === -1
            ? list
            : list.map((x, i) => (i === at ? { ...(x as JsonMap), [action.key]: copy(action.value) } : x));
        },
      );
    case 'deleteInItem':
      return changeList(
        root,
        action,
        (list) => {
          const at = indexOfItem(list, action.item);
          if (at !== -1) delete (list[at] as JsonMap)[action.key];
        },
        (list) => {
          const at = indexOfItem(list, action.item);
          if (at === -1) return list;
          return list.map((x, i) =>
            i === at ? Object.fromEntries(Object.entries(x as JsonMap).filter(([k]) => k !== action.key)) : x,
          );
        },
      );
    case 'reverse':
      // Keyless lists of objects are only changed in place by index (see the caveat of diffJson).
      return changeList(
        root,
        action,
        (list) => {
          if (!isKeylessObjects(list)) list.reverse();
        },
        (list) => (isKeylessObjects(list) ? list : [...list].reverse()),
      );
  }
}

const isKeylessObjects = (list: Json[]): boolean => list.some(isMap) && !isKeyedList(list);
/** Scalars into scalar lists, and named items with a name not yet taken into keyed (or empty) lists. */
function canPush(list: Json[], value: Json): boolean {
  if (!isMap(value)) return list.every((item) => !isMap(item) && !Array.isArray(item));
  return isKeyedList(list) && !list.some((item) => item.name === value.name);
}

/**
 * Whether `action` is one a recipe can do on the trimmed base as on the untrimmed one: it removes nothing (a key,
 * an item) and changes no list through a path the transform hides. What the base does not show cannot be removed.
 */
function seesItsTarget(action: Action, hidden: ReadonlySet<string>): boolean {
  if (action.kind === 'set') return true;
  if (action.path.some((key) => hidden.has(key))) return false;
  return action.kind !== 'deleteInItem' || !hidden.has(action.key);
}

/** JSON as the server stores it. */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/**
 * Where the server must end when the patch applies: the untrimmed `server` value with what the recipe changed
 * between `seen` (the trimmed base) and `made` (its result) and nothing else, as controller-runtime's `MergeFrom`
 * merges: maps key by key (a key the base never showed is kept, one it showed and the result lacks is removed),
 * items of keyed lists by name, items of keyless lists by position when the list kept its length; anything else
 * as the recipe made it. `guard` is whether the recipe created a map or list where the base showed none but the
 * server has a member: then the patch must fail its guard instead.
 */
function merge(server: Json, seen: Json, made: Json): { value: Json; guard: boolean } {
  if (isMap(made) && isMap(seen) && isMap(server)) {
    const value: JsonMap = {};
    let guard = false;
    for (const key of Object.keys(server))
      if (!Object.hasOwn(seen, key) && !Object.hasOwn(made, key)) value[key] = server[key]!;
    for (const key of Object.keys(made)) {
      if (Object.hasOwn(seen, key) && Object.hasOwn(server, key)) {
        const merged = merge(server[key]!, seen[key]!, made[key]!);
        value[key] = merged.value;
        guard ||= merged.guard;
      } else {
        value[key] = made[key]!;
        // A guard tests for `null`, which a member holding null passes too: it has nothing to lose.
        guard ||=
          Object.hasOwn(server, key) && server[key] !== null && typeof made[key] === 'object' && made[key] !== null;
      }
    }
    return { value, guard };
  }
  if (Array.isArray(made) && Array.isArray(seen) && Array.isArray(server)) {
    const pairs =
      isKeyedList(made) && isKeyedList(seen) && isKeyedList(server)
        ? made.map(
            (item) => [server.find((x) => x.name === item.name), seen.find((x) => x.name === item.name), item] as const,
          )
        : made.length === seen.length &&
            [made, seen, server].every((list) => list.every((item) => isMap(item) && !Object.hasOwn(item, 'name')))
          ? made.map((item, i) => [server[i], seen[i], item] as const)
          : undefined;
    if (pairs !== undefined) {
      const merged = pairs.map(([s, b, m]) =>
        s === undefined || b === undefined ? { value: m, guard: false } : merge(s, b, m),
      );
      return { value: merged.map((m) => m.value), guard: merged.some((m) => m.guard) };
    }
  }
  return { value: made, guard: false };
}

describe('client: patches from recipes on trimmed bases (properties)', () => {
  it('changes on the server only what the recipe changed, in both mutation styles, whatever the transform trimmed', () => {
    fc.assert(
      fc.property(
        documentArb,
        fc.subarray([...KEYS]),
        fc.array(actionArb, { maxLength: 6 }),
        (server, hiddenKeys, drawn) => {
          const hidden = new Set(hiddenKeys);
          const actions = drawn.filter((action) => seesItsTarget(action, hidden));
          const recipe = (draft: JsonMap): void => {
            for (const action of actions) perform(draft, action);
          };
          const base = trim(server, hidden) as JsonMap;
          const { result, operations } = recipeChanges(base, recipe);
          const expected = merge(server, base, asJson(result) as Json);
          if (!expected.guard) {
            expect(applyJsonPatch(server, asJson(toJsonPatch(operations)))).to.deep.equal(expected.value);
            return;
          }
          // The recipe created a map or list over one the base did not show: the patch fails on its guard, and
          // mutate runs the recipe again on the server's object, which then ends exactly as the recipe leaves it.
          let failure: unknown;
          try {
            applyJsonPatch(server, asJson(toJsonPatch(operations)));
          } catch (error) {
            failure = error;
          }
          expect(failure).to.be.instanceOf(PatchError);
          expect((failure as PatchError).detail).to.match(/^testing value .* failed/);
          const again = recipeChanges(server, recipe);
          expect(applyJsonPatch(server, asJson(toJsonPatch(again.operations)))).to.deep.equal(asJson(again.result));
        },
      ),
      { numRuns: Number(process.env.RUNS ?? 3000) },
    );
  });

  it('never fails a guard when nothing was trimmed', () => {
    fc.assert(
      fc.property(documentArb, fc.array(actionArb, { maxLength: 6 }), (server, actions) => {
        const { result, operations } = recipeChanges(server, (draft: JsonMap) => {
          for (const action of actions) perform(draft, action);
        });
        expect(applyJsonPatch(server, asJson(toJsonPatch(operations)))).to.deep.equal(asJson(result));
      }),
      { numRuns: 1000 },
    );
  });
});
