/**
 * The `path` a failure of `simulate` prints, and the check that a `{ seed, path }` given back belongs together: the
 * path is fast-check's, followed by a fingerprint of the scenario it leads to.
 * @module
 */
import type { Scenario } from './scenario.js';

/** A `path` option, read: fast-check's part, and the fingerprint of the scenario it was printed for, if any. */
export interface ReplayPath {
  /** The path as given. */
  readonly text: string;
  /** fast-check's path: the run's index, then the shrink steps (`6:0:4:2`). */
  readonly fastCheck: string;
  /** The fingerprint of the scenario the path was printed for; absent in a bare fast-check path. */
  readonly fingerprint?: string;
}

/** The path to print for a counterexample: fast-check's path, `#`, the scenario's fingerprint. */
export function printReplayPath(fastCheckPath: string, scenario: Scenario): string {
  return `${fastCheckPath}#${fingerprint(scenario)}`;
}

/**
 * Reads the `path` option (with the `seed` it needs).
 *
 * # Guarantees
 * - Throws a `TypeError` for a path without a seed, and for one that is not `<n>(:<n>)*` with an optional
 *   `#<fingerprint>`, saying that seed and path do not belong together.
 */
export function readReplayPath(path: string, seed: number | undefined): ReplayPath {
  if (typeof path !== 'string')
    throw new TypeError(`simulate: path must be a string, as a failure prints it, got ${typeof path}`);
  if (seed === undefined) {
    throw new TypeError(
      `simulate: path ${JSON.stringify(path)} needs the seed it was printed with: pass { seed, path } as the failure printed them`,
    );
  }
  const match = /^(\d+(?::\d+)*)(?:#([0-9a-f]{8}))?$/.exec(path);
  if (match === null)
    throw notTogether(seed, path, 'it is not a path a failure prints (`<run>:<shrink steps>#<fingerprint>`)');
  return { text: path, fastCheck: match[1]!, ...(match[2] !== undefined ? { fingerprint: match[2] } : {}) };
}

/** The clear error for a `{ seed, path }` that do not belong together, with `why`. */
export function notTogether(seed: number, path: string, why: string): TypeError {
  return new TypeError(
    `simulate: seed ${seed} and path ${JSON.stringify(path)} do not belong together: ${why}. Pass the seed and path a failure ` +
      'printed, with the options of the run that printed it (workload, faults, duration); or leave out path to search again',
  );
}

/** Eight hex digits that tell scenarios apart: FNV-1a over the scenario's JSON. */
export function fingerprint(scenario: Scenario): string {
  const text = JSON.stringify(scenario);
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}
