/**
 * The README's "write your first controller" ends with tests. code-blocks.spec.ts type-checks them; this runs them:
 * the controller of step 4 and the tests of step 5, as written, against the in-memory API server and in virtual time,
 * so the tests a newcomer copies are known to pass.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = process.cwd();

/** The `index`-th (from 0) ```ts block after the heading `heading`. */
function blockAfter(readme: string, heading: string, index = 0): string {
  const at = readme.indexOf(`\n${heading}\n`);
  expect(at, `the README has a heading ${heading}`).to.be.greaterThan(-1);
  const blocks = [...readme.slice(at).matchAll(/^```ts\n([\s\S]*?)^```/gm)];
  expect(blocks.length, `${index + 1} ts block(s) after ${heading}`).to.be.greaterThan(index);
  return blocks[index]![1]!;
}

/** The block with `rxkube` and `rxkube/testing` imported from the sources, from a folder two levels below the root. */
function fromSources(code: string): string {
  return code
    .replaceAll("from 'rxkube/testing'", "from '../../src/testing/index.js'")
    .replaceAll("from 'rxkube'", "from '../../src/index.js'");
}

describe("the README's first controller", function () {
  this.timeout(120_000);
  const dir = join(root, `.code-blocks-readme-${process.pid}`);

  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const [what, index] of [
    ['the test the README writes for it', 0],
    ['the virtual-time test the README writes for it', 1],
  ] as const) {
    it(`passes ${what}`, () => {
      const readme = readFileSync(join(root, 'README.md'), 'utf8');
      const controller = blockAfter(readme, '### 4. Record an Event');
      const test = blockAfter(readme, '### 5. Test it', index);
      const declaration = /^declare const greeter: .*$/m;
      expect(test, 'step 5 declares the greeter of step 4').to.match(declaration);
      const folder = join(dir, String(index));
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, 'greeter.ts'), fromSources(controller));
      writeFileSync(
        join(folder, 'greeter.spec.ts'),
        fromSources(test).replace(declaration, "import { greeter } from './greeter.js';"),
      );
      const mocha = spawnSync(
        process.execPath,
        [
          join(root, 'node_modules/mocha/bin/mocha.js'),
          '--no-config',
          '--node-option',
          'import=tsx',
          '--extension',
          'ts',
          '--timeout',
          '20000',
          '--reporter',
          'dot',
          join(folder, 'greeter.spec.ts'),
        ],
        { cwd: root, encoding: 'utf8', timeout: 60_000 },
      );
      expect(mocha.status, `${mocha.stdout}${mocha.stderr}`).to.equal(0);
      expect(mocha.stdout).to.match(/1 passing/);
    });
  }
});
