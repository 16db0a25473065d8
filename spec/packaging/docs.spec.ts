/**
 * `npm run docs` (scripts/docs.ts, tools/docs/) builds the API reference with TypeDoc. CI runs it; these checks keep
 * its set-up honest without running TypeDoc here: every entry point the package exports is documented, the tools
 * are pinned by their own lockfile, and they never ship.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join, normalize } from 'node:path';

const root = process.cwd();
const tools = join(root, 'tools', 'docs');
const json = (path: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

describe('the API reference set-up', () => {
  const pkg = json(join(root, 'package.json')) as { exports: Record<string, { import: string }>; files: string[] };
  const typedoc = json(join(tools, 'typedoc.json')) as {
    entryPoints: string[];
    out: string;
    treatWarningsAsErrors: boolean;
    validation: Record<string, boolean>;
  };

  it('documents every entry point the package exports, and nothing else', () => {
    const exported = Object.values(pkg.exports).map(({ import: file }) =>
      normalize(file.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')),
    );
    const documented = typedoc.entryPoints.map((entry) => normalize(join('tools/docs', entry)));
    expect(documented.sort()).to.deep.equal(exported.sort());
  });

  it('fails on an export without documentation or a link that does not resolve', () => {
    expect(typedoc.treatWarningsAsErrors).to.equal(true);
    expect(typedoc.validation).to.include({ notDocumented: true, invalidLink: true, notExported: true });
  });

  it('writes into a git-ignored folder', () => {
    const out = normalize(join('tools/docs', typedoc.out));
    expect(out).to.equal('docs/api');
    expect(readFileSync(join(root, '.gitignore'), 'utf8').split('\n')).to.include(`/${out}/`);
  });

  it('installs exactly the versions its lockfile pins', () => {
    const manifest = json(join(tools, 'package.json')) as { devDependencies: Record<string, string> };
    const lock = json(join(tools, 'package-lock.json')) as { packages: Record<string, { version: string }> };
    for (const [name, version] of Object.entries(manifest.devDependencies)) {
      expect(version, `${name} is pinned to one version`).to.match(/^\d+\.\d+\.\d+$/);
      expect(lock.packages[`node_modules/${name}`]?.version, `${name} in tools/docs/package-lock.json`).to.equal(
        version,
      );
    }
    expect(manifest.devDependencies.typescript, 'TypeDoc needs TypeScript 6 or older').to.match(/^[56]\./);
  });

  it('never ships the tools', () => {
    expect(pkg.files.filter((entry) => entry.startsWith('tools'))).to.deep.equal([]);
  });
});
