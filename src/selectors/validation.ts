/** Label key/value syntax rules and their error texts, ported from k8s.io/apimachinery `util/validation`. */

const QNAME_CHAR = '[A-Za-z0-9]';
const QNAME_EXT_CHAR = '[-A-Za-z0-9_.]';
const QUALIFIED_NAME_FMT = `(${QNAME_CHAR}${QNAME_EXT_CHAR}*)?${QNAME_CHAR}`;
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const QUALIFIED_NAME_ERR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_MAX = 63;

const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MAX = 63;

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MAX = 253;

/** Go's `validation.RegexError`, including its odd double space between examples. */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  let out = `${msg} (e.g. `;
  examples.forEach((example, i) => {
    if (i > 0) out += ' or ';
    out += `'${example}', `;
  });
  return `${out}regex used for validation is '${fmt}')`;
}

const maxLenError = (n: number): string => `must be no more than ${n} characters`;
const EMPTY_ERROR = 'must be non-empty';

function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!DNS1123_SUBDOMAIN_RE.test(value))
    errs.push(regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

/**
 * Problems with a label key (`[prefix/]name`), worded as `validation.IsQualifiedName` words them.
 * An empty array means the key is valid.
 */
export function qualifiedNameErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${EMPTY_ERROR}`);
    else errs.push(...dns1123SubdomainErrors(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push(`name part ${EMPTY_ERROR}`);
  else if (name.length > QUALIFIED_NAME_MAX) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX)}`);
  if (!QUALIFIED_NAME_RE.test(name)) {
    errs.push(`name part ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

/** Problems with a label value, worded as `validation.IsValidLabelValue` words them. Empty array = valid. */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > LABEL_VALUE_MAX) errs.push(maxLenError(LABEL_VALUE_MAX));
  if (!LABEL_VALUE_RE.test(value))
    errs.push(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** Go's `%#v` for a `[]string` (what field.Invalid prints for a slice value). */
export function goStringSlice(values: readonly string[] | undefined): string {
  if (values === undefined) return '[]string(nil)';
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

/** `field.Invalid(path, value, detail).Error()`; a nil path prints as `<nil>` exactly as Go does. */
export function fieldInvalid(path: string | null, value: string, detail: string): string {
  return `${path ?? '<nil>'}: Invalid value: ${value}: ${detail}`;
}

/** `utilerrors.NewAggregate(errs).Error()`: one message as is, several as `[a, b]` (duplicates dropped). */
export function aggregate(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}
