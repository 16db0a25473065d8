/**
 * How many hash ranges each live replica should hold: the arithmetic of a fair split, shared by every replica so that
 * their targets add up to the number of ranges when they see the same members.
 */

/**
 * The number of ranges `identity` should hold when `members` (its own identity among them) share `rangeCount`
 * ranges: `floor(rangeCount / members)`, plus one for the first `rangeCount mod members` members in sorted order.
 *
 * # Guarantees
 * - Replicas that see the same members compute targets that add up to exactly `rangeCount`, differing by at most
 *   one: every range has a place and none is wanted twice.
 * - `identity` counts as a member even when `members` lacks it (a replica always counts itself).
 */
export function fairShare(rangeCount: number, members: readonly string[], identity: string): number {
  const all = [...new Set([...members, identity])].sort();
  const base = Math.floor(rangeCount / all.length);
  return base + (all.indexOf(identity) < rangeCount % all.length ? 1 : 0);
}

/**
 * Which ranges to give up when holding `held` with a target of `target`: the surplus, highest ranges first.
 *
 * # Guarantees
 * - Returns `held.length - target` ranges of `held` when that is positive, else none.
 */
export function surplus(held: readonly number[], target: number): number[] {
  const extra = held.length - target;
  if (extra <= 0) return [];
  return [...held].sort((a, b) => b - a).slice(0, extra);
}
