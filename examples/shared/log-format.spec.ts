import { expect } from 'chai';
import { jsonLogger } from '../../src/index.js';
import { describeError, exampleLogger, textLogger } from './log-format.js';

const NOW = Date.parse('2026-01-02T03:04:05.678Z');

/** A logger of `values` on a terminal (or not), and the lines it wrote. */
function logged(values: Parameters<typeof exampleLogger>[0], tty: boolean, env: NodeJS.ProcessEnv = {}) {
  const lines: string[] = [];
  return { logger: exampleLogger(values, { tty, env, write: (line) => lines.push(line), now: () => NOW }), lines };
}

function failure(): Error {
  const cause = new Error('connect ECONNREFUSED 127.0.0.1:1');
  cause.name = 'NetworkError';
  return new Error('sync of default/web failed', { cause });
}

describe("the examples' logs", () => {
  it('writes one human line per record on a terminal, the error last and on the same line as its cause, without its stack', () => {
    const { logger, lines } = logged({ 'log-level': 'info' }, true);
    logger.error(
      {
        manager: 'pod-logger',
        controller: 'pods',
        key: 'default/web',
        attempt: 2,
        durationMs: 0,
        result: 'error',
        terminal: false,
        error: failure(),
        retryInMs: 10,
      },
      'reconcile failed',
    );
    logger.info({ informer: 'Pod v1 in default', objects: 0 }, 'informer synced');
    expect(lines).to.deep.equal([
      '03:04:05.678 ERROR reconcile failed controller=pods key=default/web attempt=2 retryInMs=10 error="sync of default/web failed (cause: NetworkError: connect ECONNREFUSED 127.0.0.1:1)"',
      '03:04:05.678 INFO  informer synced informer="Pod v1 in default" objects=0',
    ]);
  });

  it('describes the plain fields the manager makes of an error the same way, and does not repeat a cause its wrapper quotes', () => {
    expect(
      describeError({
        name: 'Error',
        message: 'outer',
        stack: 'Error: outer\n    at x',
        cause: { name: 'ApiError', message: 'inner' },
      }),
    ).to.equal('outer (cause: ApiError: inner)');
    expect(describeError(new Error('manager: controller pods failed: boom', { cause: new Error('boom') }))).to.equal(
      'manager: controller pods failed: boom',
    );
    expect(describeError('just text')).to.equal('just text');
    expect(describeError(new RangeError('workers must be an integer >= 1, got 0'))).to.equal(
      'workers must be an integer >= 1, got 0',
    );
  });

  it('adds the stacks only on request: --log-stacks, or RXKUBE_LOG_STACKS=1', () => {
    for (const [values, env] of [
      [{ 'log-stacks': true }, {}],
      [{}, { RXKUBE_LOG_STACKS: '1' }],
    ] as const) {
      const { logger, lines } = logged(values, true, env);
      logger.error({ error: failure() }, 'reconcile failed');
      expect(lines[0]).to.match(/^03:04:05\.678 ERROR reconcile failed error=/);
      expect(lines.slice(1).length).to.be.greaterThan(0);
      expect(lines.slice(1).every((line) => line.startsWith('    at '))).to.equal(true);
    }
    const { logger, lines } = logged({}, true, { RXKUBE_LOG_STACKS: '0' });
    logger.error({ error: failure() }, 'reconcile failed');
    expect(lines).to.have.length(1);
  });

  it('shows warnings and errors by default on a terminal, whose reader has the milestones on stdout; --log-level says otherwise', () => {
    const quiet = logged({}, true);
    quiet.logger.info({}, 'reconciled');
    quiet.logger.warn({}, 'not ready');
    expect(quiet.lines).to.deep.equal(['03:04:05.678 WARN  not ready']);
    const chatty = logged({ 'log-level': 'debug' }, true);
    chatty.logger.debug({}, 'lease renewed');
    expect(chatty.lines).to.deep.equal(['03:04:05.678 DEBUG lease renewed']);
  });

  it("keeps the manager's JSON lines, stacks and info records included, when stderr is not a terminal or --log-format json says so", () => {
    for (const [values, tty] of [
      [{}, false],
      [{ 'log-format': 'json' }, true],
    ] as const) {
      const { logger, lines } = logged(values, tty);
      const expected: string[] = [];
      const reference = jsonLogger({ write: (line) => expected.push(line), now: () => NOW });
      for (const target of [logger, reference]) {
        target.info({ key: 'default/web' }, 'reconciled');
        // The manager hands its logger an error's fields (redacted), stack included.
        target.error(
          { error: { name: 'Error', message: 'sync of default/web failed', stack: failure().stack } },
          'reconcile failed',
        );
      }
      expect(lines).to.deep.equal(expected);
      expect(JSON.parse(lines[1]!).error.stack).to.contain('at ');
    }
    const { logger, lines } = logged({ 'log-format': 'text' }, false);
    logger.warn({}, 'not ready');
    expect(lines).to.deep.equal(['03:04:05.678 WARN  not ready']);
  });

  it('refuses a log format or level it does not know, naming the flag', () => {
    expect(() => exampleLogger({ 'log-format': 'yaml' }, { tty: true })).to.throw(
      TypeError,
      '--log-format must be text or json, got "yaml"',
    );
    expect(() => exampleLogger({ 'log-level': 'verbose' }, { tty: true })).to.throw(
      TypeError,
      '--log-level must be debug, info, warn or error, got "verbose"',
    );
  });

  it('keeps a record on one line whatever its values hold', () => {
    const lines: string[] = [];
    const logger = textLogger({ level: 'info', stacks: false, write: (line) => lines.push(line), now: () => NOW });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    logger.info({ note: 'two\nlines', cyclic }, 'a\nmessage');
    expect(lines).to.have.length(1);
    expect(lines[0]).to.match(/^03:04:05\.678 INFO {2}a\\nmessage note="two\\nlines" cyclic=/);
  });
});
