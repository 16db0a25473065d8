/**
 * What `controller()` adds for read-your-own-writes: its options, the caches it reads, and the echo filter of each
 * source. Internal to the builder.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { identity, type MonoTypeOperatorFunction } from 'rxjs';
import type { Informer, InformerEvent } from '../../informer/index.js';
import type { ResourceRef } from '../../watch/index.js';
import { ignoreOwnWrites, type OwnWrites, type ReadSource } from '../own-writes/index.js';
import type { ControllerOptions } from './controller.js';
import type { WatchSource } from './sources.js';

/** The `readYourWrites` option: on (default), off, or on with another bound. */
type ReadYourWritesOption = NonNullable<ControllerOptions<KubernetesObject>['readYourWrites']>;

/** Throws a `TypeError` or `RangeError` for a bad `readYourWrites` or `ignoreOwnWrites`. */
export function checkOwnWriteOptions(readYourWrites: unknown, filter: unknown): void {
  if (readYourWrites !== undefined && typeof readYourWrites !== 'boolean') {
    const maxWait =
      readYourWrites !== null && typeof readYourWrites === 'object'
        ? (readYourWrites as { maxWait?: unknown }).maxWait
        : null;
    if (maxWait === null)
      throw new TypeError(
        `controller: readYourWrites must be a boolean or { maxWait }, got ${readYourWrites === null ? 'null' : typeof readYourWrites}`,
      );
    if (maxWait !== undefined && !(typeof maxWait === 'number' && maxWait >= 0)) {
      throw new RangeError(
        `controller: readYourWrites.maxWait must be a number of ms >= 0 (Infinity: no bound), got ${String(maxWait)}`,
      );
    }
  }
  if (filter !== undefined && filter !== 'primary' && filter !== 'all' && filter !== 'none') {
    throw new TypeError(
      `controller: ignoreOwnWrites must be 'primary', 'all' or 'none', got ${JSON.stringify(filter)}`,
    );
  }
}

/** The `maxWait` of the option, or `undefined` (the default) / `false` (off). */
export function maxWaitOf(option: ReadYourWritesOption | undefined): number | undefined | false {
  if (option === false) return false;
  return option === undefined || option === true ? undefined : option.maxWait;
}

/** The resource reference of a source given by reference, and its watch options; `undefined` for an informer. */
export function referenceOf(
  source: WatchSource<KubernetesObject>,
  isInformer: boolean,
): { resource: ResourceRef; namespace?: string; labelSelector?: string } | undefined {
  if (isInformer) return undefined;
  const { resource, options } = 'resource' in source ? source : { resource: source as ResourceRef, options: undefined };
  return { resource, namespace: options?.namespace, labelSelector: options?.labelSelector };
}

/** The cache a source given by reference is read from; `undefined` for an informer given as it is (its kind is unknown). */
export function readSourceOf(
  reference: ReturnType<typeof referenceOf>,
  informer: Informer<KubernetesObject>,
): ReadSource | undefined {
  return reference === undefined ? undefined : { ...reference, informer };
}

/**
 * The echo filter of a source: `ignoreOwnWrites` when the controller has a ledger, the source is given by reference
 * and `filter` covers it; else nothing.
 */
export function echoFilter<S extends KubernetesObject>(
  writes: OwnWrites | undefined,
  reference: { resource: ResourceRef } | undefined,
  covered: boolean,
): MonoTypeOperatorFunction<InformerEvent<S>> {
  return writes === undefined || reference === undefined || !covered
    ? identity
    : ignoreOwnWrites<S>(writes, reference.resource);
}
