// Prints the one summary line `N passed, N failed` from the tallies that spec/support/reporter.cjs wrote.
// Pending tests count as failures: the project forbids them, and a silent skip must not look green.
// Above that line it names each failure the tallies list, so that the end of a CI log says what failed.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
const expected = process.argv.slice(3);
let passed = 0;
let failed = 0;
const seen = new Set();
const named = [];
for (const file of readdirSync(dir)) {
  if (!file.endsWith('.json')) continue;
  const tally = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  seen.add(tally.suite);
  passed += tally.passes;
  failed += tally.failures + tally.pending;
  for (const failure of tally.failed ?? []) named.push(`${tally.suite}: ${failure}`);
}
// A suite that was expected but wrote no tally (crashed before mocha finished, or did not start) is a failure.
for (const suite of expected) {
  if (seen.has(suite)) continue;
  failed += 1;
  named.push(`${suite}: wrote no tally (it crashed, or did not start)`);
}
if (named.length > 0) console.log(`failed:\n${named.map((line) => `  - ${line}`).join('\n')}`);
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
