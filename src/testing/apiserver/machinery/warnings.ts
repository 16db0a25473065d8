/**
 * The `Warning` header of an answer, as kube-apiserver's per-request warning recorder writes it.
 * @module
 */
import { parseWarningHeaders } from '../../../transport/index.js';
import { ApiError } from './status.js';

/**
 * The HTTP `Warning` header of warnings, as kube-apiserver's warning recorder writes them: `299 - "<text>"`, each
 * text once, in order, the text a quoted-string of UTF-8 bytes (a backslash before each double quote and each
 * backslash).
 *
 * # Guarantees
 * - The recorder's limits: an empty text is left out, a repeated text is written once (at its first place), and
 *   once the texts add up to more than 4096 characters every text is cut to its first 256 and no more are written
 *   after the total reaches 4096.
 *
 * # Caveats
 * - One header line with the values joined by `, ` (RFC 9110 list syntax, which clients read as kube-apiserver's
 *   one line per warning); a `ResponseHeaders` value is a single string.
 * - Control characters, which kube-apiserver refuses in a warning, are written as U+FFFD.
 * - The UTF-8 bytes are written as the Latin-1 characters of the same codes, because Node writes header strings
 *   byte per character; over HTTP the wire holds the UTF-8 bytes Go would write.
 */
export function warningHeaders(warnings: readonly string[] | undefined): Record<string, string> {
  const recorded = recordedWarnings(warnings ?? []);
  if (recorded.length === 0) return {};
  // biome-ignore lint/suspicious/noControlCharactersInRegex: kube-apiserver replaces control characters in warnings with U+FFFD
  const quote = (text: string) => `"${text.replace(/[\x00-\x1f\x7f-\x9f]/g, '\ufffd').replace(/["\\]/g, '\\$&')}"`;
  const asBytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
  return { Warning: asBytes(recorded.map((text) => `299 - ${quote(text)}`).join(', ')) };
}

/** kube-apiserver's limits on the warnings of one answer (`k8s.io/apiserver` endpoints/filters/warning.go). */
const warningBudget = { totalRunes: 4 * 1024, itemRunes: 256 } as const;

/**
 * The texts the real server's per-request recorder would write, given them in the order they were added: it skips
 * empty and repeated texts, writes whole texts while they fit in the budget, and on the first that does not, starts
 * over with every text so far cut to `itemRunes`, then adds cut texts only while the total is under budget.
 */
function recordedWarnings(texts: readonly string[]): string[] {
  const seen = new Set<string>();
  const ordered: string[] = [];
  let written: string[] = [];
  let runes = 0;
  let truncating = false;
  const cut = (text: string) => Array.from(text).slice(0, warningBudget.itemRunes).join('');
  for (const text of texts) {
    if (text.length === 0 || seen.has(text)) continue;
    if (truncating && runes >= warningBudget.totalRunes) break;
    seen.add(text);
    ordered.push(text);
    const length = Array.from(text).length;
    if (truncating) {
      const shown = cut(text);
      written.push(shown);
      runes += Array.from(shown).length;
    } else if (runes + length <= warningBudget.totalRunes) {
      written.push(text);
      runes += length;
    } else {
      truncating = true;
      written = ordered.map(cut);
      runes = written.reduce((sum, shown) => sum + Array.from(shown).length, 0);
    }
  }
  return written;
}

/**
 * Runs the rest of a write that has already given `warnings`: if it fails, its `ApiError` carries them too, as the
 * real server's warning recorder answers them with any status.
 */
export function keepingWarnings<T>(warnings: readonly string[], write: () => T): T {
  try {
    return write();
  } catch (error) {
    if (!(error instanceof ApiError) || warnings.length === 0) throw error;
    const { body } = error;
    throw new ApiError(
      error.status,
      body.reason ?? '',
      body.message ?? '',
      body.details,
      withWarnings(error.headers, warnings),
      body.metadata,
    );
  }
}

/**
 * `headers` with `warnings` first among their warnings (any already there come after them), written as one
 * recorder would: a text already there is not written twice.
 */
export function withWarnings(
  headers: Readonly<Record<string, string>>,
  warnings: readonly string[],
): Record<string, string> {
  const theirs = headers['Warning'];
  const merged = warningHeaders([...warnings, ...(theirs === undefined ? [] : parseWarningHeaders([theirs]))]);
  const { Warning: _replaced, ...rest } = headers;
  return { ...rest, ...merged };
}
