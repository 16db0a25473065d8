/**
 * Redaction: what keeps tokens, passwords and Secret data out of the manager's logs.
 */
import type { LogFields, ManagerLogger } from './logger.js';

/** What replaces a redacted value. */
export const REDACTED = '[REDACTED]';

/** Field names whose values are credentials, wherever they appear (not `secretName`, `secretRef`, `secretKeyRef`). */
const SENSITIVE_KEY =
  /token|passw(or)?d|secret(?!name|ref|keyref|namespace)|authorization|credential|api[-_]?key|private[-_]?key|client[-_]?key|key[-_]?data|cookie/i;

/** Credentials with a recognisable shape: HTTP auth schemes, JWTs, and user:password in URLs. */
const PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`],
  [/\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, REDACTED],
  [/(\/\/)[^/\s:@]+:[^/\s@]+@/g, `$1${REDACTED}@`],
];

/** Literal values shorter than this are not redacted as free text (they would blank out ordinary words). */
export const MIN_LITERAL_LENGTH = 6;

const MAX_DEPTH = 8;

/**
 * A function that returns a copy of any value with credentials replaced by {@link REDACTED}:
 * - the value of any field whose name says it is a credential (`token`, `password`, `authorization`, …);
 * - the `data` and `stringData` values of any object of `kind: 'Secret'` (the keys are kept);
 * - in every string: HTTP `Bearer`/`Basic` credentials, JWTs, `user:password@` in URLs, and each literal that
 *   `literals()` returns (at least {@link MIN_LITERAL_LENGTH} characters; return the same array while nothing
 *   changed, so it is prepared once).
 *
 * # Guarantees
 * - Never mutates its input and never throws; cycles and depth past 8 become `"[Circular]"` / `"[Truncated]"`.
 * - `Error`s become `{ name, message, stack, code?, reason?, cause? }`, each string redacted.
 */
export function redactor(literals: () => readonly string[]): (value: unknown) => unknown {
  const scrub = (text: string, known: readonly string[]): string => {
    let out = text;
    // Literals first: a pattern could cut one in two and leave a part of it readable.
    for (const literal of known) if (out.includes(literal)) out = out.split(literal).join(REDACTED);
    for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
    return out;
  };
  let source: readonly string[] | undefined;
  let prepared: readonly string[] = [];
  return (value) => {
    const current = literals();
    if (current !== source) {
      source = current;
      // Longest first, so a literal that contains another is replaced whole.
      prepared = [...new Set(current)]
        .filter((l) => typeof l === 'string' && l.length >= MIN_LITERAL_LENGTH)
        .sort((a, b) => b.length - a.length);
    }
    const known = prepared;
    const seen = new WeakSet<object>();
    const walk = (v: unknown, depth: number): unknown => {
      if (typeof v === 'string') return scrub(v, known);
      if (typeof v === 'bigint') return v.toString();
      if (typeof v !== 'object' || v === null)
        return typeof v === 'function' ? `[Function ${v.name || 'anonymous'}]` : v;
      if (seen.has(v)) return '[Circular]';
      if (depth >= MAX_DEPTH) return '[Truncated]';
      seen.add(v);
      try {
        if (v instanceof Error) return walk(errorFields(v), depth);
        if (v instanceof Date) return v.toISOString();
        if (Array.isArray(v)) return v.map((item) => walk(item, depth + 1));
        if (v instanceof Map) return walk(Object.fromEntries(v), depth);
        if (v instanceof Set) return walk([...v], depth);
        const secret = (v as { kind?: unknown }).kind === 'Secret';
        const out: Record<string, unknown> = {};
        for (const [key, item] of Object.entries(v)) {
          if (secret && (key === 'data' || key === 'stringData') && typeof item === 'object' && item !== null) {
            out[key] = Object.fromEntries(Object.keys(item).map((k) => [k, REDACTED]));
          } else if (SENSITIVE_KEY.test(key) && item !== undefined && item !== null && item !== '') {
            out[key] = REDACTED;
          } else {
            out[key] = walk(item, depth + 1);
          }
        }
        return out;
      } catch {
        return '[Unreadable]';
      } finally {
        seen.delete(v);
      }
    };
    return walk(value, 0);
  };
}

/** The loggable fields of an error: name, message, stack, and the Kubernetes `code`/`reason` and `cause` when set. */
export function errorFields(error: Error): Record<string, unknown> {
  const fields: Record<string, unknown> = { name: error.name, message: error.message };
  if (error.stack !== undefined) fields.stack = error.stack;
  const { code, reason } = error as { code?: unknown; reason?: unknown };
  if (typeof code === 'number' || typeof code === 'string') fields.code = code;
  if (typeof reason === 'string') fields.reason = reason;
  if (error.cause !== undefined) fields.cause = error.cause;
  return fields;
}

/**
 * `logger` behind a redactor: every field and every message is redacted before it reaches `logger`, and a logger
 * that throws is ignored (logging must never break the manager).
 */
export function redactingLogger(
  logger: ManagerLogger,
  redact: (value: unknown) => unknown,
  base: LogFields = {},
): ManagerLogger {
  const wrap =
    (level: keyof ManagerLogger) =>
    (fields: LogFields, message: string): void => {
      try {
        logger[level](redact({ ...base, ...fields }) as LogFields, redact(message) as string);
      } catch {
        // A broken logger loses its line; it must not take a reconcile or a shutdown down with it.
      }
    };
  return { debug: wrap('debug'), info: wrap('info'), warn: wrap('warn'), error: wrap('error') };
}
