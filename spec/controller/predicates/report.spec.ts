import { expect } from 'chai';
import { config } from 'rxjs';
import { reportError } from '../../../src/controller/predicates/index.js';

describe('reportError', () => {
  let savedHandler: typeof config.onUnhandledError;
  let savedEmit: typeof process.emitWarning;
  let warnings: unknown[];

  beforeEach(() => {
    savedHandler = config.onUnhandledError;
    savedEmit = process.emitWarning;
    warnings = [];
    config.onUnhandledError = null;
    process.emitWarning = ((warning: unknown) => {
      warnings.push(warning);
    }) as typeof process.emitWarning;
  });

  afterEach(() => {
    config.onUnhandledError = savedHandler;
    process.emitWarning = savedEmit;
  });

  it('hands the error to the given handler and nowhere else', () => {
    const seen: Error[] = [];
    const error = new Error('e');
    reportError(error, (e) => seen.push(e));
    expect(seen).to.deep.equal([error]);
    expect(warnings).to.deep.equal([]);
  });

  it('falls back to config.onUnhandledError when the handler throws', () => {
    const seen: unknown[] = [];
    config.onUnhandledError = (e) => seen.push(e);
    const error = new Error('e');
    reportError(error, () => {
      throw new Error('handler broke');
    });
    expect(seen).to.deep.equal([error]);
  });

  it('emits a process warning when nothing else takes the error', () => {
    const error = new Error('e');
    reportError(error);
    config.onUnhandledError = () => {
      throw new Error('also broken');
    };
    reportError(error);
    expect(warnings).to.deep.equal([error, error]);
  });
});
