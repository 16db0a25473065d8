/**
 * The manager's logger interface (pino-compatible) and its default: one JSON line per record.
 */

/**
 * Where the manager's structured logs go. The signature is pino's and bunyan's (`logger.info(fields, message)`),
 * so a pino logger can be passed as is. `fields` is the structured part of a record: plain JSON-friendly values.
 *
 * # Caveats
 * - The manager redacts fields and messages before calling it; a logger must not add secrets of its own.
 */
export interface ManagerLogger {
  /** Writes a `debug` record. */
  debug(fields: Readonly<Record<string, unknown>>, message: string): void;
  /** Writes an `info` record. */
  info(fields: Readonly<Record<string, unknown>>, message: string): void;
  /** Writes a `warn` record. */
  warn(fields: Readonly<Record<string, unknown>>, message: string): void;
  /** Writes an `error` record. */
  error(fields: Readonly<Record<string, unknown>>, message: string): void;
}

/** Options of {@link jsonLogger}. */
export interface JsonLoggerOptions {
  /** Records below this level (`debug` < `info` < `warn` < `error`) are dropped. Default `'info'`. */
  readonly level?: 'debug' | 'info' | 'warn' | 'error';
  /** Receives each line, without its newline. Default: written to stderr with a newline. */
  readonly write?: (line: string) => void;
  /** Milliseconds since the epoch for the `time` field. Default `Date.now`. */
  readonly now?: () => number;
}

/** Severity of a log record, lowest first. */
export type LogLevel = NonNullable<JsonLoggerOptions['level']>;

/** The structured part of a record: plain JSON-friendly values. */
export type LogFields = Parameters<ManagerLogger['info']>[0];

const LEVELS: Readonly<Record<LogLevel, number>> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * A logger that writes one JSON object per line: `level`, `time` (ISO 8601), `msg`, then the fields.
 *
 * # Guarantees
 * - One line per record, never more: newlines inside values are escaped by JSON.
 * - Never throws: values JSON cannot encode (cycles, BigInt) are written as `"[Circular]"` or their string form.
 * - `level`, `time` and `msg` cannot be overwritten by a field of the same name.
 */
export function jsonLogger(options: JsonLoggerOptions = {}): ManagerLogger {
  const threshold = LEVELS[options.level ?? 'info'];
  if (threshold === undefined)
    throw new RangeError(
      `jsonLogger: level must be one of ${Object.keys(LEVELS).join(', ')}, got ${String(options.level)}`,
    );
  const write = options.write ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const now = options.now ?? Date.now;
  const log =
    (level: LogLevel) =>
    (fields: LogFields, message: string): void => {
      if (LEVELS[level] < threshold) return;
      const { level: _l, time: _t, msg: _m, ...rest } = fields;
      write(safeStringify({ level, time: new Date(now()).toISOString(), msg: message, ...rest }));
    };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

/** JSON that never throws: cycles become `"[Circular]"`, BigInts their decimal string. */
export function safeStringify(value: unknown): string {
  const seen = new WeakSet<object>();
  try {
    return JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v === 'bigint') return v.toString();
      if (typeof v === 'object' && v !== null) {
        if (seen.has(v)) return '[Circular]';
        seen.add(v);
      }
      return v;
    });
  } catch (error) {
    return JSON.stringify({ level: 'error', msg: 'unloggable record', error: String(error) });
  }
}

/** A logger that drops everything (for `logger` in tests that do not read logs). */
export function silentLogger(): ManagerLogger {
  const drop = (): void => undefined;
  return { debug: drop, info: drop, warn: drop, error: drop };
}
