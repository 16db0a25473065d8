/**
 * The test kit's optional peer dependencies: `fast-check` (simulations), `protobufjs` (the in-memory server's
 * protobuf) and `yaml` (its YAML apply bodies). A production install of rxkube (`npm install --omit=dev`) has none of
 * them, and nothing outside `rxkube/testing` needs them.
 *
 * Each is imported once, when `rxkube/testing` loads, if it is installed: importing the test kit never fails for a
 * missing peer, and the first use of a feature that needs one throws {@link missingPeer}'s error, which names the
 * package and the command that installs it.
 * @module
 */
import type * as FastCheck from 'fast-check';
import type Protobuf from 'protobufjs';
import type * as Yaml from 'yaml';

/** The optional peers, by package name, with what needs each (for the error). */
const PEERS = {
  'fast-check': 'simulate(), assertSimulation(), runScenario() and scenarioArbitrary()',
  protobufjs: "the in-memory API server's protobuf (application/vnd.kubernetes.protobuf)",
  yaml: "the in-memory API server's YAML apply bodies (application/apply-patch+yaml)",
} as const;

type PeerName = keyof typeof PEERS;

/**
 * Imports `name` if it is installed; `undefined` if it is not. The specifier is a variable so that bundlers and
 * the examples' image check do not take the peer for a dependency of every importer.
 */
async function importIfInstalled<T>(name: PeerName): Promise<T | undefined> {
  const specifier: string = name;
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (
      (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
      String((error as Error).message).includes(`'${name}'`)
    )
      return undefined;
    throw error;
  }
}

/**
 * The error for a missing peer: it names the package, what needs it, and the install command.
 *
 * # Guarantees
 * - The message starts with `rxkube/testing needs the package "<name>"` and holds `npm install --save-dev <name>`.
 */
export function missingPeer(name: PeerName): Error {
  return new Error(
    `rxkube/testing needs the package "${name}" for ${PEERS[name]}. It is an optional peer dependency of rxkube, ` +
      `not installed here: npm install --save-dev ${name}`,
  );
}

const fastCheck = await importIfInstalled<typeof FastCheck>('fast-check');
const protobufjs = await importIfInstalled<{ default: typeof Protobuf }>('protobufjs');
const yaml = await importIfInstalled<typeof Yaml>('yaml');

/** fast-check, or {@link missingPeer}'s error. */
export function fastCheckPeer(): typeof FastCheck {
  if (fastCheck === undefined) throw missingPeer('fast-check');
  return fastCheck;
}

/** protobufjs, or {@link missingPeer}'s error. */
export function protobufPeer(): typeof Protobuf {
  if (protobufjs === undefined) throw missingPeer('protobufjs');
  return protobufjs.default;
}

/** yaml, or {@link missingPeer}'s error. */
export function yamlPeer(): typeof Yaml {
  if (yaml === undefined) throw missingPeer('yaml');
  return yaml;
}
