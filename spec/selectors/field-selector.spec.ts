import { expect } from 'chai';
import fc from 'fast-check';
import {
  SelectorParseError,
  escapeFieldValue,
  formatFieldSelector,
  matchesFields,
  parseFieldSelector,
} from '../../src/selectors/index.js';

describe('parseFieldSelector', () => {
  it('parses =, == and != terms, sorted like the Go parser', () => {
    expect(parseFieldSelector('spec.nodeName!=n1,metadata.name==x,status.phase=Running')).to.deep.equal([
      { field: 'metadata.name', operator: '=', value: 'x' },
      { field: 'spec.nodeName', operator: '!=', value: 'n1' },
      { field: 'status.phase', operator: '=', value: 'Running' },
    ]);
  });

  it('treats the empty string as matching everything and skips empty terms', () => {
    expect(parseFieldSelector('')).to.deep.equal([]);
    expect(parseFieldSelector('a=b,,')).to.deep.equal([{ field: 'a', operator: '=', value: 'b' }]);
  });

  it('unescapes \\, \\= and \\\\ in values', () => {
    expect(parseFieldSelector('metadata.name=a\\,b\\=c\\\\d')).to.deep.equal([
      { field: 'metadata.name', operator: '=', value: 'a,b=c\\d' },
    ]);
  });

  it('accepts an empty value, as in spec.nodeName=', () => {
    expect(parseFieldSelector('spec.nodeName=')).to.deep.equal([{ field: 'spec.nodeName', operator: '=', value: '' }]);
  });

  it('rejects terms without an operator and bad escapes with the Go messages', () => {
    expect(() => parseFieldSelector('a=b,c')).to.throw(
      SelectorParseError,
      "invalid selector: 'a=b,c'; can't understand 'c'",
    );
    expect(() => parseFieldSelector('a=b\\x')).to.throw('invalid field selector: invalid escape sequence: \\x');
    expect(() => parseFieldSelector('a=b\\')).to.throw('invalid field selector: invalid escape sequence: \\');
    expect(() => parseFieldSelector('a=b=c')).to.throw('invalid field selector: unescaped character in value: 61');
  });
});

describe('matchesFields', () => {
  const pod: Record<string, string> = { 'metadata.name': 'p1', 'spec.nodeName': '' };
  const read = (f: string): string | undefined => pod[f];

  it('requires equality for = and inequality for !=', () => {
    expect(matchesFields(parseFieldSelector('metadata.name=p1'), read)).to.equal(true);
    expect(matchesFields(parseFieldSelector('metadata.name!=p1'), read)).to.equal(false);
    expect(matchesFields(parseFieldSelector('metadata.name=p1,spec.nodeName!=n1'), read)).to.equal(true);
  });

  it('reads an undefined field as the empty string like fields.Set', () => {
    expect(matchesFields(parseFieldSelector('status.podIP='), read)).to.equal(true);
    expect(matchesFields(parseFieldSelector('status.podIP!=x'), read)).to.equal(true);
    expect(matchesFields(parseFieldSelector('status.podIP=x'), read)).to.equal(false);
  });
});

describe('field selector properties', () => {
  it('round-trips any value through escape and parse', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.constantFrom('=' as const, '!=' as const), (value, operator) => {
        const selector = [{ field: 'metadata.name', operator, value }];
        expect(parseFieldSelector(formatFieldSelector(selector))).to.deep.equal(selector);
        expect(escapeFieldValue(value).replace(/\\(.)/g, '$1')).to.equal(value);
      }),
      { numRuns: 300 },
    );
  });
});
