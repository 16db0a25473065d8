import { parseArgs } from 'node:util';
import type { ClusterHandle } from '../cluster.js';

/** The command-line options shared by `rxkube-test-cluster` and `rxkube-control-plane`, plus a command's own. */
export interface ClusterCliOptions {
  /** Port to listen on; 0 picks a free one. */
  readonly port: number;
  /** Where to write the kubeconfig, when given. */
  readonly kubeconfig: string | undefined;
  /** Serve TLS with a generated CA (the in-memory server's default on the command line is plain HTTP). */
  readonly tls: boolean;
  /** A bearer token to require; generated when TLS is on and none is given. */
  readonly token: string | undefined;
  /** The command's own on/off flags ({@link ClusterCommand.switches}) by name, false unless given. */
  readonly switches: Readonly<Record<string, boolean>>;
}

/** An on/off flag of one command (`--owner-gc`), with its line of `--help`. */
export interface CliSwitch {
  /** The flag without its dashes. */
  readonly name: string;
  /** What it does and its default, one line. */
  readonly help: string;
}

/** What a cluster command is: its name, its help and its own flags. */
export interface ClusterCommand {
  /** The program name, as in `usage: <name>`. */
  readonly name: string;
  /** What the command does, the paragraph under the usage line of `--help`. */
  readonly summary: string;
  /** Its help line for `--tls`, which means something else per command. */
  readonly tlsHelp: string;
  /** Flags of this command only. */
  readonly switches?: readonly CliSwitch[];
  /** Lines of `--help` after the flags (subcommands, environment). */
  readonly notes?: readonly string[];
}

/**
 * Runs a cluster as a foreground command: start it, write the kubeconfig, print exactly one `ready <url>` line,
 * then stop cleanly on SIGINT or SIGTERM.
 *
 * # Guarantees
 * - Nothing but the `ready <url>` line is written to stdout, so scripts can wait for it with a plain line read;
 *   diagnostics go to stderr. The one exception is `--help`, which prints the help to stdout and exits 0 without
 *   starting anything.
 * - A second signal while stopping forces an immediate exit, so a stuck shutdown never traps the terminal.
 * - Start-up failures print the reason to stderr and exit with code 1; a bad flag prints the usage and exits 2.
 */
export async function runClusterCli(
  command: ClusterCommand,
  argv: readonly string[],
  start: (options: ClusterCliOptions) => Promise<ClusterHandle>,
): Promise<void> {
  const { name } = command;
  let options: ClusterCliOptions | 'help';
  try {
    options = parseClusterCliArgs(argv, command.switches);
  } catch (error) {
    process.stderr.write(`${name}: ${(error as Error).message}\n${usage(name)}\nRun ${name} --help for every flag.\n`);
    process.exitCode = 2;
    return;
  }
  if (options === 'help') {
    process.stdout.write(helpText(command));
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
 * Parses `--port N --kubeconfig PATH --tls --token T`, the command's `switches`, and `--help` (then `'help'`).
 * Unknown flags and a non-numeric port are errors, not silently ignored, so a typo never starts a cluster the caller
 * did not ask for.
 */
export function parseClusterCliArgs(
  argv: readonly string[],
  switches: readonly CliSwitch[] = [],
): ClusterCliOptions | 'help' {
  const own = Object.fromEntries(switches.map((s) => [s.name, { type: 'boolean' as const, default: false }]));
  const { values } = parseArgs({
    args: [...argv],
    options: {
      ...own,
      port: { type: 'string', default: '0' },
      kubeconfig: { type: 'string' },
      tls: { type: 'boolean', default: false },
      token: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help === true) return 'help';
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port must be an integer from 0 to 65535, got "${String(values.port)}"`);
  }
  const flags = values as Record<string, string | boolean | undefined>;
  return {
    port,
    kubeconfig: flags['kubeconfig'] as string | undefined,
    tls: flags['tls'] === true,
    token: flags['token'] as string | undefined,
    switches: Object.fromEntries(switches.map((s) => [s.name, flags[s.name] === true])),
  };
}

function usage(name: string): string {
  return `usage: ${name} [--port N] [--kubeconfig PATH] [--tls] [--token TOKEN] [flags]`;
}

/** The `--help` text: usage, summary, one line per flag, notes. */
export function helpText(command: ClusterCommand): string {
  const flags: [string, string][] = [
    ['--port N', 'port on 127.0.0.1 to listen on (default 0: a free one, shown in the ready line)'],
    ['--kubeconfig PATH', 'write a kubeconfig for kubectl and clients there before the ready line'],
    ['--tls', command.tlsHelp],
    ['--token TOKEN', 'require this bearer token on every request (the kubeconfig carries it)'],
    ...(command.switches ?? []).map((s): [string, string] => [`--${s.name}`, s.help]),
    ['--help, -h', 'print this help and exit'],
  ];
  const width = Math.max(...flags.map(([flag]) => flag.length)) + 2;
  const lines = [
    usage(command.name),
    '',
    command.summary,
    '',
    'Flags:',
    ...flags.map(([flag, help]) => `  ${flag.padEnd(width)}${help}`),
    ...(command.notes !== undefined && command.notes.length > 0 ? ['', ...command.notes] : []),
  ];
  return `${lines.join('\n')}\n`;
}
