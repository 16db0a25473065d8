/**
 * The README's "write your first controller" ends with a test. code-blocks.spec.ts type-checks it; this runs it: the
 * controller of step 4 and the test of step 5, as written, against the in-memory API server, so the test a newcomer
 * copies is known to pass.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = process.cwd();

/** The first ```ts block after the heading `heading`. */
function blockAfter(readme: string, heading: string): string {
  const at = readme.indexOf(`\n${heading}\n`);
  expect(at, `the README has a heading ${heading}`).to.be.greaterThan(-1);
  const block = /^```ts\n([\s\S]*?)^```/m.exec(readme.slice(at));
  expect(block, `a ts block after ${heading}`).to.not.equal(null);
  return block![1]!;
}

/** The block with `rxkube` and `rxkube/testing` imported from the sources, from a folder at the root. */
function fromSources(code: string): string {
  return code.replaceAll("from 'rxkube/testing'", "from '../src/testing/index.js'").replaceAll("from 'rxkube'", "from '../src/index.js'");
}

describe('the README\'s first controller', function () {
  this.timeout(120_000);
  const dir = join(root, `.code-blocks-readme-${process.pid}`);

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('passes the test the README writes for it', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const controller = blockAfter(readme, '### 4. Record an Event');
    const test = blockAfter(readme, '### 5. Test it');
    const declaration = /^declare function greeter\(.*$/m;
    expect(test, 'step 5 declares the greeter of step 4').to.match(declaration);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'greeter.ts'), fromSources(controller));
    writeFileSync(join(dir, 'greeter.spec.ts'), fromSources(test).replace(declaration, "import { greeter } from './greeter.js';"));
    const mocha = spawnSync(process.execPath, [join(root, 'node_modules/mocha/bin/mocha.js'),
      '--no-config', '--node-option', 'import=tsx', '--extension', 'ts', '--timeout', '20000', '--reporter', 'dot', join(dir, 'greeter.spec.ts'),
    ], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect(mocha.status, `${mocha.stdout}${mocha.stderr}`).to.equal(0);
    expect(mocha.stdout).to.match(/1 passing/);
  });
});
