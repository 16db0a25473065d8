/**
 * Object metadata validation with kube-apiserver's field paths and messages.
 * @module
 */
import { type FieldError, fieldInvalid, fieldRequired, isPlainObject, type ObjectMeta } from '../machinery/index.js';
import type { NameRule } from './resource.js';

const subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const label1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const label1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const qualifiedNamePart = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
/** Finalizer names that need no domain prefix. */
const standardFinalizers = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);
const labelValue = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

const messages: Record<NameRule, { max: number; pattern: RegExp; text: string }> = {
  subdomain: {
    max: 253,
    pattern: subdomain,
    text: "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  },
  label: {
    max: 63,
    pattern: label1123,
    text: "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
  },
  label1035: {
    max: 63,
    pattern: label1035,
    text: "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
  },
};

/** Problems with `name` under `rule`, as messages (empty when valid). */
export function nameProblems(rule: NameRule, name: string): string[] {
  const m = messages[rule];
  const out: string[] = [];
  if (name.length > m.max) out.push(`must be no more than ${m.max} characters`);
  if (!m.pattern.test(name)) out.push(m.text);
  return out;
}

/** apimachinery's `IsQualifiedName`: an optional DNS-subdomain prefix and `/`, then a name part of 1–63 characters. */
export function qualifiedNameProblems(key: string): string[] {
  const parts = key.split('/');
  if (parts.length > 2)
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  const name = parts[parts.length - 1]!;
  const out: string[] = [];
  if (parts.length === 2) out.push(...nameProblems('subdomain', parts[0]!).map((p) => `prefix part ${p}`));
  if (name.length === 0) out.push('name part must be non-empty');
  else if (name.length > 63) out.push('name part must be no more than 63 characters');
  if (!qualifiedNamePart.test(name)) {
    out.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    );
  }
  return out;
}

/**
 * Validates name, labels, annotations and finalizers of an object about to be stored.
 *
 * # Guarantees
 * - Field paths and messages follow apimachinery's `ValidateObjectMeta` for the checks it performs.
 */
export function validateMeta(
  meta: ObjectMeta,
  rule: NameRule,
  namespaced: boolean,
  coreFinalizerRules: boolean,
): FieldError[] {
  const errors: FieldError[] = [];
  const name = meta.name ?? '';
  if (name === '') errors.push(fieldRequired('metadata.name', 'name or generateName is required'));
  else for (const p of nameProblems(rule, name)) errors.push(fieldInvalid('metadata.name', name, p));
  if (namespaced && (meta.namespace ?? '') === '') errors.push(fieldRequired('metadata.namespace'));
  const labels = meta.labels;
  if (labels !== undefined && labels !== null) {
    if (typeof labels !== 'object' || Array.isArray(labels))
      errors.push(fieldInvalid('metadata.labels', labels, 'must be a map of strings'));
    else
      for (const [k, v] of Object.entries(labels)) {
        for (const p of qualifiedNameProblems(k)) errors.push(fieldInvalid('metadata.labels', k, p));
        if (typeof v !== 'string') errors.push(fieldInvalid(`metadata.labels`, v, 'must be a string'));
        else if (v.length > 63 || !labelValue.test(v)) {
          errors.push(
            fieldInvalid(
              'metadata.labels',
              v,
              "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
            ),
          );
        }
      }
  }
  const annotations = meta.annotations;
  if (annotations !== undefined && annotations !== null) {
    if (typeof annotations !== 'object' || Array.isArray(annotations))
      errors.push(fieldInvalid('metadata.annotations', annotations, 'must be a map of strings'));
    else
      for (const [k, v] of Object.entries(annotations)) {
        for (const p of qualifiedNameProblems(k.toLowerCase())) errors.push(fieldInvalid('metadata.annotations', k, p));
        if (typeof v !== 'string') errors.push(fieldInvalid('metadata.annotations', v, 'must be a string'));
      }
  }
  errors.push(...ownerReferenceProblems(meta.ownerReferences));
  const finalizers = meta.finalizers;
  if (finalizers !== undefined && finalizers !== null) {
    if (!Array.isArray(finalizers))
      errors.push(fieldInvalid('metadata.finalizers', finalizers, 'must be a list of strings'));
    else {
      for (const f of finalizers) {
        if (typeof f !== 'string') errors.push(fieldInvalid('metadata.finalizers', f, 'must be a string'));
        else for (const p of qualifiedNameProblems(f)) errors.push(fieldInvalid('metadata.finalizers', f, p));
      }
      // Core and apps types also run core's finalizer check, which indexes the path.
      if (coreFinalizerRules) {
        finalizers.forEach((f, i) => {
          if (typeof f === 'string' && !f.includes('/') && !standardFinalizers.has(f)) {
            errors.push(
              fieldInvalid(
                `metadata.finalizers[${i}]`,
                f,
                'name is neither a standard finalizer name nor is it fully qualified',
              ),
            );
          }
        });
      }
    }
  }
  return errors;
}

/** apimachinery's `ValidateOwnerReferences`: each reference names its owner fully, and at most one is the controller. */
function ownerReferenceProblems(references: unknown): FieldError[] {
  const field = 'metadata.ownerReferences';
  if (references === undefined || references === null) return [];
  if (!Array.isArray(references)) return [fieldInvalid(field, references, 'must be a list of owner references')];
  const errors: FieldError[] = [];
  let firstController: string | undefined;
  for (const reference of references) {
    if (!isPlainObject(reference)) {
      errors.push(fieldInvalid(field, reference, 'must be an owner reference'));
      continue;
    }
    const text = (key: string): string => (typeof reference[key] === 'string' ? (reference[key] as string) : '');
    const apiVersion = text('apiVersion');
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    if (version === '') errors.push(fieldInvalid(`${field}.apiVersion`, apiVersion, 'version must not be empty'));
    for (const key of ['kind', 'name', 'uid']) {
      if (text(key) === '') errors.push(fieldInvalid(`${field}.${key}`, text(key), 'must not be empty'));
    }
    if (reference['controller'] !== true) continue;
    const controller = `${text('kind')}/${text('name')}`;
    if (firstController === undefined) firstController = controller;
    else {
      errors.push(
        fieldInvalid(
          field,
          references,
          `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${controller}`,
        ),
      );
    }
  }
  return errors;
}
