/**
 * Who says an informer's health out loud: the informer itself (its `onHealth`, or its connection's default), unless
 * a host that reports it its own way (a controller with an `onError`, a manager) has claimed it.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Connection } from '../transport/index.js';
import { defaultHealthHandler, deliverHealth, type ListWatchOptions, type WatchHealthHandler } from '../watch/index.js';
import type { Informer } from 'rxkube';

/**
 * The health reporting of one watch: the handler its reflector reports to, quiet while claimed.
 *
 * # Guarantees
 * - While at least one claim is held, nothing reaches the informer's handler; releasing twice is harmless.
 */
export class HealthClaims {
  private holders = 0;

  constructor(private readonly target: WatchHealthHandler) {}

  /** What the reflector reports to. */
  readonly handler: WatchHealthHandler = (report) => {
    if (this.holders === 0) deliverHealth(this.target, report);
  };

  claim(): () => void {
    this.holders += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holders -= 1;
    };
  }
}

/** The claims of a watch whose options are `options`, over `connection`: its `onHealth`, else the connection's default. */
export function healthClaimsFor(
  options: Pick<ListWatchOptions<never>, 'onHealth' | 'transport'>,
  connection: Connection,
): HealthClaims {
  return new HealthClaims(options.onHealth ?? defaultHealthHandler(options.transport, connection));
}

const registry = new WeakMap<object, HealthClaims>();

/** Records that `informer` reports its health through `claims`. */
export function registerHealthClaims(informer: object, claims: HealthClaims): void {
  registry.set(informer, claims);
}

/**
 * Takes over the health reporting of `informer` for a host that reports it its own way (`controller()` routing it
 * to `onError`, a program that prints its informers' `status$` in its own words): until the returned function is
 * called, the informer's own `onHealth` stays quiet, so the user hears each cause once.
 *
 * # Guarantees
 * - Claims nest: the informer reports again once every claim is released; releasing twice is harmless.
 * - An informer that reports nothing by itself (one fed by a custom source) is unaffected.
 *
 * # Caveats
 * - Claims are per watch: a claim on one view of a shared informer (`informerFactory`) quiets every view.
 */
export function claimHealth(informer: Informer<KubernetesObject> | object): () => void {
  return registry.get(informer)?.claim() ?? (() => {});
}
