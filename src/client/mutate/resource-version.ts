/**
 * Ordering resourceVersions, as `k8s.io/apimachinery/pkg/util/resourceversion.CompareResourceVersion` does: to
 * tell whether an informer's copy of an object is newer than the version a write failed against.
 */

/** A resourceVersion that can be compared: a positive decimal integer without leading zeros. */
function isWellFormed(rv: string): boolean {
  return /^[1-9][0-9]*$/.test(rv);
}

/**
 * -1, 0 or 1 as `a` is older than, equal to or newer than `b`; `undefined` when either is not a well-formed
 * resourceVersion.
 *
 * # Guarantees
 * - The same order as kube-apiserver's (KEP-5504): integers of any length, compared by length then digits.
 *
 * # Caveats
 * - Only two versions of the same resource compare meaningfully. Servers that are not etcd-backed may use opaque
 *   versions: those never compare (`undefined`), and callers must then assume nothing.
 */
export function compareResourceVersions(a: string | undefined, b: string | undefined): -1 | 0 | 1 | undefined {
  if (a === undefined || b === undefined || !isWellFormed(a) || !isWellFormed(b)) return undefined;
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a === b ? 0 : a < b ? -1 : 1;
}
