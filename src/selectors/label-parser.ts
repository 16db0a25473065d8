/** Recursive-descent parser for label selector text, a port of k8s.io/apimachinery `labels.Parse`. */
import { SelectorParseError } from './errors.js';
import type { LabelRequirement } from './label-selector.js';
import { aggregate } from './validation.js';
import { byKey, labelKeyError, requirementErrors, type GoOperator } from './requirement.js';

type Token = 'error' | 'eos' | ')' | ',' | '!' | '==' | '=' | '>' | 'identifier' | 'in' | '<' | '!=' | 'notin' | '(';

interface Item {
  readonly tok: Token;
  readonly lit: string;
  /** Where the token starts in the text (its length for the end of string). */
  readonly pos: number;
}

/** A parse failure with Go's message and where in the text the parser stopped. */
class ParseFailure extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
}

const KEYWORDS: ReadonlyMap<string, Token> = new Map<string, Token>([
  [')', ')'],
  [',', ','],
  ['!', '!'],
  ['==', '=='],
  ['=', '='],
  ['>', '>'],
  ['in', 'in'],
  ['<', '<'],
  ['!=', '!='],
  ['notin', 'notin'],
  ['(', '('],
]);

// Go's error text lists the binary operators by their selection.Operator spelling.
const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecial = (ch: string): boolean => '=!(),><'.includes(ch);

/** Splits the text into tokens exactly where Go's Lexer does (so error messages quote the same literal). */
function lex(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos]!)) pos++;
    if (pos >= s.length) {
      items.push({ tok: 'eos', lit: '', pos });
      return items;
    }
    const start = pos;
    if (isSpecial(s[pos]!)) {
      let buffer = '';
      let last: Item | undefined;
      while (pos < s.length && isSpecial(s[pos]!)) {
        buffer += s[pos]!;
        const tok = KEYWORDS.get(buffer);
        if (tok !== undefined) last = { tok, lit: buffer, pos: start };
        else if (last !== undefined) break;
        pos++;
      }
      items.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buffer}'`, pos: start });
    } else {
      while (pos < s.length && !isSpecial(s[pos]!) && !isWhitespace(s[pos]!)) pos++;
      const word = s.slice(start, pos);
      items.push({ tok: KEYWORDS.get(word) ?? 'identifier', lit: word, pos: start });
    }
  }
}

class Parser {
  private position = 0;
  constructor(
    private readonly items: readonly Item[],
    /** Accept `a>1` and `a<1` (valid in Kubernetes) instead of refusing them as rxkube's matcher must. */
    private readonly numericComparisons = false,
  ) {}

  /** Fails at `item`, or where the parser is when no item is given. */
  private fail(message: string, item?: Item): never {
    throw new ParseFailure(message, (item ?? this.items[Math.min(this.position, this.items.length - 1)]!).pos);
  }

  /** In value context the keywords `in`/`notin` are ordinary identifiers (so `x in (in)` works). */
  lookahead(values: boolean): Item {
    return asContext(this.items[this.position]!, values);
  }

  consume(values: boolean): Item {
    return asContext(this.items[this.position++]!, values);
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(true);
      if (tok === 'identifier' || tok === '!') {
        try {
          const requirement = this.parseRequirement();
          if (requirement !== undefined) requirements.push(requirement);
        } catch (err) {
          const position = err instanceof ParseFailure ? err.position : this.items[this.position]!.pos;
          throw new ParseFailure(`unable to parse requirement: ${(err as Error).message}`, position);
        }
        const next = this.consume(true);
        if (next.tok === 'eos') return requirements;
        if (next.tok !== ',') this.fail(`found '${next.lit}', expected: ',' or 'end of string'`, next);
        const after = this.lookahead(true);
        if (after.tok !== 'identifier' && after.tok !== '!') {
          this.fail(`found '${after.lit}', expected: identifier after ','`, after);
        }
      } else if (tok === 'eos') {
        return requirements;
      } else {
        this.fail(`found '${lit}', expected: !, identifier, or 'end of string'`, this.lookahead(true));
      }
    }
  }

  /** One requirement; undefined for a numeric comparison accepted only to validate the text. */
  private parseRequirement(): LabelRequirement | undefined {
    const start = this.items[this.position]!;
    let first = this.consume(true);
    let operator: GoOperator | undefined;
    if (first.tok === '!') {
      operator = '!';
      first = this.consume(true);
    }
    if (first.tok !== 'identifier') this.fail(`found '${first.lit}', expected: identifier`, first);
    const key = first.lit;
    // Go validates the key here with a nil field path, hence the `<nil>:` prefix in its message.
    const keyErr = labelKeyError(key, null);
    if (keyErr !== undefined) this.fail(keyErr, first);
    const ahead = this.lookahead(true).tok;
    if (ahead === 'eos' || ahead === ',') operator ??= 'exists';
    if (operator === 'exists' || operator === '!') return this.requirement(key, operator, [], start);
    const op = this.parseOperator();
    const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
    return this.requirement(key, op, [...values].sort(), start);
  }

  private requirement(key: string, op: GoOperator, values: string[], start: Item): LabelRequirement | undefined {
    try {
      if (this.numericComparisons && (op === 'gt' || op === 'lt')) {
        const errs = requirementErrors(key, op, values);
        if (errs.length > 0) throw new Error(aggregate(errs));
        return undefined;
      }
      return toRequirement(key, op, values);
    } catch (err) {
      throw new ParseFailure((err as Error).message, start.pos);
    }
  }

  private parseOperator(): GoOperator {
    const item = this.consume(false);
    const { tok, lit } = item;
    switch (tok) {
      case 'in':
        return 'in';
      case 'notin':
        return 'notin';
      case '=':
        return '=';
      case '==':
        return '==';
      case '!=':
        return '!=';
      case '>':
        return 'gt';
      case '<':
        return 'lt';
      default:
        return this.fail(`found '${lit}', expected: ${BINARY_OPERATORS}`, item);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume(true);
    if (open.tok !== '(') this.fail(`found '${open.lit}' expected: '('`, open);
    const first = this.lookahead(true);
    const { tok, lit } = first;
    if (tok === 'identifier' || tok === ',') {
      const values = this.parseIdentifiersList();
      const close = this.consume(true);
      if (close.tok !== ')') this.fail(`found '${lit}', expected: ')'`, close);
      return values;
    }
    if (tok === ')') {
      this.consume(true);
      return new Set(['']);
    }
    return this.fail(`found '${lit}', expected: ',', ')' or identifier`, first);
  }

  /** Comma-separated, possibly empty identifiers: `(a,,b)` and `(,a)` contain the empty string. */
  private parseIdentifiersList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const item = this.consume(true);
      const { tok, lit } = item;
      if (tok === 'identifier') {
        values.add(lit);
        const next = this.lookahead(true);
        if (next.tok === ',') continue;
        if (next.tok === ')') return values;
        this.fail(`found '${next.lit}', expected: ',' or ')'`, next);
      } else if (tok === ',') {
        if (values.size === 0) values.add('');
        const next = this.lookahead(true).tok;
        if (next === ')') {
          values.add('');
          return values;
        }
        if (next === ',') {
          this.consume(true);
          values.add('');
        }
      } else {
        this.fail(`found '${lit}', expected: ',', or identifier`, item);
      }
    }
  }

  private parseExactValue(): Set<string> {
    const ahead = this.lookahead(true).tok;
    if (ahead === 'eos' || ahead === ',') return new Set(['']);
    const item = this.consume(true);
    if (item.tok === 'identifier') return new Set([item.lit]);
    return this.fail(`found '${item.lit}', expected: identifier`, item);
  }
}

function asContext(item: Item, values: boolean): Item {
  return values && (item.tok === 'in' || item.tok === 'notin')
    ? { tok: 'identifier', lit: item.lit, pos: item.pos }
    : item;
}

function toRequirement(key: string, op: GoOperator, values: string[]): LabelRequirement {
  const errs = requirementErrors(key, op, values);
  if (errs.length > 0) throw new Error(aggregate(errs));
  switch (op) {
    case 'in':
    case '=':
    case '==':
      return { key, operator: 'In', values };
    case 'notin':
    case '!=':
      return { key, operator: 'NotIn', values };
    case 'exists':
      return { key, operator: 'Exists' };
    case '!':
      return { key, operator: 'DoesNotExist' };
    case 'gt':
    case 'lt':
      throw new Error(
        `operator '${op}' (${op === 'gt' ? '>' : '<'}) is valid in Kubernetes but not supported by rxkube's LabelSelector`,
      );
  }
}

/**
 * Parses selector text into requirements sorted by key (stable), values sorted and de-duplicated.
 * Throws `SelectorParseError` carrying Go's message.
 */
export function parseLabelRequirements(text: string): LabelRequirement[] {
  return parseWith(text, false).sort(byKey);
}

/**
 * Checks selector text as kube-apiserver would parse it, `a>1` and `a<1` included (which rxkube's matcher cannot
 * represent). Throws `SelectorParseError` carrying Go's message and the position.
 */
export function validateLabelSelectorText(text: string): void {
  parseWith(text, true);
}

function parseWith(text: string, numericComparisons: boolean): LabelRequirement[] {
  if (typeof text !== 'string')
    throw new SelectorParseError(`a label selector must be a string, got ${typeof text}`, String(text));
  try {
    return new Parser(lex(text), numericComparisons).parse();
  } catch (err) {
    throw new SelectorParseError((err as Error).message, text, err instanceof ParseFailure ? err.position : undefined);
  }
}
