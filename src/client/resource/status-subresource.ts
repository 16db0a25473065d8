/**
 * Whether a resource has a status subresource, from discovery: `mutate` must send status changes there when it
 * exists, and with the rest of the object when it does not (a custom resource without `subresources.status`).
 */
import { type Observable, map, of } from 'rxjs';
import type { ResolvedResource } from '../../resources/index.js';
import { groupVersionPath } from '../../resources/index.js';
import { getWithWarnings, type Transport, type WarningHandler } from '../../transport/index.js';

/** Subresource names (`pods/status`) per group/version, per transport; only successful answers are kept. */
const known = new WeakMap<Transport, Map<string, ReadonlySet<string>>>();

/**
 * True when discovery lists `<plural>/status` for the resource's group/version.
 *
 * # Guarantees
 * - One discovery GET per transport and group/version; a failed one is not cached, so the next call asks again.
 * - Errors with the transport's error when discovery fails.
 * - The API server's warnings on the discovery answer go to `onWarning`, a refusal's included.
 *
 * # Caveats
 * - The answer is kept for the transport's lifetime: a CRD whose status subresource is added or removed later is
 *   not noticed (a kind the cached answer does not list is asked again). Set the client's `statusSubresource` where
 *   that matters.
 */
export function hasStatusSubresource$(
  transport: Transport,
  resource: ResolvedResource,
  onWarning: WarningHandler,
): Observable<boolean> {
  const groupVersion = groupVersionPath(resource.group, resource.version);
  const cache = known.get(transport) ?? new Map<string, ReadonlySet<string>>();
  known.set(transport, cache);
  const names = cache.get(groupVersion);
  if (names?.has(resource.plural)) return of(names.has(`${resource.plural}/status`));
  return getWithWarnings(transport, groupVersion, {}, onWarning).pipe(
    map((body) => {
      const resources = (body as { resources?: unknown } | null)?.resources;
      const listed = new Set<string>();
      if (Array.isArray(resources)) {
        for (const entry of resources) {
          const name = (entry as { name?: unknown } | null)?.name;
          if (typeof name === 'string') listed.add(name);
        }
      }
      cache.set(groupVersion, listed);
      return listed.has(`${resource.plural}/status`);
    }),
  );
}
