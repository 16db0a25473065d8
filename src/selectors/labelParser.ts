/** Recursive-descent parser for label selector text, a port of k8s.io/apimachinery `labels.Parse`. */
import { SelectorParseError } from './errors.js';
import type { LabelRequirement } from './labelSelector.js';
import { aggregate } from './validation.js';
import { byKey, labelKeyError, requirementErrors, type GoOperator } from './requirement.js';

type Token =
  | 'error' | 'eos' | ')' | ',' | '!' | '==' | '=' | '>' | 'identifier' | 'in' | '<' | '!=' | 'notin' | '(';

interface Item {
  readonly tok: Token;
  readonly lit: string;
}

const KEYWORDS: ReadonlyMap<string, Token> = new Map<string, Token>([
  [')', ')'], [',', ','], ['!', '!'], ['==', '=='], ['=', '='], ['>', '>'], ['in', 'in'], ['<', '<'],
  ['!=', '!='], ['notin', 'notin'], ['(', '('],
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
      items.push({ tok: 'eos', lit: '' });
      return items;
    }
    if (isSpecial(s[pos]!)) {
      let buffer = '';
      let last: Item | undefined;
      while (pos < s.length && isSpecial(s[pos]!)) {
        buffer += s[pos]!;
        const tok = KEYWORDS.get(buffer);
        if (tok !== undefined) last = { tok, lit: buffer };
        else if (last !== undefined) break;
        pos++;
      }
      items.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buffer}'` });
    } else {
      const start = pos;
      while (pos < s.length && !isSpecial(s[pos]!) && !isWhitespace(s[pos]!)) pos++;
      const word = s.slice(start, pos);
      items.push({ tok: KEYWORDS.get(word) ?? 'identifier', lit: word });
    }
  }
}

class Parser {
  private position = 0;
  constructor(private readonly items: readonly Item[]) {}

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
          requirements.push(this.parseRequirement());
        } catch (err) {
          throw new Error(`unable to parse requirement: ${(err as Error).message}`);
        }
        const next = this.consume(true);
        if (next.tok === 'eos') return requirements;
        if (next.tok !== ',') throw new Error(`found '${next.lit}', expected: ',' or 'end of string'`);
        const after = this.lookahead(true);
        if (after.tok !== 'identifier' && after.tok !== '!') {
          throw new Error(`found '${after.lit}', expected: identifier after ','`);
        }
      } else if (tok === 'eos') {
        return requirements;
      } else {
        throw new Error(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    let first = this.consume(true);
    let operator: GoOperator | undefined;
    if (first.tok === '!') {
      operator = '!';
      first = this.consume(true);
    }
    if (first.tok !== 'identifier') throw new Error(`found '${first.lit}', expected: identifier`);
    const key = first.lit;
    // Go validates the key here with a nil field path, hence the `<nil>:` prefix in its message.
    const keyErr = labelKeyError(key, null);
    if (keyErr !== undefined) throw new Error(keyErr);
    const ahead = this.lookahead(true).tok;
    if (ahead === 'eos' || ahead === ',') operator ??= 'exists';
    if (operator === 'exists' || operator === '!') return toRequirement(key, operator, []);
    const op = this.parseOperator();
    const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
    return toRequirement(key, op, [...values].sort());
  }

  private parseOperator(): GoOperator {
    const { tok, lit } = this.consume(false);
    switch (tok) {
      case 'in': return 'in';
      case 'notin': return 'notin';
      case '=': return '=';
      case '==': return '==';
      case '!=': return '!=';
      case '>': return 'gt';
      case '<': return 'lt';
      default: throw new Error(`found '${lit}', expected: ${BINARY_OPERATORS}`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume(true);
    if (open.tok !== '(') throw new Error(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead(true);
    if (tok === 'identifier' || tok === ',') {
      const values = this.parseIdentifiersList();
      if (this.consume(true).tok !== ')') throw new Error(`found '${lit}', expected: ')'`);
      return values;
    }
    if (tok === ')') {
      this.consume(true);
      return new Set(['']);
    }
    throw new Error(`found '${lit}', expected: ',', ')' or identifier`);
  }

  /** Comma-separated, possibly empty identifiers: `(a,,b)` and `(,a)` contain the empty string. */
  private parseIdentifiersList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume(true);
      if (tok === 'identifier') {
        values.add(lit);
        const next = this.lookahead(true);
        if (next.tok === ',') continue;
        if (next.tok === ')') return values;
        throw new Error(`found '${next.lit}', expected: ',' or ')'`);
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
        throw new Error(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): Set<string> {
    const ahead = this.lookahead(true).tok;
    if (ahead === 'eos' || ahead === ',') return new Set(['']);
    const { tok, lit } = this.consume(true);
    if (tok === 'identifier') return new Set([lit]);
    throw new Error(`found '${lit}', expected: identifier`);
  }
}

function asContext(item: Item, values: boolean): Item {
  return values && (item.tok === 'in' || item.tok === 'notin') ? { tok: 'identifier', lit: item.lit } : item;
}

function toRequirement(key: string, op: GoOperator, values: string[]): LabelRequirement {
  const errs = requirementErrors(key, op, values);
  if (errs.length > 0) throw new Error(aggregate(errs));
  switch (op) {
    case 'in': case '=': case '==': return { key, operator: 'In', values };
    case 'notin': case '!=': return { key, operator: 'NotIn', values };
    case 'exists': return { key, operator: 'Exists' };
    case '!': return { key, operator: 'DoesNotExist' };
    case 'gt': case 'lt':
      throw new Error(`operator '${op}' (${op === 'gt' ? '>' : '<'}) is valid in Kubernetes but not supported by rxkube's LabelSelector`);
  }
}

/**
 * Parses selector text into requirements sorted by key (stable), values sorted and de-duplicated.
 * Throws {@link SelectorParseError} carrying Go's message.
 */
export function parseLabelRequirements(text: string): LabelRequirement[] {
  if (typeof text !== 'string') throw new SelectorParseError(`a label selector must be a string, got ${typeof text}`, String(text));
  try {
    return new Parser(lex(text)).parse().sort(byKey);
  } catch (err) {
    throw new SelectorParseError((err as Error).message, text);
  }
}
