/**
 * The type model structured-merge-diff merges with (`schema.Schema`): named atoms of scalars, lists and maps, with
 * the element relationships that decide whether a list or map merges granularly or is replaced whole.
 * @module
 */

/** How the items of a list or map relate: replaced whole, merged by key/value, or merged field by field. */
export type ElementRelationship = 'atomic' | 'associative' | 'separable';

/** A scalar kind. */
export type ScalarKind = 'numeric' | 'string' | 'boolean' | 'untyped';

/** A reference to a type: by name, or inlined; `relationship` overrides the referenced list's or map's. */
export interface TypeRef {
  readonly named?: string;
  readonly inlined?: Atom;
  readonly relationship?: ElementRelationship;
}

/** A struct field. `default` is the OpenAPI default (used for absent associative-list key fields). */
export interface StructField {
  readonly type: TypeRef;
  readonly default?: unknown;
}

/** A map or struct: named fields, an element type for other keys (none: other keys are refused). */
export interface MapType {
  readonly fields: ReadonlyMap<string, StructField>;
  readonly elementType?: TypeRef;
  /** `atomic` or `separable`; undefined behaves as separable. */
  readonly relationship?: ElementRelationship;
}

/** A list: atomic, or associative by `keys` (a set when there are none). */
export interface ListType {
  readonly elementType: TypeRef;
  readonly relationship: ElementRelationship;
  readonly keys: readonly string[];
}

/** One or more of the shapes a value of a type may take. */
export interface Atom {
  readonly scalar?: ScalarKind;
  readonly list?: ListType;
  readonly map?: MapType;
}

/** The name SMD gives its atomic "anything" type. */
export const untypedName = '__untyped_atomic_';
/** The name SMD gives its deduced type: maps merge per key, lists are atomic. */
export const deducedName = '__untyped_deduced_';

const noFields: ReadonlyMap<string, StructField> = new Map();

/** The built-in `__untyped_atomic_` and `__untyped_deduced_` types, present in every schema. */
export const commonTypes: ReadonlyMap<string, Atom> = new Map<string, Atom>([
  [
    untypedName,
    {
      scalar: 'untyped',
      list: { elementType: { named: untypedName }, relationship: 'atomic', keys: [] },
      map: { fields: noFields, elementType: { named: untypedName }, relationship: 'atomic' },
    },
  ],
  [
    deducedName,
    {
      scalar: 'untyped',
      list: { elementType: { named: untypedName }, relationship: 'atomic', keys: [] },
      map: { fields: noFields, elementType: { named: deducedName }, relationship: 'separable' },
    },
  ],
]);

/**
 * A set of named types.
 *
 * # Guarantees
 * - `resolve` applies a reference's relationship override to a copy, never to the shared type, and caches it.
 */
export class Schema {
  private readonly overrides = new Map<string, Atom>();
  /** Resolved references: a walk resolves the same few reference objects of the schema at every node. */
  private readonly resolved = new WeakMap<TypeRef, Atom>();

  constructor(readonly types: ReadonlyMap<string, Atom>) {}

  /** The atom a reference denotes, or undefined when the name is unknown. */
  resolve(ref: TypeRef): Atom | undefined {
    let atom = this.resolved.get(ref);
    if (atom === undefined) {
      atom = this.resolveUncached(ref);
      // Types are fixed once the schema is built, and an inlined atom is its reference's own.
      if (atom !== undefined) this.resolved.set(ref, atom);
    }
    return atom;
  }

  private resolveUncached(ref: TypeRef): Atom | undefined {
    const base =
      ref.named !== undefined ? (this.types.get(ref.named) ?? commonTypes.get(ref.named)) : (ref.inlined ?? {});
    if (base === undefined || ref.relationship === undefined) return base;
    if (ref.named === undefined) return override(base, ref.relationship);
    const key = `${ref.named}\u0000${ref.relationship}`;
    let atom = this.overrides.get(key);
    if (atom === undefined) {
      atom = override(base, ref.relationship);
      this.overrides.set(key, atom);
    }
    return atom;
  }
}

function override(atom: Atom, relationship: ElementRelationship): Atom {
  if (atom.map !== undefined) return { map: { ...atom.map, relationship } };
  if (atom.list !== undefined) return { list: { ...atom.list, relationship } };
  return atom;
}

/** A schema plus the root type of one kind at one version. */
export interface TypedSchema {
  readonly schema: Schema;
  readonly root: TypeRef;
}

/** The deduced schema (no type information): what SMD uses for objects without a schema. */
export const deducedSchema: TypedSchema = { schema: new Schema(new Map()), root: { named: deducedName } };
