/**
 * LIST: selectors, resourceVersion semantics, and limit/continue pagination over a consistent snapshot.
 * @module
 */
import { compileFilter } from './filter.js';
import { itemsWithoutTypeMeta, represent, type Representation, toTable } from '../representation/index.js';
import { badRequest, expired, type KubeObject, tooLargeResourceVersion } from '../machinery/index.js';
import { intParam, rvParam, validateListOptions } from './query.js';
import { groupVersion, type ResourceInfo, storageKey } from '../registry/index.js';
import type { ObjectStore, Snapshot } from '../storage/index.js';

/** What a list request targets. */
export interface ListTarget {
  readonly resource: ResourceInfo;
  readonly version: string;
  /** '' lists across all namespaces (or a cluster-scoped resource). */
  readonly namespace: string;
}

interface ContinueToken {
  readonly rv: number;
  readonly start: string;
}

/** Encodes a continue token like the real one: base64 of `{"v":"meta.k8s.io/v1","rv":N,"start":"key"}`. */
export function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

function decodeContinue(token: string): ContinueToken {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (typeof parsed === 'object' && parsed !== null && 'rv' in parsed && 'start' in parsed) {
      const { rv, start } = parsed as { rv: unknown; start: unknown };
      if (typeof rv === 'number' && Number.isInteger(rv) && rv > 0 && typeof start === 'string') return { rv, start };
    }
  } catch {
    // fall through to the 400 below
  }
  throw badRequest(
    'invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
  );
}

const expiredContinue =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

function pickSnapshot(
  store: ObjectStore,
  target: ListTarget,
  query: URLSearchParams,
  limit: number,
): { snapshot: Snapshot; start: string } {
  const key = storageKey(target.resource);
  const current = store.resourceVersion;
  const token = query.get('continue');
  if (token !== null && token !== '') {
    const { rv, start } = decodeContinue(token);
    const snapshot = rv <= current ? store.snapshot(key, rv) : undefined;
    if (snapshot === undefined) throw expired(expiredContinue, { continue: encodeContinue(current, start) });
    return { snapshot, start };
  }
  const rv = rvParam(query);
  const match = query.get('resourceVersionMatch') ?? '';
  if (rv !== undefined && rv > current && rv !== 0) throw tooLargeResourceVersion(rv, current);
  const exact = rv !== undefined && rv !== 0 && (match === 'Exact' || (match === '' && limit > 0));
  const at = exact ? rv : current;
  const snapshot = store.snapshot(key, at);
  if (snapshot === undefined) throw expired('The resourceVersion for the provided list is too old.');
  return { snapshot, start: '' };
}

/**
 * Serves a LIST request and returns the response body.
 *
 * # Guarantees
 * - Pages come from one snapshot at the first page's resourceVersion, so objects changed between pages never
 *   appear twice or get skipped; a token whose snapshot was compacted away is 410 Expired with the real message
 *   and a fresh token in `metadata.continue`.
 * - `remainingItemCount` is set only when no selector is used, as the real server does.
 * - Items of a built-in kind are written without `kind` and `apiVersion`, those of a custom resource with them, as
 *   kube-apiserver does; metadata-only and Table lists carry `PartialObjectMetadata` objects, kind included.
 * - `resourceVersion` unset or "0", or with `NotOlderThan`: the current state. `Exact`, or a non-zero RV with a
 *   `limit` (legacy semantics): the state at that RV, 410 when compacted. An RV ahead of the server: 504.
 */
export function listObjects(
  nowMs: number,
  store: ObjectStore,
  target: ListTarget,
  query: URLSearchParams,
  representation: Representation,
): KubeObject {
  validateListOptions(query, false);
  // resourceVersion=0 is served from the watch cache, which ignores limit: one page with everything.
  const fromCache = query.get('resourceVersion') === '0' && (query.get('continue') ?? '') === '';
  const requested = Math.max(0, intParam(query, 'limit') ?? 0);
  const limit = fromCache ? 0 : requested;
  intParam(query, 'timeoutSeconds'); // accepted (lists are instant here) but must still parse
  const filter = compileFilter(
    target.resource,
    query.get('labelSelector') ?? undefined,
    query.get('fieldSelector') ?? undefined,
  );
  const { snapshot, start } = pickSnapshot(store, target, query, limit);
  const prefix = target.namespace === '' ? '' : `${target.namespace}/`;
  const end = prefix === '' ? undefined : `${target.namespace}0`; // '0' sorts right after '/'
  // biome-ignore lint/complexity/useMathMinMax: these are strings, compared as keys sort
  const from = start > prefix ? start : prefix;
  const apiVersion = groupVersion(target.resource.group, target.version);
  const items: KubeObject[] = [];
  let next: string | undefined;
  for (const key of snapshot.keys(from, end)) {
    const obj = snapshot.get(key);
    if (obj === undefined || !filter.matches(obj)) continue;
    if (limit > 0 && items.length === limit) {
      next = key;
      break;
    }
    items.push(obj);
  }
  const metadata: Record<string, unknown> = { resourceVersion: String(snapshot.rv) };
  if (next !== undefined) {
    metadata['continue'] = encodeContinue(snapshot.rv, next);
    if (filter.empty) metadata['remainingItemCount'] = snapshot.count(next, end);
  }
  if (representation === 'table')
    return toTable(nowMs, items, metadata, true, target.resource.kind, target.resource.custom);
  if (representation === 'metadata') {
    return {
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata,
      items: items.map((o) => represent(o, apiVersion, 'metadata')),
    };
  }
  const listed = items.map((o) => represent(o, apiVersion, 'object'));
  // kube-apiserver leaves kind and apiVersion out of a built-in kind's items (kubernetes#3030); CRs keep them.
  return {
    kind: target.resource.listKind,
    apiVersion,
    metadata,
    items: target.resource.custom ? listed : itemsWithoutTypeMeta(listed),
  };
}
