/**
 * Response serialization that reuses work: each stored (deep-frozen) object is turned into JSON once and the
 * text is shared by every GET, list page and watch line that carries it, as kube-apiserver's watch cache does.
 * @module
 */

const cache = new WeakMap<object, string>();

/**
 * `JSON.stringify(value)`, computed once per frozen object.
 *
 * # Guarantees
 * - Only frozen values are cached: stored objects are deep-frozen, so their text can never go stale.
 * - The entry lives as long as the object (a WeakMap): replaced or deleted objects free their text too.
 */
export function frozenJson(value: object): string {
  let text = cache.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    cache.set(value, text);
  }
  return text;
}

/**
 * `JSON.stringify(body)` for a response body that embeds stored objects: the unfrozen shell (a list, a watch
 * event, an object re-labelled with another apiVersion) is written here, every frozen part comes from
 * {@link frozenJson}.
 *
 * # Guarantees
 * - Same text as `JSON.stringify` for JSON values: key order kept, `undefined` and functions left out of objects
 *   and `null` in arrays, `toJSON` honoured.
 */
export function toJson(body: unknown): string {
  if (typeof body !== 'object' || body === null) return JSON.stringify(body) ?? 'null';
  if (Object.isFrozen(body)) return frozenJson(body);
  if (Array.isArray(body)) {
    let out = '[';
    for (let i = 0; i < body.length; i++) {
      const item: unknown = body[i];
      out += `${i === 0 ? '' : ','}${item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 'null' : toJson(item)}`;
    }
    return `${out}]`;
  }
  if (typeof (body as { toJSON?: unknown }).toJSON === 'function') return JSON.stringify(body);
  let out = '{';
  let first = true;
  for (const key in body) {
    if (!Object.hasOwn(body, key)) continue;
    const value: unknown = (body as Record<string, unknown>)[key];
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${toJson(value)}`;
    first = false;
  }
  return `${out}}`;
}
