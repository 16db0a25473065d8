/**
 * KEP-5866 shard selectors as text: the parser and formatter of kube-apiserver 1.36's `shardSelector` parameter
 * (`k8s.io/apiserver/pkg/sharding.Parse` and the selector's `String`).
 * @module
 */
import { hashSpaceEnd, hexLess, type ShardRange } from './ranges.js';

/**
 * A shard selector the server would refuse. `message` is kube-apiserver's own wording for the same input (CEL
 * syntax errors excepted: those keep the server's `CEL parse error: ` prefix with our own description); the server
 * answers it as HTTP 500 `invalid shard selector: <message>`.
 */
export class ShardSelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShardSelectorError';
  }
}

type Token =
  | { readonly kind: 'ident'; readonly text: string }
  | { readonly kind: 'string'; readonly text: string }
  | { readonly kind: 'number'; readonly text: string; readonly type: string }
  | { readonly kind: 'punct'; readonly text: string };

/** A CEL expression node of the subset the selector grammar can meet; the rest is refused while tokenizing. */
type Expr =
  | { readonly kind: 'call'; readonly fn: string; readonly args: readonly Expr[] }
  | { readonly kind: 'ident'; readonly name: string }
  | { readonly kind: 'select'; readonly operand: Expr; readonly field: string }
  | { readonly kind: 'literal'; readonly value: string; readonly type: string };

/** cel-go's `ast.ExprKind` numbers, which the server prints in its messages. */
const kindNumber = { call: 1, ident: 3, literal: 5, select: 7 } as const;

function syntaxError(what: string): ShardSelectorError {
  return new ShardSelectorError(`CEL parse error: Syntax error: ${what}`);
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))!;
      tokens.push({ kind: 'ident', text: m[0] });
      i += m[0].length;
    } else if (/[0-9]/.test(c)) {
      const m = /^[0-9]+(\.[0-9]+)?(u|U)?/.exec(text.slice(i))!;
      const type = m[1] !== undefined ? 'float64' : m[2] !== undefined ? 'uint64' : 'int64';
      tokens.push({ kind: 'number', text: m[0], type });
      i += m[0].length;
    } else if (c === "'" || c === '"') {
      const close = text.indexOf(c, i + 1);
      const body = close < 0 ? undefined : text.slice(i + 1, close);
      if (body === undefined || body.includes('\n'))
        throw syntaxError(`token recognition error at: '${text.slice(i)}'`);
      // Escapes would need CEL's full string grammar; no bound the server accepts contains one.
      if (body.includes('\\')) throw syntaxError(`escape sequences are not supported in ${c}${body}${c}`);
      tokens.push({ kind: 'string', text: body });
      i = close + 1;
    } else if (text.startsWith('||', i) || text.startsWith('&&', i)) {
      tokens.push({ kind: 'punct', text: text.slice(i, i + 2) });
      i += 2;
    } else if ('(),.'.includes(c)) {
      tokens.push({ kind: 'punct', text: c });
      i++;
    } else {
      throw syntaxError(`token recognition error at: '${c}'`);
    }
  }
  return tokens;
}

/** Recursive descent over `or := and ('||' and)*`, `and := primary ('&&' primary)*`, calls, selects, literals. */
class Parser {
  private at = 0;
  constructor(private readonly tokens: readonly Token[]) {}

  private peek(): Token | undefined {
    return this.tokens[this.at];
  }

  private isPunct(text: string): boolean {
    const t = this.peek();
    return t?.kind === 'punct' && t.text === text;
  }

  private expect(text: string): void {
    if (!this.isPunct(text)) throw syntaxError(`missing '${text}' at '${this.peek()?.text ?? '<EOF>'}'`);
    this.at++;
  }

  parseAll(): Expr {
    const e = this.or();
    const rest = this.peek();
    if (rest !== undefined) throw syntaxError(`extraneous input '${rest.text}'`);
    return e;
  }

  private or(): Expr {
    let left = this.and();
    while (this.isPunct('||')) {
      this.at++;
      left = { kind: 'call', fn: '_||_', args: [left, this.and()] };
    }
    return left;
  }

  private and(): Expr {
    let left = this.primary();
    while (this.isPunct('&&')) {
      this.at++;
      left = { kind: 'call', fn: '_&&_', args: [left, this.primary()] };
    }
    return left;
  }

  private primary(): Expr {
    const t = this.peek();
    if (t === undefined) throw syntaxError("mismatched input '<EOF>'");
    this.at++;
    let e: Expr;
    if (t.kind === 'punct' && t.text === '(') {
      e = this.or();
      this.expect(')');
    } else if (t.kind === 'string') {
      e = { kind: 'literal', value: t.text, type: 'string' };
    } else if (t.kind === 'number') {
      e = { kind: 'literal', value: t.text, type: t.type };
    } else if (t.kind === 'ident' && (t.text === 'true' || t.text === 'false')) {
      e = { kind: 'literal', value: t.text, type: 'bool' };
    } else if (t.kind === 'ident') {
      e = this.isPunct('(') ? { kind: 'call', fn: t.text, args: this.args() } : { kind: 'ident', name: t.text };
    } else {
      throw syntaxError(`mismatched input '${t.text}'`);
    }
    while (this.isPunct('.')) {
      this.at++;
      const field = this.peek();
      if (field?.kind !== 'ident')
        throw syntaxError(`mismatched input '${field?.text ?? '<EOF>'}' expecting IDENTIFIER`);
      this.at++;
      if (this.isPunct('(')) throw syntaxError(`member call ${field.text}() is not supported in a shard selector`);
      e = { kind: 'select', operand: e, field: field.text };
    }
    return e;
  }

  private args(): Expr[] {
    this.expect('(');
    const args: Expr[] = [];
    if (this.isPunct(')')) {
      this.at++;
      return args;
    }
    for (;;) {
      args.push(this.or());
      if (this.isPunct(')')) {
        this.at++;
        return args;
      }
      this.expect(',');
    }
  }
}

function fieldPath(e: Expr): string {
  if (e.kind === 'ident') return e.name;
  if (e.kind === 'select') return `${fieldPath(e.operand)}.${e.field}`;
  throw new ShardSelectorError(
    `shardRange() first argument: expected field path (e.g. object.metadata.uid), got expression kind ${kindNumber[e.kind]}`,
  );
}

/** apiserver's `extractHexLiteral`, message for message. */
function hexLiteral(e: Expr, name: 'hexStart' | 'hexEnd'): string {
  if (e.kind !== 'literal')
    throw new ShardSelectorError(
      `${name} must be a string literal (e.g. '0xff'), got expression kind ${kindNumber[e.kind]}`,
    );
  if (e.type !== 'string') throw new ShardSelectorError(`${name} must be a string literal, got ${e.type}`);
  const s = e.value;
  if (!s.startsWith('0x')) throw new ShardSelectorError(`${name} must have '0x' prefix, got ${JSON.stringify(s)}`);
  const hex = s.slice(2);
  if (hex === '') throw new ShardSelectorError(`${name}: hex value is required after '0x'`);
  if (hex.length > 17)
    throw new ShardSelectorError(`${name}: hex value too long (${hex.length} chars, max 17): ${JSON.stringify(hex)}`);
  for (const c of hex) {
    if (!/[0-9a-f]/.test(c))
      throw new ShardSelectorError(`${name}: invalid hex character ${JSON.stringify(c)} in ${JSON.stringify(s)}`);
  }
  if (hex.length === 17) {
    if (s !== hashSpaceEnd)
      throw new ShardSelectorError(
        `${name}: 17-digit hex value must be '${hashSpaceEnd}' (2^64), got ${JSON.stringify(s)}`,
      );
  } else if (hex.length !== 16) {
    const padded = `0x${hex.padStart(16, '0')}`;
    throw new ShardSelectorError(
      `${name} must be a 0x-prefixed 16-digit hex value, got ${JSON.stringify(s)} (did you mean ${JSON.stringify(padded)}?)`,
    );
  }
  return s;
}

function shardRangeCall(args: readonly Expr[]): ShardRange {
  if (args.length !== 3) throw new ShardSelectorError(`shardRange() requires exactly 3 arguments, got ${args.length}`);
  const field = fieldPath(args[0]!);
  if (field !== 'object.metadata.uid' && field !== 'object.metadata.namespace')
    throw new ShardSelectorError(
      `unsupported field path ${JSON.stringify(field)}; supported: object.metadata.uid, object.metadata.namespace`,
    );
  const start = hexLiteral(args[1]!, 'hexStart');
  const end = hexLiteral(args[2]!, 'hexEnd');
  if (!hexLess(start, end)) throw new ShardSelectorError(`shard range start ${start} must be less than end ${end}`);
  return { field, start, end };
}

function walk(e: Expr): ShardRange[] {
  if (e.kind !== 'call')
    throw new ShardSelectorError(
      `unexpected expression kind ${kindNumber[e.kind]}; expected shardRange() call or || operator`,
    );
  if (e.fn === '_||_') return [...walk(e.args[0]!), ...walk(e.args[1]!)];
  if (e.fn === 'shardRange') return [shardRangeCall(e.args)];
  throw new ShardSelectorError(`unsupported function ${JSON.stringify(e.fn)}; only shardRange() and || are allowed`);
}

/**
 * Parses a `shardSelector` as kube-apiserver 1.36.3 does: `shardRange(object.metadata.uid, '0x…', '0x…')`, or
 * several joined by `||`, with optional parentheses.
 *
 * # Guarantees
 * - Accepts what the server accepts and refuses what it refuses, with its messages (a `ShardSelectorError`):
 *   bounds need `0x` and exactly 16 lowercase hex digits (the short `'0x0'` is refused with a "did you mean"),
 *   `0x10000000000000000` is the only 17-digit bound, `start < end`, one field for every range.
 * - The ranges come back in the order written; duplicates and overlaps are kept, as the server keeps them.
 *
 * # Caveats
 * - CEL string escapes are refused (the server would decode them); CEL syntax errors are worded by us.
 */
export function parseShardSelector(text: string): ShardRange[] {
  const trimmed = text.trim();
  if (trimmed === '')
    throw new ShardSelectorError('empty shard selector is not allowed; omit the parameter for unfiltered lists');
  const ranges = walk(new Parser(tokenize(trimmed)).parseAll());
  for (const range of ranges.slice(1)) {
    if (range.field !== ranges[0]!.field)
      throw new ShardSelectorError(
        `all shard ranges must use the same field, got ${JSON.stringify(ranges[0]!.field)} and ${JSON.stringify(range.field)}`,
      );
  }
  return ranges;
}

/**
 * Writes `ranges` in the server's normalised form, the one `ListMeta.shardInfo.selector` echoes:
 * `shardRange(object.metadata.uid, '0x…', '0x…') || …`.
 *
 * # Guarantees
 * - `formatShardSelector(parseShardSelector(s))` is what kube-apiserver echoes for `s`.
 * - Refuses, with the parser's error, ranges the server would refuse (bad bounds, mixed fields, empty list).
 */
export function formatShardSelector(ranges: readonly ShardRange[]): string {
  const text = ranges.map((r) => `shardRange(${r.field}, '${r.start}', '${r.end}')`).join(' || ');
  // One validation path: what we write must parse, so bad ranges fail here rather than at the server.
  parseShardSelector(text);
  return text;
}
