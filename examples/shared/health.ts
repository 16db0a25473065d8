/**
 * What every example prints about its informer's health, so a person watching the output knows when the workers
 * start and why nothing happens while the cluster cannot be reached.
 * @module
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { defer, filter, finalize, ignoreElements, merge, take, tap, type Observable } from 'rxjs';
import { claimHealth } from '../../src/extend.js';
import type { Informer } from '../../src/index.js';

/** How the lines name the watched resource. */
export interface HealthNames {
  /** The kind, as in `Pod cache synced; starting workers`. */
  readonly kind: string;
  /** The plural, as in `Error watching pods: …`. */
  readonly plural: string;
}

/**
 * Prints `<Kind> cache synced; starting workers` once, and one `Error watching <plural>: …` line per distinct
 * connection failure (with the retry delay) until the watch is up again.
 *
 * # Guarantees
 * - Never emits and never errors; subscribe it before the controller, so its lines come first.
 * - A failure that repeats while the watch stays down prints once; a recovered watch may report it again.
 */
export function healthLines<T extends KubernetesObject>(
  informer: Informer<T>,
  names: HealthNames,
  print: (line: string) => void,
): Observable<never> {
  return merge(
    informer.synced$.pipe(
      filter(Boolean),
      take(1),
      tap(() => print(`${names.kind} cache synced; starting workers`)),
    ),
    watchErrorLines(informer, names.plural, print),
  ).pipe(ignoreElements());
}

/**
 * The `Error watching <plural>: …` lines of {@link healthLines} alone, for a controller that watches several
 * resources and says once that all its caches have synced.
 *
 * # Guarantees
 * - Never emits and never errors; one line per distinct connection failure until the watch is up again.
 * - While subscribed it claims the informer's own health reporting (`claimHealth`), so the failure is printed once,
 *   in this line, and not also as a `KubernetesWatchHealth` warning.
 */
export function watchErrorLines<T extends KubernetesObject>(
  informer: Pick<Informer<T>, 'status$'>,
  plural: string,
  print: (line: string) => void,
): Observable<never> {
  const reported = new Set<string>();
  return defer(() => informer.status$.pipe(finalize(claimHealth(informer)))).pipe(
    tap((status) => {
      if (status.state === 'watching') reported.clear();
      if (status.state !== 'backingOff' || reported.has(status.cause.reason)) return;
      reported.add(status.cause.reason);
      const { code, reason, message } = status.cause;
      print(
        `Error watching ${plural}: ${code === undefined ? '' : `${code} `}${reason}: ${message} (retrying in ${(status.delayMs / 1000).toFixed(1)} s)`,
      );
    }),
    ignoreElements(),
  );
}

/** The message of anything thrown: an `Error`'s message, else its string form. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
