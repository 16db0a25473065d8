/**
 * Short, safe descriptions of values we did not produce.
 */

/**
 * The message of anything thrown: an `Error`'s message, else its string form.
 *
 * # Guarantees
 * - Never throws, even for a value whose `toString` throws (then its `Object.prototype.toString` tag is used).
 */
export function messageOf(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message;
  try {
    return String(thrown);
  } catch {
    return Object.prototype.toString.call(thrown);
  }
}

/**
 * A short description of any value for an error message: its JSON, cut to 80 characters.
 *
 * # Guarantees
 * - Never throws: values JSON cannot encode (cycles, BigInt, hostile getters) fall back to their string form or tag.
 */
export function describeValue(value: unknown): string {
  try {
    const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  } catch {
    return Object.prototype.toString.call(value);
  }
}
