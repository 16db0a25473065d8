import { parseArgs } from 'node:util';
import type { ClusterHandle } from '../cluster.js';

/** The command-line options shared by `rxkube-test-cluster` and `rxkube-control-plane`. */
export interface ClusterCliOptions {
  /** Port to listen on; 0 picks a free one. */
  readonly port: number;
  /** Where to write the kubeconfig, when given. */
  readonly kubeconfig: string | undefined;
  /** Serve TLS with a generated CA (the in-memory server's default on the command line is plain HTTP). */
  readonly tls: boolean;
  /** A bearer token to require; generated when TLS is on and none is given. */
  readonly token: string | undefined;
}

/**
 * Runs a cluster as a foreground command: start it, write the kubeconfig, print exactly one `ready <url>` line,
 * then stop cleanly on SIGINT or SIGTERM.
 *
 * # Guarantees
 * - Nothing but the `ready <url>` line is written to stdout, so scripts can wait for it with a plain line read;
 *   diagnostics go to stderr.
 * - A second signal while stopping forces an immediate exit, so a stuck shutdown never traps the terminal.
 * - Start-up failures print the reason to stderr and exit with code 1.
 */
export async function runClusterCli(
  name: string,
  argv: readonly string[],
  start: (options: ClusterCliOptions) => Promise<ClusterHandle>,
): Promise<void> {
  let options: ClusterCliOptions;
  try {
    options = parseClusterCliArgs(argv);
  } catch (error) {
    process.stderr.write(`${name}: ${(error as Error).message}\n${usage(name)}`);
    process.exitCode = 2;
    return;
  }
  let cluster: ClusterHandle;
  try {
    cluster = await start(options);
    if (options.kubeconfig) await cluster.writeKubeconfig(options.kubeconfig);
  } catch (error) {
    process.stderr.write(`${name}: failed to start: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
    return;
  }
  process.stdout.write(`ready ${cluster.url}\n`);

  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      process.stderr.write(`${name}: ${signal} again, exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    process.stderr.write(`${name}: ${signal}, stopping\n`);
    cluster.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`${name}: stop failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/**
 * Parses `--port N --kubeconfig PATH --tls --token T`. Unknown flags and a non-numeric port are errors, not
 * silently ignored, so a typo never starts a cluster the caller did not ask for.
 */
export function parseClusterCliArgs(argv: readonly string[]): ClusterCliOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      port: { type: 'string', default: '0' },
      kubeconfig: { type: 'string' },
      tls: { type: 'boolean', default: false },
      token: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port must be an integer from 0 to 65535, got "${values.port}"`);
  }
  return { port, kubeconfig: values.kubeconfig, tls: values.tls ?? false, token: values.token };
}

function usage(name: string): string {
  return `usage: ${name} [--port N] [--kubeconfig PATH] [--tls] [--token TOKEN]\n`;
}
