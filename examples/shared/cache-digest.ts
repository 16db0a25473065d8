/**
 * A digest of every informer cache of an example's manager, served on its `/metrics` when the soak asks for it
 * (`RXKUBE_CACHE_DIGEST=1`), so that the soak can compare each replica's caches with the server at a checkpoint
 * without reading them object by object.
 * @module
 */
import { createHash } from 'node:crypto';
import type { KubernetesObject } from '@kubernetes/client-node';
import { Gauge, Registry } from 'prom-client';
import type { ControllerDefinition, InformerFactory, ManagerOptions } from '../../src/index.js';

/** The environment variable that turns the digest on in `runExampleManager`. */
export const CACHE_DIGEST_ENV = 'RXKUBE_CACHE_DIGEST';

/** The metric with each cache's object count, by `kind` and `namespace` (empty: every namespace). */
export const CACHE_OBJECTS_METRIC = 'rxkube_cache_objects';
/** The metric with each cache's digest (see {@link cacheDigest}), by `kind` and `namespace`. */
export const CACHE_DIGEST_METRIC = 'rxkube_cache_digest';

/** One cached (or served) object, as far as the digest reads it. */
export interface Versioned {
  readonly key: string;
  readonly resourceVersion: string;
}

/**
 * The digest of a set of objects: a number made of the first 48 bits of the SHA-256 of their sorted
 * `key resourceVersion` lines (exact in a float64, so it survives the Prometheus text format), and their count.
 *
 * # Guarantees
 * - Independent of order; two sets differ in digest unless they hold the same keys at the same resourceVersions
 *   (up to a 2^-48 chance of collision).
 */
export function cacheDigest(objects: Iterable<Versioned>): { readonly objects: number; readonly digest: number } {
  const lines = [...objects].map((o) => `${o.key} ${o.resourceVersion}\n`).sort();
  const hash = createHash('sha256');
  for (const line of lines) hash.update(line);
  return { objects: lines.length, digest: Number.parseInt(hash.digest('hex').slice(0, 12), 16) };
}

/**
 * `options` with a digest of every informer its controllers declare, served as {@link CACHE_OBJECTS_METRIC} and
 * {@link CACHE_DIGEST_METRIC} gauges in its metrics registry (a new one unless the options give one), computed at
 * each scrape from the informer's current store.
 *
 * # Caveats
 * - A scrape hashes every cached key: meant for tests and soaks, not for production scrapes of large caches.
 * - Nothing is served when the options turn metrics off.
 */
export function withCacheDigests(options: ManagerOptions): ManagerOptions {
  if (options.metrics === false) return options;
  const registry = options.metrics?.registry ?? new Registry();
  const caches = new Map<string, { kind: string; namespace: string; current: () => Iterable<[string, unknown]> }>();
  const digests = (): { labels: { kind: string; namespace: string }; objects: number; digest: number }[] =>
    [...caches.values()].map(({ kind, namespace, current }) => ({
      labels: { kind, namespace },
      ...cacheDigest(
        [...current()].map(([key, object]) => ({
          key,
          resourceVersion: (object as KubernetesObject).metadata?.resourceVersion ?? '',
        })),
      ),
    }));
  new Gauge({
    name: CACHE_OBJECTS_METRIC,
    help: 'Objects in each informer cache',
    labelNames: ['kind', 'namespace'],
    registers: [registry],
    collect() {
      this.reset();
      for (const d of digests()) this.set(d.labels, d.objects);
    },
  });
  new Gauge({
    name: CACHE_DIGEST_METRIC,
    help: 'First 48 bits of the SHA-256 of the sorted "key resourceVersion" lines of each informer cache',
    labelNames: ['kind', 'namespace'],
    registers: [registry],
    collect() {
      this.reset();
      for (const d of digests()) this.set(d.labels, d.digest);
    },
  });
  const recording = (informers: InformerFactory): InformerFactory => ({
    ...informers,
    active: informers.active,
    for: (resource, watchOptions) => {
      const informer = informers.for(resource, watchOptions);
      const namespace = watchOptions?.namespace ?? '';
      caches.set(`${resource.kind} ${namespace}`, {
        kind: resource.kind,
        namespace,
        current: () => informer.current().entries(),
      });
      return informer;
    },
  });
  const controllers: ControllerDefinition[] = options.controllers.map((definition) => ({
    ...definition,
    start: (context) => definition.start({ ...context, informers: recording(context.informers) }),
  }));
  return { ...options, controllers, metrics: { ...options.metrics, registry } };
}
