/**
 * The API server's warnings: the `Warning` response header (RFC 7234 §5.5) as kube-apiserver writes it.
 *
 * No maintained npm package parses this header with its quoted-pair escapes (the one published splits on a regular
 * expression and keeps the backslashes), and client-go parses it by hand too; the grammar is small.
 */

import type { RequestMethod } from './request.js';

/** One API warning (a `Warning: 299` header), with the request it answered. */
export interface ApiWarning {
  /** The text, as the server wrote it: e.g. `unknown field "spec.colour"`, or an API deprecation notice. */
  readonly text: string;
  /** The method of the request that received it. */
  readonly method: RequestMethod;
  /** The path of that request (without its query). */
  readonly path: string;
}

/** Receives each warning the requests it was given to receive, successful or refused. */
export type WarningHandler = (warning: ApiWarning) => void;

/** Distinct texts a deduplicating handler remembers at most; past it, it starts over. */
const REMEMBERED_MAX = 1024;

/**
 * A {@link WarningHandler} that passes each distinct text to `handler` once, as controller-runtime's deduplicating
 * warning logger does: an API deprecation repeats on every list and watch, and once is enough to act on it.
 *
 * # Caveats
 * - Deduplicates by text only (the first request that received it is the one `handler` sees).
 * - Remembers at most 1024 distinct texts, then starts over, so a stream of unique texts cannot grow it forever; a
 *   text may then be passed on again.
 */
export function deduplicateWarnings(handler: WarningHandler): WarningHandler {
  const seen = new Set<string>();
  return (warning) => {
    if (seen.has(warning.text)) return;
    if (seen.size >= REMEMBERED_MAX) seen.clear();
    seen.add(warning.text);
    handler(warning);
  };
}

/**
 * The default {@link WarningHandler} of every rxkube part that talks to the API server (resource clients, informers,
 * the event recorder) outside a manager, which logs them instead: each distinct text once per process
 * ({@link deduplicateWarnings}), as a process warning of type `KubernetesWarning` (printed on stderr;
 * `process.on('warning')` receives it).
 *
 * # Caveats
 * - Deduplicates by text across every client of the process; after 1024 distinct texts it starts over, so a text
 *   may then be printed again.
 */
export const printWarningOnce: WarningHandler = deduplicateWarnings((warning) => {
  process.emitWarning(warning.text, { type: 'KubernetesWarning', detail: `${warning.method} ${warning.path}` });
});

/**
 * Hands `texts` to `handler`; a handler that throws is reported as a process warning (type
 * `KubernetesWarningHandlerError`), and the rest still go. Never throws.
 */
export function deliverWarnings(
  handler: WarningHandler,
  method: RequestMethod,
  path: string,
  texts: readonly string[] | undefined,
): void {
  for (const text of texts ?? []) {
    try {
      handler({ text, method, path });
    } catch (error) {
      process.emitWarning(error instanceof Error ? error : new Error(String(error)), {
        type: 'KubernetesWarningHandlerError',
      });
    }
  }
}

/** Refuses a `WarningHandler` option that is not a function, naming `where` it was given. */
export function checkWarningHandler(where: string, handler: unknown): void {
  if (handler !== undefined && typeof handler !== 'function')
    throw new TypeError(`${where}: onWarning must be a function`);
}

/** The warn-code kube-apiserver gives every warning it sends: "miscellaneous persistent warning". */
export const API_WARNING_CODE = 299;

/**
 * The texts of the API warnings in `Warning` header field values, in order.
 *
 * # Guarantees
 * - Takes each field value as a comma-separated list (RFC 9110 §5.6.1), so one header line per warning (what
 *   kube-apiserver writes) and one line for all of them (what a proxy may join them into) read the same.
 * - A quoted text is unescaped (`\"` is `"`, `\\` is `\`), and its bytes are read as UTF-8, which is how
 *   kube-apiserver writes them (Node's HTTP parser hands header bytes out as Latin-1 characters).
 * - Loses nothing: a field value that does not parse is returned whole, as its raw text, in its place.
 *
 * # Caveats
 * - Warnings with another code than 299 (HTTP caches' 1xx and 2xx codes) are not API warnings and are left out.
 */
export function parseWarningHeaders(values: readonly string[]): string[] {
  const texts: string[] = [];
  for (const raw of values) {
    const value = utf8OfLatin1(raw);
    const parsed = parseWarningList(value);
    if (parsed === undefined) texts.push(value);
    else for (const { code, text } of parsed) if (code === API_WARNING_CODE) texts.push(text);
  }
  return texts;
}

/**
 * The `Warning` header field values of a Node response's headers, one per header line (`headersDistinct` keeps
 * the lines apart; the plain `headers` join them or keep only the first).
 */
export function warningHeaderValues(
  headersDistinct: Readonly<Record<string, readonly string[] | undefined>> | undefined,
): readonly string[] {
  return headersDistinct?.['warning'] ?? [];
}

/**
 * Hands the API warnings in an accepted answer's `Warning` header lines to `onWarnings` (a transport's
 * `RequestOptions.onWarnings`), when it is given and there are any.
 */
export function reportWarnings(
  headerLines: readonly string[],
  onWarnings: ((texts: readonly string[]) => void) | undefined,
): void {
  if (onWarnings === undefined) return;
  const texts = parseWarningHeaders(headerLines);
  if (texts.length > 0) onWarnings(texts);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** `raw`'s characters read as bytes, decoded as UTF-8; `raw` itself when they are not bytes or not UTF-8. */
function utf8OfLatin1(raw: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII and Latin-1 byte ranges, 0x00 included
  if (/^[\x00-\x7f]*$/.test(raw) || /[^\x00-\xff]/.test(raw)) return raw;
  try {
    return utf8.decode(Buffer.from(raw, 'latin1'));
  } catch {
    return raw;
  }
}

interface WarningValue {
  readonly code: number;
  readonly text: string;
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\t';

/** `1#warning-value`: warn-code SP warn-agent SP warn-text [SP warn-date], comma-separated; undefined if malformed. */
function parseWarningList(value: string): WarningValue[] | undefined {
  const result: WarningValue[] = [];
  let at = 0;
  const skipSpaces = () => {
    while (isSpace(value[at])) at++;
  };
  for (;;) {
    // Empty list elements (", ,") are allowed by the list syntax.
    while (isSpace(value[at]) || value[at] === ',') at++;
    if (at >= value.length) return result;
    if (!/^[0-9]{3} /.test(value.slice(at, at + 4))) return undefined;
    const code = Number(value.slice(at, at + 3));
    at += 4;
    const agentStart = at;
    while (at < value.length && !isSpace(value[at]) && value[at] !== ',' && value[at] !== '"') at++;
    if (at === agentStart || value[at] !== ' ') return undefined;
    at++;
    const text = quotedString(value, at);
    if (text === undefined) return undefined;
    at = text.end;
    skipSpaces();
    if (value[at] === '"') {
      // warn-date: a quoted HTTP-date; it carries nothing a client acts on.
      const date = quotedString(value, at);
      if (date === undefined) return undefined;
      at = date.end;
      skipSpaces();
    }
    if (at < value.length && value[at] !== ',') return undefined;
    result.push({ code, text: text.text });
  }
}

/** The quoted-string starting at `at` (which must be `"`), unescaped, and where it ends; undefined if unterminated. */
function quotedString(value: string, at: number): { text: string; end: number } | undefined {
  if (value[at] !== '"') return undefined;
  let text = '';
  for (let i = at + 1; i < value.length; i++) {
    const c = value[i]!;
    if (c === '"') return { text, end: i + 1 };
    if (c === '\\') {
      i++;
      if (i >= value.length) return undefined;
      text += value[i];
    } else {
      text += c;
    }
  }
  return undefined;
}
