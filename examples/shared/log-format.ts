/**
 * How the examples log: JSON lines, as the manager does in production, or one human line per record when a person
 * reads them (stderr is a terminal, or `--log-format text`): errors on one line with their causes, stacks only on
 * request (`--log-stacks`, or `RXKUBE_LOG_STACKS=1`).
 * @module
 */
import { jsonLogger, type JsonLoggerOptions, type ManagerLogger } from '../../src/index.js';

type LogFields = Parameters<ManagerLogger['info']>[0];
type LogLevel = NonNullable<JsonLoggerOptions['level']>;

/** The environment variable that asks for stacks in the human lines: `1` or `true`. */
export const LOG_STACKS_ENV = 'RXKUBE_LOG_STACKS';

/** The logging flags every example takes (with the manager's, see `MANAGER_FLAGS`). */
export const LOG_FLAGS = {
  'log-format': { type: 'string' },
  'log-level': { type: 'string' },
  'log-stacks': { type: 'boolean', default: false },
} as const;

/** The values `parseArgs` gives for {@link LOG_FLAGS}. */
export interface LogFlagValues {
  readonly 'log-format'?: string;
  readonly 'log-level'?: string;
  readonly 'log-stacks'?: boolean;
}

/** Where the lines go and what the process looks like; the defaults are the real ones. */
export interface LogTarget {
  /** Whether stderr is a terminal. Default `process.stderr.isTTY`. */
  readonly tty?: boolean;
  /** The environment, for {@link LOG_STACKS_ENV}. Default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Receives each line, without its newline. Default: stderr. */
  readonly write?: (line: string) => void;
  /** The clock of the human lines' times, ms since the epoch. Default `Date.now`. */
  readonly now?: () => number;
}

const LEVELS: Readonly<Record<LogLevel, number>> = { debug: 10, info: 20, warn: 30, error: 40 };

/**
 * The manager logger the flags ask for: `--log-format json` the manager's JSON lines, `text` human lines, and by
 * default human lines when stderr is a terminal, JSON lines otherwise (a pipe, a file, a container's log).
 * `--log-level` picks the lowest level written: by default `info` for JSON lines, `warn` for human lines, whose
 * reader sees the controller's own lines and the example's milestones on stdout (started, leading, stopping) and
 * needs the manager's records only when something goes wrong.
 *
 * # Guarantees
 * - Throws a `TypeError` naming the flag for a format other than `text` or `json`, or a level other than `debug`,
 *   `info`, `warn` or `error`.
 * - JSON lines are exactly the manager's default (`jsonLogger`), stacks included, as production logs want them.
 */
export function exampleLogger(values: LogFlagValues, target: LogTarget = {}): ManagerLogger {
  const format = values['log-format'] ?? ((target.tty ?? process.stderr.isTTY) ? 'text' : 'json');
  if (format !== 'text' && format !== 'json')
    throw new TypeError(`--log-format must be text or json, got ${JSON.stringify(format)}`);
  const level = values['log-level'] ?? (format === 'text' ? 'warn' : 'info');
  if (!(level in LEVELS))
    throw new TypeError(`--log-level must be debug, info, warn or error, got ${JSON.stringify(level)}`);
  const write = target.write ?? ((line: string) => void process.stderr.write(`${line}\n`));
  if (format === 'json')
    return jsonLogger({ level: level as LogLevel, write, ...(target.now ? { now: target.now } : {}) });
  const env = target.env ?? process.env;
  const stacks = values['log-stacks'] === true || ['1', 'true'].includes((env[LOG_STACKS_ENV] ?? '').toLowerCase());
  return textLogger({ level: level as LogLevel, stacks, write, now: target.now ?? Date.now });
}

/**
 * One line per record: `HH:MM:SS.mmm LEVEL message key=value …`, errors last as `Name: message (cause: …)`, and
 * with `stacks` the stack of each error on the lines after it, indented. Fields that say nothing to a person reading
 * one example (the manager's name, a `result` the message says, `false` flags, 0 ms durations) are left out.
 *
 * # Guarantees
 * - One line per record unless `stacks`: newlines inside values are escaped.
 * - Never throws: a value JSON cannot encode is written in its string form.
 */
export function textLogger(options: {
  level: LogLevel;
  stacks: boolean;
  write: (line: string) => void;
  now: () => number;
}): ManagerLogger {
  const threshold = LEVELS[options.level];
  const log =
    (level: LogLevel) =>
    (fields: LogFields, message: string): void => {
      if (LEVELS[level] < threshold) return;
      const stacks: string[] = [];
      const parts: string[] = [];
      const errors: string[] = [];
      for (const [key, value] of Object.entries(fields)) {
        if (isNoise(key, value)) continue;
        if (isErrorLike(value)) {
          if (options.stacks && typeof value.stack === 'string')
            stacks.push(
              ...value.stack
                .split('\n')
                .slice(1)
                .map((line) => `    ${line.trim()}`),
            );
          errors.push(`${key}=${quote(describeError(value))}`);
        } else {
          parts.push(`${key}=${formatValue(value)}`);
        }
      }
      const time = new Date(options.now()).toISOString().slice(11, 23);
      // Errors last: they are the longest part, and the fields before them say what they are about.
      options.write([`${time} ${level.toUpperCase().padEnd(5)} ${oneLine(message)}`, ...parts, ...errors].join(' '));
      for (const line of stacks) options.write(line);
    };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

/**
 * An error (or the plain fields the manager's redaction makes of one) as one line: `Name: message (cause: …)`, the
 * name left out for JavaScript's own (`TypeError`, `RangeError`…).
 */
export function describeError(error: unknown): string {
  const seen = new Set<unknown>();
  const parts: string[] = [];
  for (
    let current: unknown = error;
    current !== undefined && current !== null && !seen.has(current);
    current = (current as { cause?: unknown }).cause
  ) {
    seen.add(current);
    if (!isErrorLike(current)) {
      parts.push(String(current));
      break;
    }
    const { name, message } = current;
    // JavaScript's own error names say nothing a message does not; rxkube's (`NetworkError`, `ApiError`) do.
    const text = name === undefined || BUILT_IN_ERRORS.has(name) ? message : `${name}: ${message}`;
    // A wrapper that already says its cause's message ("controller pods failed: <cause>") need not say it twice.
    if (parts.length === 0 || !parts[parts.length - 1]!.includes(message)) parts.push(oneLine(text));
  }
  return parts.join(' (cause: ') + ')'.repeat(Math.max(0, parts.length - 1));
}

/**
 * What a person reading one example's lines does not need: the manager's name (one manager per example), a
 * `result` the message already says, a `false` flag, and a duration of 0 ms.
 */
function isNoise(key: string, value: unknown): boolean {
  return key === 'manager' || key === 'result' || value === false || (value === 0 && key.endsWith('Ms'));
}

const BUILT_IN_ERRORS = new Set([
  'Error',
  'TypeError',
  'RangeError',
  'SyntaxError',
  'ReferenceError',
  'EvalError',
  'URIError',
  'AggregateError',
]);

function isErrorLike(value: unknown): value is { name?: string; message: string; stack?: string; cause?: unknown } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { message?: unknown }).message === 'string' &&
    (value instanceof Error || 'name' in value || 'stack' in value)
  );
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined)
    return String(value);
  try {
    return oneLine(JSON.stringify(value));
  } catch {
    return quote(String(value));
  }
}

/** A bare word as it is; anything with a space, a quote or an `=` as a JSON string. */
function quote(text: string): string {
  return /^[^\s"=]+$/.test(text) ? text : JSON.stringify(text);
}

function oneLine(text: string): string {
  return text.replace(/\r?\n/g, '\\n');
}
