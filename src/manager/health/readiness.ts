/**
 * Readiness from the informers' point of view: every informer synced, none failing for too long.
 */
import type { WatchStatus } from '../../watch/index.js';

interface InformerState {
  synced: boolean;
  /** Since when the informer has been failing (error or backing off since its last `watching`), if it is. */
  failingSince: number | undefined;
  cause: string | undefined;
}

/** The built-in readiness verdict: ready, or the reasons it is not. */
export interface ReadinessVerdict {
  readonly ready: boolean;
  /** One line per failing condition, e.g. `informer Pod v1: not synced`. */
  readonly reasons: readonly string[];
  /** Every check, passing or not, for `/readyz?verbose`: `[name, failure reason or undefined]`. */
  readonly checks: ReadonlyArray<readonly [string, string | undefined]>;
}

/**
 * Tracks the informers `/readyz` depends on.
 *
 * # Guarantees
 * - Ready once the manager started, while it is not stopping, when every informer has synced and none has been
 *   failing for longer than `threshold` ms. Failing starts at the first `error`, `backingOff` or `failed` after the last
 *   `watching` (so the `connecting`/`listing` of each retry does not reset it) and ends at the next `watching`.
 * - `nextChange(now)` says when the verdict may change with no new status: when a failing informer crosses the
 *   threshold.
 */
export class Readiness {
  private readonly informers = new Map<string, InformerState>();
  started = false;
  stopping = false;

  constructor(private readonly threshold: number) {}

  add(informer: string): void {
    if (!this.informers.has(informer))
      this.informers.set(informer, { synced: false, failingSince: undefined, cause: undefined });
  }

  synced(informer: string): void {
    this.add(informer);
    this.informers.get(informer)!.synced = true;
  }

  status(informer: string, status: WatchStatus, now: number): void {
    this.add(informer);
    const state = this.informers.get(informer)!;
    if (status.state === 'watching') {
      state.failingSince = undefined;
      state.cause = undefined;
    } else if (status.state === 'error' || status.state === 'backingOff' || status.state === 'failed') {
      state.failingSince ??= now;
      state.cause = `${status.cause.code === undefined ? '' : `${status.cause.code} `}${status.cause.reason}: ${status.cause.message}`;
    }
  }

  /** Whether every informer known has synced (vacuously true with none). */
  allSynced(): boolean {
    for (const state of this.informers.values()) if (!state.synced) return false;
    return true;
  }

  names(): string[] {
    return [...this.informers.keys()];
  }

  verdict(now: number): ReadinessVerdict {
    const checks: Array<readonly [string, string | undefined]> = [];
    checks.push(['started', this.started ? undefined : 'the manager has not started yet']);
    checks.push(['shutdown', this.stopping ? 'the manager is shutting down' : undefined]);
    for (const [name, state] of this.informers) {
      let failure: string | undefined;
      if (!state.synced) failure = state.cause === undefined ? 'not synced' : `not synced: ${state.cause}`;
      else if (state.failingSince !== undefined && now - state.failingSince > this.threshold) {
        failure = `failing for ${((now - state.failingSince) / 1000).toFixed(1)} s: ${state.cause ?? 'unknown'}`;
      }
      checks.push([`informer ${name}`, failure]);
    }
    const reasons = checks
      .filter(([, failure]) => failure !== undefined)
      .map(([name, failure]) => `${name}: ${failure}`);
    return { ready: reasons.length === 0, reasons, checks };
  }

  /** When the verdict changes next by the passage of time alone, if ever. */
  nextChange(now: number): number | undefined {
    let next: number | undefined;
    for (const state of this.informers.values()) {
      if (state.failingSince === undefined || !state.synced) continue;
      const at = state.failingSince + this.threshold + 1;
      if (at > now && (next === undefined || at < next)) next = at;
    }
    return next;
  }
}
