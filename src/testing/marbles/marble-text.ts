/**
 * Reconcile marbles as text: recorded notifications written back as a marble string, compared at the level of
 * marbles, with a legend of the letters, for `expectReconciles`' failure message.
 * @module
 */
import type { ReconcileEvent } from '../../controller/index.js';
import { describeEvent } from '../simulate/index.js';

/** One notification of a reconcile marble: a letter, the completion `|`, or an error `#`, at a frame. */
export interface MarbleEntry {
  /** The virtual time, ms. */
  readonly frame: number;
  /** The letter of an event, `|` for completion, `#` for an error. */
  readonly symbol: string;
  /** The event a letter stands for (actual entries only). */
  readonly event?: ReconcileEvent;
  /** The error of a `#` (actual entries only). */
  readonly error?: unknown;
}

/**
 * `entries` as a run-mode marble: a lone symbol takes one frame, a group `(…)` as many frames as it has characters,
 * and the time between them is written `Nms`, so two marbles of the same entries read the same.
 *
 * # Caveats
 * - An entry that comes before the previous group has ended (a group at 0 ms and an event at 1 ms) cannot be drawn
 *   in marble syntax; it is written `[at 1ms]` before its symbol.
 */
export function renderMarble(entries: readonly MarbleEntry[]): string {
  const tokens: string[] = [];
  let position = 0;
  for (let i = 0; i < entries.length; ) {
    const { frame } = entries[i]!;
    const group: string[] = [];
    for (; i < entries.length && entries[i]!.frame === frame; i++) group.push(entries[i]!.symbol);
    const gap = frame - position;
    if (gap > 0) tokens.push(`${ms(gap)}ms`);
    else if (gap < 0) tokens.push(`[at ${ms(frame)}ms]`);
    tokens.push(group.length === 1 ? group[0]! : `(${group.join('')})`);
    position = frame + (group.length === 1 ? 1 : group.length + 2);
  }
  return tokens.join(' ');
}

/** Whether the two marbles say the same: the same symbols at the same frames, in order (any error matches `#`). */
export function sameMarble(actual: readonly MarbleEntry[], expected: readonly MarbleEntry[]): boolean {
  return (
    actual.length === expected.length &&
    actual.every((entry, i) => entry.frame === expected[i]!.frame && entry.symbol === expected[i]!.symbol)
  );
}

/** The first entry where the marbles part, said in one line with the actual event, or `undefined` when they agree. */
export function firstDifference(actual: readonly MarbleEntry[], expected: readonly MarbleEntry[]): string | undefined {
  for (let i = 0; i < Math.max(actual.length, expected.length); i++) {
    const a = actual[i];
    const e = expected[i];
    if (a !== undefined && e !== undefined && a.frame === e.frame && a.symbol === e.symbol) continue;
    const wanted = e === undefined ? 'nothing more' : `${e.symbol} at ${ms(e.frame)} ms`;
    const got = a === undefined ? 'nothing more' : `${a.symbol} at ${ms(a.frame)} ms (${describeEntry(a)})`;
    return `first difference: expected ${wanted}, got ${got}`;
  }
  return undefined;
}

/** Every actual entry on a line of its own: `<ms> <symbol> <event>`, the detail behind the letters. */
export function describeEntries(entries: readonly MarbleEntry[]): string[] {
  return entries.map((entry) => `${ms(entry.frame)} ms ${entry.symbol} ${describeEntry(entry)}`);
}

/**
 * What each symbol in the marbles stands for: the default letters by event type, the letters `values` defines by
 * their pattern, `?`, `|` and `#`; only the symbols that occur.
 */
export function legend(
  symbols: Iterable<string>,
  defaults: Readonly<Record<string, string>>,
  values: Readonly<Record<string, object>>,
): string {
  const meaning = new Map<string, string>();
  for (const [type, letter] of Object.entries(defaults)) if (!meaning.has(letter)) meaning.set(letter, type);
  const lines: string[] = [];
  for (const symbol of [...new Set(symbols)].sort()) {
    if (symbol in values) lines.push(`${symbol} = ${JSON.stringify(values[symbol])}`);
    else if (symbol === '?')
      lines.push('? = an event that matches no pattern of `values` and whose own letter `values` redefines');
    else if (symbol === '|') lines.push('| = complete');
    else if (symbol === '#') lines.push('# = error');
    else lines.push(`${symbol} = ${meaning.get(symbol) ?? 'not a reconcile letter'}`);
  }
  return lines.join(', ');
}

function describeEntry(entry: MarbleEntry): string {
  if (entry.symbol === '|') return 'complete';
  if (entry.symbol === '#') return `error: ${entry.error instanceof Error ? entry.error.message : String(entry.error)}`;
  return entry.event === undefined ? entry.symbol : describeEvent(entry.event);
}

/** A frame count as written in a marble: whole numbers as they are, others to 3 decimals. */
function ms(frames: number): string {
  return Number.isInteger(frames) ? String(frames) : String(Number(frames.toFixed(3)));
}
