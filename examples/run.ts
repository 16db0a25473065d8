/**
 * `npm run example -- <name> [options]`: runs `examples/<name>/main.ts` with the options after the name, e.g.
 * `npm run example -- node-labeler --kubeconfig ~/.kube/config`. An unknown name exits with code 2 and the list of
 * examples.
 * @module
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const examplesDir = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(examplesDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(examplesDir, entry.name, 'main.ts')))
  .map((entry) => entry.name)
  .sort();

const [name, ...rest] = process.argv.slice(2);
if (name === undefined || !available.includes(name)) {
  const said = name === undefined ? 'no example named' : `unknown example ${JSON.stringify(name)}`;
  console.error(
    `npm run example: ${said}; usage: npm run example -- <name> [options], where <name> is one of: ${available.join(', ')}`,
  );
  process.exit(2);
}
// The example parses process.argv itself (node:util parseArgs), so it must see its own options only.
process.argv.splice(2, process.argv.length - 2, ...rest);
await import(pathToFileURL(join(examplesDir, name, 'main.ts')).href);
