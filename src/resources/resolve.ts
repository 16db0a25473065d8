/**
 * Resource resolution: kind to plural and scope, via the built-in table or discovery (cached).
 */
import {
  ApiError,
  TransportError,
  checkWarningHandler,
  getWithWarnings,
  printWarningOnce,
  transportOf,
} from '../transport/index.js';
import type { Transport, WarningHandler } from '../transport/index.js';
import { firstValueFrom, Observable, of } from 'rxjs';
import { splitApiVersion } from '../objects/index.js';
import { builtinResource } from './builtin.js';
import type { ResolvedResource } from './builtin.js';
import { groupVersionPath } from './paths.js';
import type { Connection, ResourceRef } from 'rxkube';

/** Raised when discovery succeeded but does not know the kind, or the group/version does not exist. */
export class UnknownResourceError extends Error {
  /** Always `'UnknownResourceError'`. */
  override readonly name = 'UnknownResourceError';
  constructor(
    /** The apiVersion asked for. */
    readonly apiVersion: string,
    /** The kind asked for. */
    readonly kind: string,
  ) {
    super(`unknown resource kind "${kind}" in apiVersion "${apiVersion}"`);
  }
}

interface ApiResourceEntry {
  name?: string;
  kind?: string;
  namespaced?: boolean;
}

/** Successful discovery results only, so a failed lookup is retried next time. */
const discoveryCache = new WeakMap<Transport, Map<string, ReadonlyMap<string, ResolvedResource>>>();

/**
 * Resolves a kind as an Observable over any {@link Transport}: synchronous for built-in kinds and cache hits (so
 * marble tests need no discovery script), one discovery GET otherwise.
 *
 * # Guarantees
 * - Emits once then completes, or errors with {@link UnknownResourceError} (the group/version answers 404, or it
 *   lacks the kind), or with the transport's error for anything else (retryable).
 * - Discovery results are cached per transport, and {@link kubeTransport} is one per KubeConfig. A kind the cache
 *   does not know is always asked for again, so a CRD installed after the first lookup is found on the next one.
 * - The API server's warnings on a discovery answer, a refusal's included, go to `onWarning` (default:
 *   {@link printWarningOnce}), as `GET` of the group/version path; a handler that throws is reported with
 *   `process.emitWarning`, never to the caller.
 */
export function resolveResource$(
  transport: Transport,
  ref: ResourceRef,
  onWarning: WarningHandler = printWarningOnce,
): Observable<ResolvedResource> {
  const builtin = builtinResource(ref.apiVersion, ref.kind);
  if (builtin !== undefined) return of(builtin);
  let groupVersion: { group: string; version: string };
  try {
    groupVersion = splitApiVersion(ref.apiVersion);
  } catch (err) {
    return new Observable((subscriber) => subscriber.error(err));
  }
  const cache = discoveryCache.get(transport) ?? new Map<string, ReadonlyMap<string, ResolvedResource>>();
  discoveryCache.set(transport, cache);
  const known = cache.get(ref.apiVersion)?.get(ref.kind);
  if (known !== undefined) return of(known);
  // A cached group/version without this kind may be out of date (a CRD added a kind since): ask again.
  const { group, version } = groupVersion;
  return new Observable<ResolvedResource>((subscriber) =>
    getWithWarnings(transport, groupVersionPath(group, version), {}, onWarning).subscribe({
      next: (body) => {
        try {
          const kinds = indexDiscovery(body, group, version);
          cache.set(ref.apiVersion, kinds);
          subscriber.next(pick(kinds, ref));
          subscriber.complete();
        } catch (err) {
          subscriber.error(err);
        }
      },
      error: (err: unknown) =>
        subscriber.error(
          err instanceof ApiError && err.code === 404 ? new UnknownResourceError(ref.apiVersion, ref.kind) : err,
        ),
    }),
  );
}

/** Options of {@link resolveResource}. */
export interface ResolveResourceOptions {
  /** Receives the API server's warnings on a discovery answer. Default: {@link printWarningOnce}. */
  readonly onWarning?: WarningHandler;
}

/**
 * Resolves `{ apiVersion, kind }` to `{ group, version, plural, namespaced, kind }` on a connection (a KubeConfig,
 * or any Transport such as a virtual cluster).
 *
 * # Guarantees
 * See `resolveResource$`; the discovery cache is per KubeConfig or transport (held weakly).
 *
 * Throws a `TypeError` at once when `options.onWarning` is given and is not a function.
 */
export function resolveResource(
  connection: Connection,
  ref: ResourceRef,
  options: ResolveResourceOptions = {},
): Promise<ResolvedResource> {
  checkWarningHandler('resolveResource', options.onWarning);
  return firstValueFrom(resolveResource$(transportOf(connection), ref, options.onWarning));
}

function pick(kinds: ReadonlyMap<string, ResolvedResource>, ref: ResourceRef): ResolvedResource {
  const found = kinds.get(ref.kind);
  if (found === undefined) throw new UnknownResourceError(ref.apiVersion, ref.kind);
  return found;
}

function indexDiscovery(body: unknown, group: string, version: string): ReadonlyMap<string, ResolvedResource> {
  const kinds = new Map<string, ResolvedResource>();
  const resources = (body as { resources?: unknown } | null)?.resources;
  if (!Array.isArray(resources)) {
    throw new TransportError(
      'MalformedResponse',
      `discovery of "${group === '' ? version : `${group}/${version}`}" returned no resources array`,
    );
  }
  for (const entry of resources as ApiResourceEntry[]) {
    // Subresources (`pods/status`) share the parent's kind; only the top-level collection is listable.
    if (typeof entry?.name !== 'string' || entry.name.includes('/') || typeof entry.kind !== 'string') continue;
    if (!kinds.has(entry.kind)) {
      kinds.set(entry.kind, {
        group,
        version,
        kind: entry.kind,
        plural: entry.name,
        namespaced: entry.namespaced === true,
      });
    }
  }
  return kinds;
}
