/**
 * `npm run example -- node-labeler`: the node labeler at work.
 *
 * - With no kubeconfig, it starts the embedded in-memory cluster and plays a small simulated workload against it.
 * - `--kubeconfig <path>`, or a `KUBECONFIG` environment variable, runs it against that cluster instead (no
 *   workload). It then labels real nodes: pick the prefix that marks yours, e.g. `--provider-id-prefix kind://`.
 * - `--provider-id-prefix <p>` (default `demo://`), `--label <key>=<value>` (default `rxkube.io/cloud-node=true`),
 *   `--recheck-after <seconds>` (default 30), `--workers <n>` (default 2).
 * Ctrl-C (SIGINT) or SIGTERM drains in-flight reconciles, flushes the Events and exits; a second signal exits at once.
 * @module
 */
import { parseArgs } from 'node:util';
import { Subject } from 'rxjs';
import { connectExample, exitWhenDone, onStopSignals } from '../shared/cli.js';
import { formatDelay } from './handle-node.js';
import { nodeLabeler } from './node-labeler.js';
import { DEFAULT_LABEL, DEFAULT_RECHECK_AFTER_MS, DEFAULT_WORKERS, resolveOptions, type NodeLabelerOptions, type NodeLabelerSettings } from './options.js';
import { DEMO_PROVIDER_PREFIX, runNodeWorkload } from './workload.js';

const NAME = 'node-labeler';

/** The options from the command line, checked before anything starts; a bad one exits with code 2 and says why. */
function optionsFromArgs(): {
  readonly kubeconfig: string | undefined; readonly options: NodeLabelerOptions; readonly settings: NodeLabelerSettings;
} {
  try {
    const { values } = parseArgs({
      options: {
        'kubeconfig': { type: 'string' },
        'provider-id-prefix': { type: 'string', default: DEMO_PROVIDER_PREFIX },
        'label': { type: 'string', default: `${DEFAULT_LABEL.key}=${DEFAULT_LABEL.value}` },
        'recheck-after': { type: 'string', default: String(DEFAULT_RECHECK_AFTER_MS / 1000) },
        'workers': { type: 'string', default: String(DEFAULT_WORKERS) },
      },
      strict: true,
    });
    const label = values.label!;
    const equals = label.indexOf('=');
    if (equals < 0) throw new TypeError(`--label must be <key>=<value>, got ${JSON.stringify(label)}`);
    const options: NodeLabelerOptions = {
      providerIdPrefix: values['provider-id-prefix']!,
      label: { key: label.slice(0, equals), value: label.slice(equals + 1) },
      recheckAfterMs: number('--recheck-after', values['recheck-after']!) * 1000,
      workers: number('--workers', values.workers!),
    };
    return { kubeconfig: values.kubeconfig ?? process.env.KUBECONFIG, options, settings: resolveOptions(options) };
  } catch (error) {
    console.error(`${NAME}: ${(error as Error).message}`);
    process.exit(2);
  }
}

function number(option: string, text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value)) throw new TypeError(`${option} must be a number, got ${JSON.stringify(text)}`);
  return value;
}

const { kubeconfig, options, settings: { label, providerIdPrefix, recheckAfterMs } } = optionsFromArgs();
const target = await connectExample(NAME, kubeconfig, `; labels nodes whose providerID starts with ${providerIdPrefix} ${label.key}=${label.value}`);

const stop$ = new Subject<void>();
const workloadAbort = new AbortController();
onStopSignals(NAME, () => {
  workloadAbort.abort();
  stop$.next();
});

nodeLabeler(target.kubeConfig, { ...options, stop$ }).subscribe({ complete: () => exitWhenDone(target) });

if (target.cluster) {
  runNodeWorkload(target.kubeConfig, (line) => console.log(line), workloadAbort.signal).then(
    () => {
      if (!workloadAbort.signal.aborted) {
        console.log(`workload: done; cloud-2 gets its label at a re-check (every ${formatDelay(recheckAfterMs)}); still watching, Ctrl-C to stop`);
      }
    },
    (error: unknown) => console.error(`workload: failed: ${String(error)}`),
  );
}
