/**
 * The `User-Agent` rxkube sends, as client-go's `rest.DefaultKubernetesUserAgent` builds one: the program first, so
 * kube-apiserver names the writes of a program that gives no `fieldManager` after it, and audit logs can tell it
 * from any other client.
 */
import { basename } from 'node:path';

/** rxkube's version, as `package.json` says (a spec keeps the two equal). */
export const RXKUBE_VERSION = '0.1.0';

/** Go's names for Node's platforms and architectures, so the agent reads as client-go's does. */
const GO_OS: Readonly<Record<string, string>> = { win32: 'windows' };
const GO_ARCH: Readonly<Record<string, string>> = { x64: 'amd64', ia32: '386', arm: 'arm', arm64: 'arm64' };

/**
 * The running program's name, as client-go takes `os.Args[0]`: the entry script's file name without its
 * extension (`node dist/main.js` is `main`, a bin named `my-operator` is `my-operator`), `rxkube` when there is no
 * script (a REPL, `node -e`).
 *
 * # Guarantees
 * - Printable ASCII only, never a `/` or a space: anything else becomes `_`, so the whole name is the prefix
 *   kube-apiserver takes as the default field manager, and a valid header value.
 */
export function programName(entry: string | undefined = process.argv[1]): string {
  const file = entry === undefined || entry === '' ? '' : basename(entry).replace(/\.(?:[cm]?js|[cm]?ts)$/, '');
  const name = file.replace(/[^\x21-\x7e]|\//g, '_');
  return name === '' ? 'rxkube' : name;
}

/**
 * The default `User-Agent` of every request rxkube sends over HTTP: `<program>/v<rxkube version> (<os>/<arch>)
 * rxkube node/<node version>`, e.g. `my-operator/v0.1.0 (linux/amd64) rxkube node/v24.9.0`. client-go's default is
 * `<program>/<version> (<os>/<arch>) kubernetes/<commit>`.
 *
 * # Guarantees
 * - kube-apiserver records a write without a `fieldManager` under the part before the first `/`: `program` (by
 *   default {@link programName}), instead of an empty manager.
 * - A valid header value (printable ASCII).
 */
export function defaultUserAgent(program: string = programName()): string {
  const os = GO_OS[process.platform] ?? process.platform;
  const arch = GO_ARCH[process.arch] ?? process.arch;
  return `${program}/v${RXKUBE_VERSION} (${os}/${arch}) rxkube node/${process.version}`;
}

/**
 * Checks a caller's `userAgent` option: a non-empty header value (tab and printable Latin-1, as Node accepts
 * them). Throws a `TypeError` naming `where` otherwise, so a bad value fails where it is given, not at the first
 * request.
 */
export function checkUserAgent(where: string, userAgent: unknown): void {
  if (userAgent === undefined) return;
  if (typeof userAgent !== 'string' || userAgent.trim() === '' || !/^[\t\x20-\x7e\x80-\xff]+$/.test(userAgent)) {
    throw new TypeError(
      `${where}: userAgent must be a non-empty header value of printable characters, got ${JSON.stringify(userAgent)}`,
    );
  }
}
