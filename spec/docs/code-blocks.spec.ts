/**
 * Every ```ts block in the README, in docs/ and in the examples' guides (`examples/<name>/README.md`) is
 * type-checked as a program of its own, with `rxkube`, `rxkube/extend` and `rxkube/testing` resolved to the sources, so
 * the examples users copy cannot rot. A guide's blocks are checked as if they sat in its folder: their relative
 * imports (`./controller.js`, `../../src/index.js`) resolve there.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const root = process.cwd();
const guides = readdirSync(join(root, 'examples'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(root, 'examples', entry.name, 'README.md')))
  .map((entry) => `examples/${entry.name}/README.md`);
const documents = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  ...guides,
];

interface Block {
  readonly document: string;
  /** 1-based line of the block's first code line in its document. */
  readonly line: number;
  readonly code: string;
  /** Where the block is written, relative to the check's folder: in the document's own folder, mirrored. */
  readonly file: string;
}

function blocksOf(document: string): Block[] {
  const text = readFileSync(join(root, document), 'utf8');
  const blocks: Block[] = [];
  const fence = /^```ts\n([\s\S]*?)^```/gm;
  for (let match = fence.exec(text); match !== null; match = fence.exec(text)) {
    const line = text.slice(0, match.index).split('\n').length + 1;
    const file = join(dirname(document), `${document.replace(/[/.]/g, '_')}_${line}.ts`);
    blocks.push({ document, line, code: match[1]!, file });
  }
  return blocks;
}

describe("code blocks in the README, docs/ and the examples' guides", function () {
  this.timeout(120_000);
  const blocks = documents.flatMap(blocksOf);
  const dir = join(root, `.code-blocks-${process.pid}`);
  let diagnostics = new Map<string, string[]>();

  before(() => {
    mkdirSync(dir, { recursive: true });
    for (const block of blocks) {
      mkdirSync(join(dir, dirname(block.file)), { recursive: true });
      writeFileSync(join(dir, block.file), `${block.code}\nexport {};\n`);
    }
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        extends: '../tsconfig.json',
        compilerOptions: {
          noEmit: true,
          noUnusedLocals: false,
          noUnusedParameters: false,
          rootDir: '..',
          // The check's folder mirrors the repository, so a block's relative imports resolve from its document's folder.
          rootDirs: ['..', '.'],
          paths: {
            rxkube: ['../src/index.ts'],
            'rxkube/extend': ['../src/extend.ts'],
            'rxkube/testing': ['../src/testing/index.ts'],
          },
        },
        include: ['**/*.ts'],
      }),
    );
    const tsc = spawnSync(
      join(root, 'node_modules/.bin/tsc'),
      ['-p', join(dir, 'tsconfig.json'), '--pretty', 'false'],
      { encoding: 'utf8', timeout: 110_000 },
    );
    if (tsc.error) throw new Error(`tsc did not finish: ${tsc.error.message}`);
    diagnostics = new Map();
    for (const message of `${tsc.stdout}${tsc.stderr}`.split('\n').filter((l) => /error TS\d+/.test(l))) {
      const file = relative(dir, join(root, message.split('(')[0]!.trim()));
      diagnostics.set(file, [...(diagnostics.get(file) ?? []), message]);
    }
    const unattributed = [...diagnostics.keys()].filter((file) => !blocks.some((b) => b.file === file));
    expect(
      unattributed,
      `diagnostics outside any block:\n${[...diagnostics.values()].flat().join('\n')}`,
    ).to.deep.equal([]);
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it("finds the README's examples", () => {
    expect(blocks.filter((b) => b.document === 'README.md')).to.have.length.greaterThan(0);
  });

  for (const block of blocks) {
    it(`type-checks the block at ${block.document}:${block.line}`, () => {
      const errors = (diagnostics.get(block.file) ?? []).map((message) =>
        message.replace(/^[^(]*\((\d+),(\d+)\)/, (_, l, c) => `${block.document}:${block.line + Number(l) - 1}:${c}`),
      );
      expect(errors, errors.join('\n')).to.deep.equal([]);
    });
  }
});
