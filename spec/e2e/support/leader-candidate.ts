/**
 * An rxkube leader-election candidate as its own process, for the e2e specs that kill leaders:
 * `node --import tsx leader-candidate.ts '<json CandidateConfig>'`.
 *
 * It writes one JSON line per happening on stdout, in the shape the client-go candidate (test/leader-interop)
 * writes: `started`, `leading`, `following` (leadership over), `leader` (observed holder), `failed`, `released`,
 * `exited`; each with `at` (ms since epoch). SIGTERM, or the end of stdin (the spec is gone), unsubscribes, which
 * releases the Lease, then exits 0.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { leaderElection, type LeaderElectionOptions } from '../../../src/leader/index.js';

/** What the spec passes as the one argument: the Lease, the identity and the timings, and a kubeconfig file. */
export interface CandidateConfig
  extends Required<
    Pick<LeaderElectionOptions, 'namespace' | 'name' | 'identity' | 'leaseDuration' | 'renewDeadline' | 'retryPeriod'>
  > {
  readonly kubeconfig: string;
}

const emit = (event: string, fields: Record<string, unknown> = {}): void => {
  process.stdout.write(`${JSON.stringify({ event, at: Date.now(), ...fields })}\n`);
};

const config = JSON.parse(process.argv[2] ?? '{}') as CandidateConfig;
const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(config.kubeconfig);

let exiting = false;
let led = false;
const exit = (code: number): void => {
  emit('exited', { code });
  process.exit(code);
};

emit('started', { identity: config.identity, pid: process.pid, implementation: 'rxkube' });
const subscription = leaderElection(kubeConfig, {
  namespace: config.namespace,
  name: config.name,
  identity: config.identity,
  leaseDuration: config.leaseDuration,
  renewDeadline: config.renewDeadline,
  retryPeriod: config.retryPeriod,
  onLost: 'exit',
  exit,
  onEvent: (event) => {
    if (event.type === 'leader') emit('leader', { holder: event.holder });
    else if (event.type === 'failed' || event.type === 'conflict') {
      emit(event.type, { phase: event.phase, error: event.error.message });
      if (exiting && event.phase === 'release') exit(0);
    } else if (event.type === 'released') {
      emit('released');
      if (exiting) exit(0);
    }
  },
}).subscribe((leading) => {
  led ||= leading;
  emit(leading ? 'leading' : 'following');
});

/** Stops like SIGTERM: unsubscribe (which releases the Lease), then exit 0. */
const shutdown = (): void => {
  if (exiting) return;
  exiting = true;
  emit('following');
  subscription.unsubscribe();
  // A candidate that never led has nothing to release; the release is bounded by renewDeadline anyway.
  if (!led) exit(0);
  else setTimeout(() => exit(0), config.renewDeadline + 1000).unref();
};
process.once('SIGTERM', shutdown);
// The spec holds our stdin open: if it dies, even by SIGKILL, stdin ends and so do we.
process.stdin.resume().once('end', shutdown);
