/** Helpers of the server-side apply scenarios: apply requests, and managedFields compared field by field. */
import { expect } from 'chai';
import type { RawResponse } from './raw.js';
import type { ContractSession } from './target.js';

/** The content type of server-side apply. */
export const APPLY = 'application/apply-patch+yaml';
/** The content type of a JSON merge patch. */
export const MERGE = 'application/merge-patch+json';

/** Options of {@link apply}. */
export interface ApplyOptions {
  readonly manager?: string;
  readonly force?: boolean;
  readonly dryRun?: boolean;
  /** Apply to `<path>/status`. */
  readonly status?: boolean;
}

/** PATCHes `body` to `path` as server-side apply (query built from the options). */
export function apply(
  session: ContractSession,
  path: string,
  body: unknown,
  options: ApplyOptions = {},
): Promise<RawResponse> {
  const query = new URLSearchParams();
  if (options.manager !== undefined) query.set('fieldManager', options.manager);
  if (options.force !== undefined) query.set('force', String(options.force));
  if (options.dryRun === true) query.set('dryRun', 'All');
  const suffix = query.size > 0 ? `?${query}` : '';
  return session.raw('PATCH', `${path}${options.status === true ? '/status' : ''}${suffix}`, {
    body,
    contentType: APPLY,
  });
}

/** One managedFields entry with its `time` checked and replaced by `'<time>'`. */
export interface Entry {
  readonly manager: string;
  readonly operation: 'Apply' | 'Update';
  readonly apiVersion: string;
  readonly time?: string;
  readonly fieldsType: 'FieldsV1';
  readonly fieldsV1: unknown;
  readonly subresource?: string;
}

/**
 * The object's managedFields, each `time` (when present) asserted to be an RFC 3339 second-precision UTC stamp
 * and replaced by `'<time>'`, so entries compare field by field on both servers, presence of `time` included.
 */
export function managedFields(obj: any): Entry[] {
  const entries = (obj?.metadata?.managedFields ?? []) as Entry[];
  return entries.map((entry) => {
    if (entry.time === undefined) return entry;
    expect(entry.time, `time of ${entry.manager}`).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    return { ...entry, time: '<time>' };
  });
}

/** The one entry of `manager` with `operation` (asserts there is exactly one). */
export function entryOf(
  obj: any,
  manager: string,
  operation: 'Apply' | 'Update' = 'Apply',
  subresource?: string,
): Entry {
  const found = managedFields(obj).filter(
    (e) => e.manager === manager && e.operation === operation && e.subresource === subresource,
  );
  expect(found, `${operation} entries of ${manager}`).to.have.length(1);
  return found[0]!;
}

/** An expected entry (time `'<time>'`, or none with `untimed`). */
export function entry(
  manager: string,
  operation: 'Apply' | 'Update',
  apiVersion: string,
  fieldsV1: unknown,
  subresource?: string,
  untimed = false,
): Entry {
  return {
    manager,
    operation,
    apiVersion,
    ...(untimed ? {} : { time: '<time>' }),
    fieldsType: 'FieldsV1',
    fieldsV1,
    ...(subresource !== undefined ? { subresource } : {}),
  };
}

/** Asserts an answer's status code, printing the body when it differs. */
export function expectStatus(answer: RawResponse, code: number): void {
  expect(answer.status, answer.text).to.equal(code);
}
