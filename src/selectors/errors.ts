/** Error type shared by the label and field selector parsers. */

/**
 * Thrown when a label or field selector (text or `V1LabelSelector` object) is malformed.
 *
 * # Guarantees
 * - `message` is the text kube-apiserver's Go parser (k8s.io/apimachinery `labels.Parse` /
 *   `fields.ParseSelector`) produces for the same input, so an in-memory API server can return it verbatim in a
 *   400 `BadRequest` Status.
 * - `input` holds the offending selector text (or a JSON rendering of the selector object).
 * - `position`, for selector text, is the 0-based offset in `input` where parsing stopped: the token that was not
 *   expected (`input.length` for an early end), the requirement whose key or values are invalid, or the field
 *   selector term that is malformed.
 *
 * # Caveats
 * - Go's `%q` quoting is approximated with `JSON.stringify`; the two differ only for control and non-ASCII chars.
 */
export class SelectorParseError extends Error {
  /** Always `'SelectorParseError'`. */
  override readonly name = 'SelectorParseError';
  constructor(
    message: string,
    /** The selector that could not be parsed. */
    readonly input: string,
    /** Where in `input` parsing stopped (0-based), when it is text. */
    readonly position?: number,
  ) {
    super(message);
  }
}
