import { expect } from 'chai';
import fc from 'fast-check';
import {
  SelectorParseError,
  formatLabelSelector,
  labelSelectorFromObject,
  matchesLabels,
  parseLabelSelector,
  type LabelRequirement,
  type LabelSelector,
} from '../../src/selectors/index.js';

const NAME_RULE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
  "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const VALUE_RULE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end " +
  "with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is " +
  "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

function parseError(text: string): SelectorParseError {
  try {
    parseLabelSelector(text);
  } catch (err) {
    expect(err).to.be.instanceOf(SelectorParseError);
    return err as SelectorParseError;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

describe('parseLabelSelector', () => {
  it('parses every operator into requirements sorted by key', () => {
    expect(parseLabelSelector('h,a=b,c!=d,e in (y,x),f notin (z),!g,i==j')).to.deep.equal([
      { key: 'a', operator: 'In', values: ['b'] },
      { key: 'c', operator: 'NotIn', values: ['d'] },
      { key: 'e', operator: 'In', values: ['x', 'y'] },
      { key: 'f', operator: 'NotIn', values: ['z'] },
      { key: 'g', operator: 'DoesNotExist' },
      { key: 'h', operator: 'Exists' },
      { key: 'i', operator: 'In', values: ['j'] },
    ]);
  });

  it('treats the empty string and pure whitespace as the selector that matches everything', () => {
    expect(parseLabelSelector('')).to.deep.equal([]);
    expect(parseLabelSelector(' \t\n')).to.deep.equal([]);
  });

  it('tolerates whitespace around keys, operators, commas and parentheses', () => {
    expect(parseLabelSelector('  a = b ,\tc  in  ( x , y ) , ! d ')).to.deep.equal([
      { key: 'a', operator: 'In', values: ['b'] },
      { key: 'c', operator: 'In', values: ['x', 'y'] },
      { key: 'd', operator: 'DoesNotExist' },
    ]);
  });

  it('accepts prefixed keys and empty values the way apimachinery does', () => {
    expect(parseLabelSelector('app.kubernetes.io/name=web,x=,y in (),z in (a,,b)')).to.deep.equal([
      { key: 'app.kubernetes.io/name', operator: 'In', values: ['web'] },
      { key: 'x', operator: 'In', values: [''] },
      { key: 'y', operator: 'In', values: [''] },
      { key: 'z', operator: 'In', values: ['', 'a', 'b'] },
    ]);
  });

  it('reads the keywords in and notin as plain values inside a value list', () => {
    expect(parseLabelSelector('x in (in,notin)')).to.deep.equal([
      { key: 'x', operator: 'In', values: ['in', 'notin'] },
    ]);
  });

  it('rejects structural errors with the messages of the Go parser', () => {
    expect(parseError('a=b,').message).to.equal("found '', expected: identifier after ','");
    expect(parseError('a b').message).to.equal(
      "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt",
    );
    expect(parseError('x in (a').message).to.equal("unable to parse requirement: found '', expected: ',' or ')'");
    expect(parseError('x in a').message).to.equal("unable to parse requirement: found 'a' expected: '('");
    expect(parseError('=a').message).to.equal("found '=', expected: !, identifier, or 'end of string'");
    expect(parseError('!a=b').message).to.equal("found '=', expected: ',' or 'end of string'");
    expect(parseError('a=(').message).to.equal("unable to parse requirement: found '(', expected: identifier");
  });

  it('validates keys with a <nil> field path like labels.Parse', () => {
    expect(parseError('-a=b').message).to.equal(
      `unable to parse requirement: <nil>: Invalid value: "-a": name part ${NAME_RULE}`,
    );
    expect(parseError(`${'k'.repeat(64)}`).message).to.contain('name part must be no more than 63 characters');
    expect(parseError('Example.com/a').message).to.contain(
      'prefix part a lowercase RFC 1123 subdomain must consist of',
    );
    expect(parseError('/a').message).to.contain('prefix part must be non-empty');
    expect(parseError('a/b/c ?=? def').message).to.equal(
      `unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name ${NAME_RULE}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    );
  });

  it('validates values with the values[i][key] path', () => {
    expect(parseError('a=-b').message).to.equal(
      `unable to parse requirement: values[0][a]: Invalid value: "-b": ${VALUE_RULE}`,
    );
    expect(parseError(`a=${'v'.repeat(64)}`).message).to.contain('must be no more than 63 characters');
  });

  it('rejects gt and lt, which rxkube does not represent, with a clear message', () => {
    expect(parseError('a>1').message).to.contain("operator 'gt' (>) is valid in Kubernetes but not supported");
    expect(parseError('a<x').message).to.contain("for 'Gt', 'Lt' operators, the value must be an integer");
  });

  it('records the offending input on the error', () => {
    expect(parseError('a b').input).to.equal('a b');
  });

  it('rejects a non-string input with a clear error instead of a TypeError', () => {
    expect(() => parseLabelSelector(undefined as unknown as string)).to.throw(SelectorParseError, 'must be a string');
  });
});

describe('matchesLabels', () => {
  const labels = { app: 'web', tier: 'front' };

  it('matches In and equality only when the key is present with a listed value', () => {
    expect(matchesLabels(parseLabelSelector('app=web'), labels)).to.equal(true);
    expect(matchesLabels(parseLabelSelector('app in (db,web)'), labels)).to.equal(true);
    expect(matchesLabels(parseLabelSelector('app=db'), labels)).to.equal(false);
    expect(matchesLabels(parseLabelSelector('missing='), labels)).to.equal(false);
  });

  it('matches NotIn and != on objects without the key', () => {
    expect(matchesLabels(parseLabelSelector('env!=prod'), labels)).to.equal(true);
    expect(matchesLabels(parseLabelSelector('env notin (prod)'), undefined)).to.equal(true);
    expect(matchesLabels(parseLabelSelector('app!=web'), labels)).to.equal(false);
  });

  it('tests presence for Exists and DoesNotExist', () => {
    expect(matchesLabels(parseLabelSelector('tier,!env'), labels)).to.equal(true);
    expect(matchesLabels(parseLabelSelector('env'), labels)).to.equal(false);
    expect(matchesLabels(parseLabelSelector('!app'), labels)).to.equal(false);
  });

  it('matches everything with the empty selector, including objects without labels', () => {
    expect(matchesLabels([], undefined)).to.equal(true);
  });

  it('does not mistake inherited object properties for labels', () => {
    expect(matchesLabels(parseLabelSelector('constructor'), {})).to.equal(false);
    expect(matchesLabels(parseLabelSelector('!toString'), {})).to.equal(true);
  });
});

describe('labelSelectorFromObject', () => {
  it('converts matchLabels and matchExpressions into sorted requirements', () => {
    expect(
      labelSelectorFromObject({
        matchLabels: { tier: 'front' },
        matchExpressions: [
          { key: 'app', operator: 'In', values: ['web', 'api', 'web'] },
          { key: 'env', operator: 'NotIn', values: ['prod'] },
          { key: 'zone', operator: 'Exists' },
          { key: 'gpu', operator: 'DoesNotExist', values: [] },
        ],
      }),
    ).to.deep.equal([
      { key: 'app', operator: 'In', values: ['api', 'web'] },
      { key: 'env', operator: 'NotIn', values: ['prod'] },
      { key: 'gpu', operator: 'DoesNotExist' },
      { key: 'tier', operator: 'In', values: ['front'] },
      { key: 'zone', operator: 'Exists' },
    ]);
  });

  it('treats an empty selector object as matching everything', () => {
    expect(labelSelectorFromObject({})).to.deep.equal([]);
  });

  it('rejects an unknown operator with the LabelSelectorAsSelector message', () => {
    expect(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'in', values: ['x'] }] })).to.throw(
      SelectorParseError,
      '"in" is not a valid label selector operator',
    );
  });

  it('rejects wrong value counts and invalid keys with NewRequirement field errors', () => {
    expect(() => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In' }] })).to.throw(
      SelectorParseError,
      "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    );
    expect(() =>
      labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }),
    ).to.throw('values: Invalid value: []string{"x"}: values set must be empty for exists and does not exist');
    expect(() => labelSelectorFromObject({ matchLabels: { '-a': 'x' } })).to.throw(
      `key: Invalid value: "-a": name part ${NAME_RULE}`,
    );
  });
});

describe('formatLabelSelector', () => {
  it('writes canonical text', () => {
    expect(formatLabelSelector(parseLabelSelector('b in (y,x),a==1,!c,d,e notin (q),f notin (r,s)'))).to.equal(
      'a=1,b in (x,y),!c,d,e!=q,f notin (r,s)',
    );
  });

  it('refuses to write In with no values, which Kubernetes would reject', () => {
    expect(() => formatLabelSelector([{ key: 'a', operator: 'In', values: [] }])).to.throw(SelectorParseError);
  });
});

// Generators for syntactically valid keys and values.
const alnum = fc.constantFrom(...'abcXYZ019');
const inner = fc.constantFrom(...'ab9-_.');
const name = fc.tuple(alnum, fc.array(inner, { maxLength: 4 }), alnum).map(([a, mid, b]) => `${a}${mid.join('')}${b}`);
const keyArb = fc.oneof(
  name,
  fc.constantFrom('in', 'notin', 'app', 'x'),
  fc.tuple(fc.constantFrom('example.com', 'k8s.io', 'a-b.c'), name).map(([p, n]) => `${p}/${n}`),
);
const valueArb = fc.oneof(fc.constant(''), name, fc.constantFrom('in', 'notin', 'web'));
const requirementArb: fc.Arbitrary<LabelRequirement> = fc.oneof(
  fc.record({
    key: keyArb,
    operator: fc.constantFrom('In' as const, 'NotIn' as const),
    values: fc.uniqueArray(valueArb, { minLength: 1, maxLength: 3 }).map((v) => [...v].sort()),
  }),
  fc.record({ key: keyArb, operator: fc.constantFrom('Exists' as const, 'DoesNotExist' as const) }),
);
const selectorArb: fc.Arbitrary<LabelSelector> = fc
  .array(requirementArb, { maxLength: 5 })
  .map((reqs) => [...reqs].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)));
const labelsArb = fc.dictionary(fc.constantFrom('in', 'notin', 'app', 'x', 'k8s.io/a9', 'ab'), valueArb, {
  maxKeys: 5,
});

function modelMatch(selector: LabelSelector, labels: Record<string, string>): boolean {
  for (const r of selector) {
    const present = Object.keys(labels).includes(r.key);
    const value = labels[r.key];
    if (r.operator === 'Exists' && !present) return false;
    if (r.operator === 'DoesNotExist' && present) return false;
    if (r.operator === 'In' && !(present && r.values.some((v) => v === value))) return false;
    if (r.operator === 'NotIn' && present && r.values.some((v) => v === value)) return false;
  }
  return true;
}

describe('label selector properties', () => {
  it('parses formatted text back to the same selector', () => {
    fc.assert(
      fc.property(selectorArb, (selector) => {
        expect(parseLabelSelector(formatLabelSelector(selector))).to.deep.equal(selector);
      }),
      { numRuns: 300 },
    );
  });

  it('matches exactly like a straightforward model on random label maps', () => {
    fc.assert(
      fc.property(selectorArb, labelsArb, (selector, labels) => {
        expect(matchesLabels(selector, labels)).to.equal(modelMatch(selector, labels));
      }),
      { numRuns: 500 },
    );
  });
});
