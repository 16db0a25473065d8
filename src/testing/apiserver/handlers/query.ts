/**
 * Query-parameter parsing shared by list, watch and writes, with 400s for malformed values.
 * @module
 */
import { badRequest, type FieldError, fieldForbidden, invalid } from '../machinery/index.js';

/** `true`/`1` are true, `false`/`0`/absent are false; anything else is a 400, as the real query decoder does. */
export function boolParam(query: URLSearchParams, name: string): boolean {
  const raw = query.get(name);
  if (raw === null || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw badRequest(`invalid value for ${name}: ${JSON.stringify(raw)}: must be true or false`);
}

/** A non-negative integer parameter, or undefined when absent. */
export function intParam(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^-?\d+$/.test(raw)) throw badRequest(`invalid value for ${name}: ${JSON.stringify(raw)}: must be an integer`);
  return Number(raw);
}

/** A resourceVersion parameter: undefined when absent or empty, else the integer (400 when not one). */
export function rvParam(query: URLSearchParams): number | undefined {
  const raw = query.get('resourceVersion');
  if (raw === null || raw === '') return undefined;
  if (!/^\d+$/.test(raw)) throw badRequest(`invalid resource version: ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** Throws a 422 on `ListOptions`, the way `ValidateListOptions` reports it. */
export function invalidListOptions(errors: FieldError[]): never {
  throw invalid('meta.k8s.io', 'ListOptions', '', errors);
}

/**
 * The list-options validation kube-apiserver applies (apimachinery `ValidateListOptions`), with its field paths,
 * messages and order. A `resourceVersion` with `continue` is the storage layer's 400, also checked here.
 */
export function validateListOptions(query: URLSearchParams, watch: boolean): void {
  const match = query.get('resourceVersionMatch') ?? '';
  const rv = query.get('resourceVersion') ?? '';
  const cont = query.get('continue') ?? '';
  const sendInitialEvents = query.has('sendInitialEvents');
  const errors: FieldError[] = [];
  const notSupported = (supported: string[]): FieldError => ({
    field: 'resourceVersionMatch',
    reason: 'FieldValueNotSupported',
    message: `Unsupported value: ${JSON.stringify(match)}: supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}`,
  });
  if (watch) {
    if (sendInitialEvents && match !== 'NotOlderThan') {
      errors.push(
        fieldForbidden(
          'resourceVersionMatch',
          'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
        ),
      );
    }
    if (match !== '') {
      if (!sendInitialEvents)
        errors.push(
          fieldForbidden(
            'resourceVersionMatch',
            'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
          ),
        );
      if (match !== 'NotOlderThan') errors.push(notSupported(['NotOlderThan']));
      if (cont !== '')
        errors.push(
          fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'),
        );
    }
  } else {
    if (match !== '') {
      if (rv === '')
        errors.push(
          fieldForbidden(
            'resourceVersionMatch',
            'resourceVersionMatch is forbidden unless resourceVersion is provided',
          ),
        );
      if (cont !== '')
        errors.push(
          fieldForbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'),
        );
      if (match === 'Exact' && rv === '0')
        errors.push(
          fieldForbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'),
        );
      else if (match !== 'Exact' && match !== 'NotOlderThan') errors.push(notSupported(['Exact', 'NotOlderThan', '']));
    }
    if (sendInitialEvents) errors.push(fieldForbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  if (errors.length > 0) invalidListOptions(errors);
  if (!watch && cont !== '' && rv !== '' && rv !== '0')
    throw badRequest('specifying resource version is not allowed when using continue');
}

/** True when `dryRun=All` was asked: validate and answer, but store nothing. */
export function isDryRun(query: URLSearchParams): boolean {
  const values = query.getAll('dryRun');
  for (const v of values) if (v !== 'All') throw badRequest(`Invalid dry run value: ${v}; supported values: All`);
  return values.length > 0;
}
