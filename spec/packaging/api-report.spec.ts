/**
 * The public API is locked by API Extractor's reports in `api/`: a change to what `rxkube`, `rxkube/extend` or
 * `rxkube/testing` exports, or to any exported signature, fails here until the report is updated
 * (`npm run api:update`) and the difference is reviewed with the change. A new API Extractor warning (a forgotten
 * export, a link that does not resolve) is written into its report, so it fails here too.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';

describe('the public API report', function () {
  this.timeout(180_000);

  it('matches what rxkube, rxkube/extend and rxkube/testing export (npm run api:update after a reviewed change)', () => {
    // A synchronous call blocks mocha's own timeout: this one has a limit of its own, below the test's.
    const check = spawnSync('npm', ['run', '--silent', 'api:check'], { encoding: 'utf8', timeout: 170_000 });
    if (check.error) throw new Error(`npm run api:check did not finish: ${check.error.message}`);
    const output = `${check.stdout}${check.stderr}`;
    const changed = output.split('\n').filter((line) => /changed|Warning|Error/i.test(line) && !/npm warn/i.test(line));
    expect(check.status, `API Extractor reports a difference:\n${changed.join('\n')}`).to.equal(0);
  });
});
