import { expect } from 'chai';
import fc from 'fast-check';
import {
  checkSelectors,
  parseFieldSelector,
  parseLabelSelector,
  SelectorParseError,
} from '../../src/selectors/index.js';

function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a throw');
}

describe('checkSelectors', () => {
  it("names the call, the option, the selector, the character where parsing stopped and the server's reason", () => {
    const cases: Array<[string, string]> = [
      [
        'app in (web',
        "labelSelector \"app in (web\" is invalid at character 12 (end of text): unable to parse requirement: found '', expected: ',' or ')'",
      ],
      [
        'app in web',
        'labelSelector "app in web" is invalid at character 8 ("web"): unable to parse requirement: found \'web\' expected: \'(\'',
      ],
      [
        'a=b c',
        "labelSelector \"a=b c\" is invalid at character 5 (\"c\"): found 'c', expected: ',' or 'end of string'",
      ],
      ['a,,b', 'labelSelector "a,,b" is invalid at character 3 (",b"): found \',\', expected: identifier after \',\''],
      [
        'ok=1,x>a',
        'labelSelector "ok=1,x>a" is invalid at character 6 ("x>a"): unable to parse requirement: values[0]: Invalid value: "a": for \'Gt\', \'Lt\' operators, the value must be an integer',
      ],
    ];
    for (const [selector, message] of cases) {
      const error = thrown(() => checkSelectors('informer', { labelSelector: selector }));
      expect(error, selector).to.be.instanceOf(RangeError);
      expect(error.message, selector).to.equal(`informer: ${message}`);
      expect(error.cause, selector).to.be.instanceOf(SelectorParseError);
    }
    expect(
      thrown(() => checkSelectors('listWatch', { fieldSelector: 'metadata.name=a,spec.nodeName' })).message,
    ).to.equal(
      "listWatch: fieldSelector \"metadata.name=a,spec.nodeName\" is invalid at character 17 (\"spec.nodeName\"): invalid selector: 'metadata.name=a,spec.nodeName'; can't understand 'spec.nodeName'",
    );
    expect(thrown(() => checkSelectors('listWatch', { labelSelector: 7 })).message).to.equal(
      'listWatch: labelSelector must be a string, got number',
    );
  });

  it('accepts what kube-apiserver accepts, the numeric comparisons rxkube cannot match included', () => {
    for (const labelSelector of [
      undefined,
      '',
      ' ',
      'app',
      '!app',
      'a=b,c!=d',
      'a==b',
      'e in (x,y),f notin (z)',
      'x in ()',
      'n>1',
      'n<3',
      'example.com/greet',
    ]) {
      expect(() => checkSelectors('informer', { labelSelector }), String(labelSelector)).not.to.throw();
    }
    for (const fieldSelector of [undefined, '', 'metadata.name=x', 'spec.nodeName!=', 'a==b,c=d\\,e']) {
      expect(() => checkSelectors('informer', { fieldSelector }), String(fieldSelector)).not.to.throw();
    }
  });

  it("points inside the text: the position is an offset of the selector, the reason Go's message unchanged", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 24 }), (text) => {
        let parseError: SelectorParseError | undefined;
        try {
          parseLabelSelector(text);
        } catch (error) {
          parseError = error as SelectorParseError;
        }
        if (parseError === undefined || /operator '(gt|lt)'/.test(parseError.message)) return;
        expect(parseError.position).to.be.within(0, text.length);
        const checked = thrown(() => checkSelectors('x', { labelSelector: text }));
        expect(checked.message.endsWith(`: ${parseError.message}`)).to.equal(true);
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 24 }), (text) => {
        try {
          parseFieldSelector(text);
        } catch (error) {
          expect((error as SelectorParseError).position).to.be.within(0, text.length);
        }
      }),
    );
  });
});
