/**
 * JSON decoding that works around a V8 bug in `JSON.parse`'s property keys (nodejs/node#63785).
 *
 * V8 (Node 24 and 26 at least) builds a parsed object's shape by following the shapes earlier objects made. When
 * the key it expects next holds a backslash, it can take a key written with an escape (`\"`, `\n`, `\/`…) for that
 * expected key, comparing the raw text instead of the decoded one: once any object has had a key `\`,
 * `{"h":1,"\"":2}` can come back with the key `\` instead of `"`. Kubernetes objects are full of escaped keys
 * (managedFields: `k:{\"name\":\"app\"}`), so one custom resource with a backslash in a key could change how later
 * objects read.
 *
 * What the bug needs, and so what the guard checks:
 * - A misread key is always the expected key, which holds a backslash where the raw text has its first escape.
 * - Only a key holding a backslash poisons, and a text can make one only if it holds `\\` or `\u005c`. Until
 *   {@link parseJson} has read such a text (or {@link expectBackslashKeys} was called), `JSON.parse` is exact.
 * - In a text without `\\` or `\u005c` no key can rightly hold a backslash, so one that does was misread.
 */
import { parse as parseByPropertyWrites } from 'lossless-json';

/** Whether a key holding a backslash may exist in this process, so escaped keys may be misread. */
let poisonPossible = false;

/**
 * Parses `text` as a correct `JSON.parse` would, despite V8's misreading of escaped property keys (see the module
 * comment).
 *
 * # Guarantees
 * - The value, and the `SyntaxError` for a text that is not JSON, of `JSON.parse`; duplicate keys keep the last
 *   value, as `JSON.parse` does.
 * - While no key holding a backslash can exist, it costs one `JSON.parse` and two substring searches.
 * - After that, a text with escapes but no escaped backslash costs a walk over its keys too, to find a misread one;
 *   a text with an escaped backslash, or one found misread, is parsed again by `lossless-json`, which builds objects
 *   by ordinary property writes (several times slower than `JSON.parse`).
 *
 * # Caveats
 * - Backslash keys made another way (JavaScript that builds such an object, or a `JSON.parse` elsewhere in the
 *   process) are not seen; call {@link expectBackslashKeys} once where that can happen.
 */
export function parseJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (!poisonPossible) {
    if (!mayHoldBackslash(text)) return value;
    poisonPossible = true;
    return parseByPropertyWrites(text, null, exactly);
  }
  if (text.indexOf('\\') === -1) return value;
  if (mayHoldBackslash(text) || hasBackslashKey(value)) return parseByPropertyWrites(text, null, exactly);
  return value;
}

/**
 * Makes {@link parseJson} check every text that holds an escape from now on, for a process where objects with a
 * backslash in a key are built outside rxkube's decoding.
 */
export function expectBackslashKeys(): void {
  poisonPossible = true;
}

/** Numbers as `JSON.parse` reads them, and the last of duplicate keys, as `JSON.parse` keeps it. */
const exactly = { parseNumber: Number, onDuplicateKey: ({ newValue }: { newValue: unknown }) => newValue };

/** A text with `\\` or `\u005c` may decode to a string holding a backslash, a key among them. */
function mayHoldBackslash(text: string): boolean {
  if (text.indexOf('\\\\') !== -1) return true;
  // One search for both spellings (`\u005c`, `\u005C`): a whole list page is scanned once less.
  for (let at = text.indexOf('\\u005'); at !== -1; at = text.indexOf('\\u005', at + 5)) {
    if ((text.charCodeAt(at + 5) | 0x20) === 0x63 /* c */) return true;
  }
  return false;
}

function hasBackslashKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (hasBackslashKey(value[i])) return true;
    return false;
  }
  for (const key in value) {
    if (key.indexOf('\\') !== -1 || hasBackslashKey((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}
