/**
 * The admission of a create: what every create (HTTP, server-side apply, `seed`) does before it may be stored.
 * @module
 */
import {
  alreadyExists,
  forbidden,
  type KubeObject,
  methodNotAllowed,
  notFound,
  objectKey,
} from '../machinery/index.js';
import { generateName, prepareCreate, storageKey } from '../registry/index.js';
import { namespaceResource, namespaceStorageKey, type RequestTarget, type ServerState } from '../storage/index.js';

/**
 * Everything a create does before storing: strategy (defaults, system fields, validation), namespace lifecycle
 * and name uniqueness. Returns the object to store; throws the `ApiError` the HTTP answer would carry.
 *
 * # Guarantees
 * - Reads state only: nothing is stored, so callers can admit a whole batch before committing any of it.
 * - `owned`: `body` is a freshly parsed request body the result may reuse (see `decodeBody`).
 */
export function admitCreate(
  state: ServerState,
  target: RequestTarget,
  body: unknown,
  owned = false,
  track?: (decoded: KubeObject) => void,
): KubeObject {
  if (target.resource.namespaced && target.namespace === '') throw methodNotAllowed();
  // Read before the strategy runs: an owned body shares its metadata with the result, which gets a name.
  const generated = typeof body === 'object' && body !== null && !(body as KubeObject).metadata?.name;
  const obj = prepareCreate(
    state.runtime,
    {
      resource: target.resource,
      version: target.version,
      namespace: target.namespace,
      ...(target.name !== undefined ? { name: target.name } : {}),
    },
    body,
    owned,
    track,
  );
  if (target.resource.namespaced) {
    const ns = state.store.get(namespaceStorageKey, target.namespace);
    if (ns === undefined) throw notFound(namespaceResource, target.namespace);
    if (ns.metadata.deletionTimestamp !== undefined) {
      throw forbidden(
        target.resource,
        obj.metadata.name ?? '',
        `unable to create new content in namespace ${target.namespace} because it is being terminated`,
        [
          {
            reason: 'NamespaceTerminating',
            message: `namespace ${target.namespace} is being terminated`,
            field: 'metadata.namespace',
          },
        ],
      );
    }
  }
  const key = storageKey(target.resource);
  const retryName = generated && obj.metadata.generateName;
  for (
    let attempt = 0;
    state.store.get(key, objectKey(obj.metadata.namespace ?? '', obj.metadata.name!)) !== undefined;
    attempt++
  ) {
    if (!retryName || attempt > 8) throw alreadyExists(target.resource, obj.metadata.name!);
    obj.metadata.name = generateName(obj.metadata.generateName!, state.runtime.random);
  }
  return obj;
}
