/** Selector options checked where they are given, before anything is sent to a server. */
import { SelectorParseError } from './errors.js';
import { parseFieldSelector } from './field-selector.js';
import { validateLabelSelectorText } from './label-parser.js';

/** The selector options of a watch, a list or a delete of a collection. */
export interface SelectorOptions {
  /** Label selector text, e.g. `app=web,tier!=db`. */
  readonly labelSelector?: unknown;
  /** Field selector text, e.g. `spec.nodeName=node-1`. */
  readonly fieldSelector?: unknown;
}

/**
 * Checks `labelSelector` and `fieldSelector` with kube-apiserver's grammar (k8s.io/apimachinery `labels.Parse` and
 * `fields.ParseSelector`) and throws a `RangeError` for the first one it would refuse with a 400.
 *
 * # Guarantees
 * - The message names `where` (the call that received it), the option, the selector, the 1-based character where
 *   parsing stopped and the server's own reason, e.g. `informer: labelSelector "app in (web" is invalid at
 *   character 12 (end of text): unable to parse requirement: found '', expected: ',' or ')'`. Its `cause` is the
 *   `SelectorParseError`, with `input` and `position`.
 * - Accepts everything the server accepts, `a>1` and `a<1` included; omitted, `undefined` and `''` selectors are
 *   fine.
 *
 * # Caveats
 * - Which fields a field selector may name depends on the kind; only the server knows (it answers 400, which the
 *   reflector treats as final).
 */
export function checkSelectors(where: string, options: SelectorOptions): void {
  check(where, 'labelSelector', options.labelSelector, validateLabelSelectorText);
  check(where, 'fieldSelector', options.fieldSelector, parseFieldSelector);
}

function check(where: string, option: string, selector: unknown, validate: (text: string) => unknown): void {
  if (selector === undefined) return;
  if (typeof selector !== 'string') throw new TypeError(`${where}: ${option} must be a string, got ${typeof selector}`);
  try {
    validate(selector);
  } catch (error) {
    if (!(error instanceof SelectorParseError)) throw error;
    throw new RangeError(
      `${where}: ${option} ${JSON.stringify(selector)} is invalid${at(selector, error.position)}: ${error.message}`,
      { cause: error },
    );
  }
}

function at(selector: string, position: number | undefined): string {
  if (position === undefined) return '';
  if (position >= selector.length) return ` at character ${selector.length + 1} (end of text)`;
  const rest = selector.slice(position);
  return ` at character ${position + 1} (${JSON.stringify(rest.length > 24 ? `${rest.slice(0, 24)}…` : rest)})`;
}
