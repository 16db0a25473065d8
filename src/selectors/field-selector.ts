/** Kubernetes field selectors (k8s.io/apimachinery `fields.ParseSelector`): parse, match, format. */
import { SelectorParseError } from './errors.js';

/** One `field=value` (`==` too) or `field!=value` clause. */
export interface FieldRequirement {
  /** The field path, e.g. `metadata.name`. */
  readonly field: string;
  /** `=` (also written `==`) or `!=`. */
  readonly operator: '=' | '!=';
  /** The value compared with. */
  readonly value: string;
}

/** AND of requirements; empty selector matches everything. */
export type FieldSelector = readonly FieldRequirement[];

/** One term of a field selector and where it starts in the text. */
interface Term {
  readonly text: string;
  readonly start: number;
}

/** Splits on commas not preceded by a backslash escape, keeping escapes in place (Go's `splitTerms`). */
function splitTerms(text: string): Term[] {
  if (text.length === 0) return [];
  const terms: Term[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push({ text: text.slice(start, i), start });
      start = i + 1;
    }
  }
  terms.push({ text: text.slice(start), start });
  return terms;
}

/** Go's `UnescapeValue`: `\\`, `\,` and `\=` are the only escapes; a bare `=` or `,` is an error. */
function unescapeValue(s: string): string {
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        throw new Error(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      inSlash = false;
    } else if (c === '\\') {
      inSlash = true;
    } else if (c === ',' || c === '=') {
      // Go formats the rune with %v, which prints its code point.
      throw new Error(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (inSlash) throw new Error('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Escapes a value so it survives `selectors.parseFieldSelector` (Go's `fields.EscapeValue`). */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/**
 * Parses field selector text such as `metadata.name=x,spec.nodeName!=y` (`==` too).
 *
 * # Guarantees
 * - Same grammar as `fields.ParseSelector`: terms split on unescaped commas, empty terms skipped, the first
 *   `!=`, `==` or `=` splits field from value, values unescape `\,` `\=` `\\`. `""` matches everything.
 * - Errors are Go's: `invalid selector: 'a'; can't understand 'a'`, `invalid field selector: invalid escape
 *   sequence: \x`, `invalid field selector: unescaped character in value: 61`.
 * - Requirements come back sorted by their raw term text, as Go sorts them.
 *
 * # Caveats
 * - Like Go, no whitespace is trimmed: `a = b` is field `a ` and value ` b`. Which fields exist is per resource
 *   and is the API server's check, not this parser's.
 */
export function parseFieldSelector(text: string): FieldSelector {
  if (typeof text !== 'string')
    throw new SelectorParseError(`a field selector must be a string, got ${typeof text}`, String(text));
  const out: FieldRequirement[] = [];
  for (const { text: part, start } of splitTerms(text).sort((a, b) =>
    a.text < b.text ? -1 : a.text > b.text ? 1 : 0,
  )) {
    if (part === '') continue;
    const m = /!=|==|=/.exec(part);
    if (m === null)
      throw new SelectorParseError(`invalid selector: '${text}'; can't understand '${part}'`, text, start);
    let value: string;
    const valueStart = m.index + m[0].length;
    try {
      value = unescapeValue(part.slice(valueStart));
    } catch (err) {
      throw new SelectorParseError((err as Error).message, text, start + valueStart);
    }
    out.push({ field: part.slice(0, m.index), operator: m[0] === '!=' ? '!=' : '=', value });
  }
  return out;
}

/**
 * True when every requirement holds; `fieldValue(field)` reads a field of the candidate object.
 *
 * # Guarantees
 * - As in `fields.Set.Get`, a field that reads as `undefined` counts as the empty string: `spec.nodeName=`
 *   matches an unscheduled pod and `spec.nodeName!=x` matches it too.
 */
export function matchesFields(selector: FieldSelector, fieldValue: (field: string) => string | undefined): boolean {
  return selector.every((r) => ((fieldValue(r.field) ?? '') === r.value) === (r.operator === '='));
}

/** Selector text that parses back to the same requirements (values escaped, fields written as is). */
export function formatFieldSelector(selector: FieldSelector): string {
  return selector.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(',');
}
