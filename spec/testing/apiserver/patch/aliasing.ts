/** Test helper: does a patch result share any object or array with its inputs? */

function containers(value: unknown, out: Set<object> = new Set()): Set<object> {
  if (typeof value === 'object' && value !== null) {
    out.add(value);
    for (const v of Object.values(value)) containers(v, out);
  }
  return out;
}

/** True when some object or array reachable from `result` is also reachable from one of `inputs`. */
export function sharesStructure(result: unknown, ...inputs: unknown[]): boolean {
  const seen = new Set<object>();
  for (const input of inputs) containers(input, seen);
  return [...containers(result)].some((c) => seen.has(c));
}
