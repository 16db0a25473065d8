/**
 * Programmatic writes for tests and benchmarks: create or replace many objects without HTTP, through the same
 * strategy, admission and store path an HTTP create or PUT takes.
 * @module
 */
import {
  alreadyExists,
  ApiError,
  badRequest,
  cloneJson,
  isPlainObject,
  type KubeObject,
  type StatusBody,
} from '../machinery/index.js';
import { groupVersion, prepareUpdate, type ResourceInfo, storageKey } from '../registry/index.js';
import { mustGet, type RequestTarget, type ServerState } from '../storage/index.js';
import { admitCreate } from './admit.js';
import { commitUpdate } from './commit.js';

/** Options of `TestCluster.seed` and `TestCluster.update`. */
export interface SeedOptions {
  /**
   * Store `status` as given instead of what an HTTP create/PUT would keep (a create resets it per type, e.g. a
   * pod's to `{ phase: 'Pending' }`; a PUT keeps the stored one). Default false.
   */
  readonly preserveStatus?: boolean;
  /** Store `metadata.managedFields` as given instead of dropping them as HTTP writes here do. Default false. */
  readonly preserveManagedFields?: boolean;
}

/**
 * A rejected programmatic write: carries the `Status` the same request over HTTP would have been answered with.
 *
 * # Guarantees
 * - `code === status.code`; `index` is the position of the offending object in the array passed in.
 */
export class SeedError extends Error {
  /** The HTTP code the same request would have been answered with. */
  readonly code: number;
  /** The `Status` body the same request would have been answered with. */
  readonly status: StatusBody;
  /** The position of the rejected object in the array passed in. */
  readonly index: number;

  constructor(index: number, status: StatusBody, options?: { cause?: unknown }) {
    super(`objects[${index}]: ${status.message ?? status.reason ?? `HTTP ${status.code}`}`, options);
    this.name = 'SeedError';
    this.code = status.code;
    this.status = status;
    this.index = index;
  }
}

/** The served resource an object names by apiVersion and kind, with the version and namespace to write it at. */
function targetOf(state: ServerState, obj: unknown): RequestTarget {
  if (!isPlainObject(obj)) throw badRequest('the object provided is unrecognized: body must be a JSON object');
  const { apiVersion, kind } = obj;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string')
    throw badRequest(`Object 'Kind' is missing in '${JSON.stringify(obj).slice(0, 200)}'`);
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const resource = state.registry
    .all()
    .find((r: ResourceInfo) => r.kind === kind && r.group === group && r.versions.includes(version));
  if (resource === undefined)
    throw new ApiError(
      404,
      'NotFound',
      `no matches for kind "${kind}" in version "${groupVersion(group, version)}"`,
      {},
    );
  const meta = isPlainObject(obj['metadata']) ? obj['metadata'] : {};
  const namespace = resource.namespaced
    ? typeof meta['namespace'] === 'string' && meta['namespace'] !== ''
      ? meta['namespace']
      : 'default'
    : '';
  const name = typeof meta['name'] === 'string' && meta['name'] !== '' ? { name: meta['name'] } : {};
  return { resource, version, namespace, ...name };
}

/** Puts back the fields the caller asked to keep, as given. */
function preserve(prepared: KubeObject, given: unknown, options: SeedOptions): KubeObject {
  const source = given as KubeObject;
  if (options.preserveStatus === true) {
    if (source['status'] === undefined) delete prepared['status'];
    else prepared['status'] = cloneJson(source['status']);
  }
  if (options.preserveManagedFields === true && source.metadata?.['managedFields'] !== undefined) {
    prepared.metadata['managedFields'] = cloneJson(source.metadata['managedFields']);
  }
  return prepared;
}

function asSeedError(index: number, error: unknown): unknown {
  return error instanceof ApiError ? new SeedError(index, error.body, { cause: error }) : error;
}

/**
 * Creates every object, all or nothing: each is admitted exactly as an HTTP create (defaults, uid,
 * creationTimestamp, generation, validation, namespace lifecycle, name uniqueness, also within the batch), and
 * only when all pass are they committed, in order, each with its own resourceVersion and watch event.
 * Returns the resourceVersion after the last commit.
 */
export function seedObjects(state: ServerState, objects: readonly unknown[], options: SeedOptions = {}): string {
  const admitted: { key: string; obj: KubeObject }[] = [];
  const seen = new Set<string>();
  objects.forEach((given, index) => {
    try {
      const target = targetOf(state, given);
      const obj = preserve(admitCreate(state, target, given), given, options);
      const key = storageKey(target.resource);
      const id = `${key} ${obj.metadata.namespace ?? ''}/${obj.metadata.name}`;
      if (seen.has(id)) throw alreadyExists(target.resource, obj.metadata.name ?? '');
      seen.add(id);
      admitted.push({ key, obj });
    } catch (error) {
      throw asSeedError(index, error);
    }
  });
  for (const { key, obj } of admitted) state.store.put(key, obj);
  return String(state.store.resourceVersion);
}

/**
 * Replaces existing objects as a PUT to each would (without `metadata.resourceVersion` the write is
 * unconditional where the type allows it; a stale one is 409), in order. An unchanged object writes nothing.
 *
 * # Caveats
 * - Not atomic: each object is committed before the next is checked, so on a failure the earlier ones stay
 *   written; `SeedError.index` says where it stopped.
 */
export function updateObjects(state: ServerState, objects: readonly unknown[], options: SeedOptions = {}): string {
  objects.forEach((given, index) => {
    try {
      const target = targetOf(state, given);
      const old = mustGet(state, target);
      const next = preserve(prepareUpdate(state.runtime, target, old, given, undefined), given, options);
      commitUpdate(state, target, old, next, false);
    } catch (error) {
      throw asSeedError(index, error);
    }
  });
  return String(state.store.resourceVersion);
}
