/**
 * Response serialization that reuses work: each stored (deep-frozen) object is turned into JSON once and the
 * text is shared by every GET, list page and watch line that carries it, as kube-apiserver's watch cache does.
 * @module
 */
import { setMember } from '../machinery/index.js';

/** A frozen value's text, or the pieces it is joined from (see {@link frozenJson}). */
type Text = string | readonly string[];

const cache = new WeakMap<object, Text>();

/**
 * `JSON.stringify(value)`, computed once per frozen object.
 *
 * # Guarantees
 * - Only frozen values are cached: stored objects are deep-frozen, so their text can never go stale.
 * - The entry lives as long as the object (a WeakMap): replaced or deleted objects free their text too.
 * - A stored object's `metadata.managedFields` list, and each FieldsV1 object in it, keep their own cached text,
 *   which the object's text is joined from when asked for: the field manager shares those lists and FieldsV1
 *   objects between objects (see `apply/stored-fields.ts`), and their text, often the larger part of a small
 *   object, is then held once rather than once per object.
 */
export function frozenJson(value: object): string {
  const text = cachedText(value);
  if (typeof text === 'string') return text;
  // Concatenated, not joined: the result is a rope over the cached pieces, copied once, when it is written out
  // (usually as part of a larger response or chunk of watch lines).
  let out = '';
  for (const piece of text) out += piece;
  return out;
}

function cachedText(value: object): Text {
  let text = cache.get(value);
  if (text === undefined) {
    text = (Array.isArray(value) ? entriesPieces(value) : objectPieces(value)) ?? JSON.stringify(value);
    cache.set(value, text);
  }
  return text;
}

/** Text built in pieces: own text, with shared texts kept as separate pieces. */
class Pieces {
  private readonly parts: string[] = [];
  private pending: string[] = [];

  add(text: string): void {
    this.pending.push(text);
  }

  shared(text: string): void {
    this.cut();
    this.parts.push(text);
  }

  done(): string[] {
    this.cut();
    return this.parts;
  }

  /** Own text so far as one flat string (`join` builds one; `+=` would keep a rope of every part). */
  private cut(): void {
    if (this.pending.length === 0) return;
    this.parts.push(this.pending.join(''));
    this.pending = [];
  }
}

const plain = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  typeof (value as { toJSON?: unknown }).toJSON !== 'function';
const skipped = (value: unknown): boolean =>
  value === undefined || typeof value === 'function' || typeof value === 'symbol';

/**
 * `JSON.stringify(obj)` with member `key` written by `write`: the members before and after it are stringified as
 * two objects (native JSON.stringify, in the same order: integer-like keys come first in both).
 */
function writeObject(out: Pieces, obj: Record<string, unknown>, key: string, write: (value: unknown) => void): void {
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  let past = false;
  for (const member in obj) {
    if (!Object.hasOwn(obj, member)) continue;
    if (member === key) past = true;
    else setMember(past ? after : before, member, obj[member]);
  }
  const head = JSON.stringify(before).slice(1, -1);
  const tail = JSON.stringify(after).slice(1, -1);
  const value = obj[key];
  const written = past && !skipped(value);
  out.add(`{${head}`);
  if (written) {
    out.add(`${head === '' ? '' : ','}${JSON.stringify(key)}:`);
    write(value);
  }
  out.add(`${tail !== '' && (head !== '' || written) ? ',' : ''}${tail}}`);
}

/** A managedFields entry whose FieldsV1 object is frozen (and so has its own cached text). */
function sharesFields(entry: unknown): entry is Record<string, unknown> {
  return plain(entry) && plain(entry['fieldsV1']) && Object.isFrozen(entry['fieldsV1']);
}

/** The pieces of a managedFields list, each frozen FieldsV1 object's text a piece of its own; else undefined. */
function entriesPieces(entries: readonly unknown[]): readonly string[] | undefined {
  if (typeof (entries as { toJSON?: unknown }).toJSON === 'function' || !entries.some(sharesFields)) return undefined;
  const out = new Pieces();
  out.add('[');
  for (let i = 0; i < entries.length; i++) {
    const item: unknown = entries[i];
    if (i > 0) out.add(',');
    if (sharesFields(item)) writeObject(out, item, 'fieldsV1', (fields) => out.shared(frozenJson(fields as object)));
    else out.add(skipped(item) ? 'null' : JSON.stringify(item));
  }
  out.add(']');
  return out.done();
}

/**
 * The pieces of a stored object whose `metadata.managedFields` is a frozen list (every stored object's is): the
 * list's own cached pieces in the middle; undefined for anything else (including values with `toJSON` on the
 * way, which JSON.stringify alone handles).
 */
function objectPieces(value: object): readonly string[] | undefined {
  if (!plain(value) || !plain(value['metadata'])) return undefined;
  const entries = value['metadata']['managedFields'];
  if (!Array.isArray(entries) || !Object.isFrozen(entries)) return undefined;
  const out = new Pieces();
  writeObject(out, value, 'metadata', (metadata) =>
    writeObject(out, metadata as Record<string, unknown>, 'managedFields', () => {
      const list = cachedText(entries);
      if (typeof list === 'string') out.shared(list);
      else for (const piece of list) out.shared(piece);
    }),
  );
  return out.done();
}

/** Arrays whose items are written without `kind` and `apiVersion` (see {@link itemsWithoutTypeMeta}). */
const typeMetaless = new WeakSet<readonly unknown[]>();

/**
 * Marks `items` to be written without each item's `kind` and `apiVersion`, as kube-apiserver writes the items of a
 * built-in kind's list (kubernetes#3030; custom resources keep them). Returns the same array, unchanged: only its
 * JSON text differs, so a protobuf answer (which never carries them per item) reads it as it is.
 *
 * # Guarantees
 * - A stored object's cached text is reused: its leading `"kind":…,"apiVersion":…` is cut off the text (no copy of
 *   the rest); an object with those members elsewhere is written member by member without them.
 */
export function itemsWithoutTypeMeta<T>(items: T[]): T[] {
  typeMetaless.add(items);
  return items;
}

/**
 * `JSON.stringify(body)` for a response body that embeds stored objects: the unfrozen shell (a list, a watch
 * event, an object re-labelled with another apiVersion) is written here, every frozen part comes from
 * {@link frozenJson}.
 *
 * # Guarantees
 * - Same text as `JSON.stringify` for JSON values: key order kept, `undefined` and functions left out of objects
 *   and `null` in arrays, `toJSON` honoured; except that the items of an array marked by
 *   {@link itemsWithoutTypeMeta} leave out `kind` and `apiVersion`.
 */
export function toJson(body: unknown): string {
  if (typeof body !== 'object' || body === null) return JSON.stringify(body) ?? 'null';
  if (Array.isArray(body) && typeMetaless.has(body)) return arrayJson(body, jsonWithoutTypeMeta);
  if (Object.isFrozen(body)) return frozenJson(body);
  if (Array.isArray(body)) return arrayJson(body, toJson);
  if (typeof (body as { toJSON?: unknown }).toJSON === 'function') return JSON.stringify(body);
  return membersJson(body as Record<string, unknown>);
}

function arrayJson(items: readonly unknown[], write: (item: unknown) => string): string {
  let out = '[';
  for (let i = 0; i < items.length; i++) {
    const item: unknown = items[i];
    out += `${i === 0 ? '' : ','}${item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 'null' : write(item)}`;
  }
  return `${out}]`;
}

const typeMetaKeys: ReadonlySet<string> = new Set(['kind', 'apiVersion']);

/** An unfrozen object's text, member by member (frozen members from their cache), leaving out `skip`. */
function membersJson(body: Record<string, unknown>, skip?: ReadonlySet<string>): string {
  let out = '{';
  let first = true;
  for (const key in body) {
    if (!Object.hasOwn(body, key) || skip?.has(key) === true) continue;
    const value: unknown = body[key];
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${toJson(value)}`;
    first = false;
  }
  return `${out}}`;
}

/** `item`'s text without its `kind` and `apiVersion` members. */
function jsonWithoutTypeMeta(item: unknown): string {
  if (!plain(item)) return toJson(item);
  if (Object.isFrozen(item) && typeof item['kind'] === 'string' && typeof item['apiVersion'] === 'string') {
    // Stored objects begin with kind then apiVersion (see `registry/strategy.ts`): cut them off the cached text.
    const prefix = `{"kind":${JSON.stringify(item['kind'])},"apiVersion":${JSON.stringify(item['apiVersion'])}`;
    const text = cachedText(item);
    const head = typeof text === 'string' ? text : (text[0] ?? '');
    if (head.startsWith(prefix)) {
      const rest = `{${head.slice(head.charCodeAt(prefix.length) === 0x2c ? prefix.length + 1 : prefix.length)}`;
      if (typeof text === 'string') return rest;
      let out = rest;
      for (let i = 1; i < text.length; i++) out += text[i]!;
      return out;
    }
  }
  return membersJson(item, typeMetaKeys);
}
