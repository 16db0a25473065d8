/**
 * Server-side apply: the `PATCH` with `application/apply-patch+yaml`, through the field manager of `apply/`.
 * @module
 */
import { admitCreate, fieldScope, present, type Reply, updateAt } from '../write-path/index.js';
import { applyObject, parseApplyBody, writeOptions } from '../apply/index.js';
import { conflict, notFound, objectKey } from '../machinery/index.js';
import { isDryRun } from './query.js';
import { storageKey } from '../registry/index.js';
import type { RequestTarget, ServerState } from '../storage/index.js';

/** Keeps the managedFields the field manager already computed (apply). */
const keepManagedFields = (): void => undefined;

/**
 * Server-side apply: `PATCH` with `application/apply-patch+yaml` (JSON is accepted, being YAML).
 *
 * # Guarantees
 * - Creates the object (201) when it does not exist, through the same admission as `POST`; on `/status` a missing
 *   object is 404, as the status strategies do not create.
 * - `fieldManager` is required and `force` honoured; conflicts are the real 409; `dryRun=All` stores nothing.
 * - An apply that changes neither content nor ownership writes nothing (same resourceVersion, no event).
 */
export function applyRequest(
  state: ServerState,
  target: RequestTarget,
  raw: string,
  query: URLSearchParams,
  userAgent: string | undefined,
): Reply {
  const options = writeOptions(query, 'patch', true, userAgent);
  const dryRun = isDryRun(query);
  const config = parseApplyBody(raw);
  const scope = fieldScope(state, target);
  const name = target.name ?? '';
  const old = state.store.get(
    storageKey(target.resource),
    objectKey(target.resource.namespaced ? target.namespace : '', name),
  );
  if (old === undefined) {
    if (target.subresource !== undefined) throw notFound(target.resource, name);
    const applied = applyObject(scope, undefined, config, options.manager, options.force);
    const uid = applied.metadata.uid;
    if (typeof uid === 'string' && uid !== '') {
      throw conflict(
        target.resource,
        name,
        `uid mismatch: the provided object specified uid ${uid}, and no existing object was found`,
      );
    }
    const obj = admitCreate(state, target, applied, true, keepManagedFields);
    if (dryRun) return { code: 201, body: present(target, obj) };
    return { code: 201, body: present(target, state.store.put(storageKey(target.resource), obj)) };
  }
  const applied = applyObject(scope, present(target, old), config, options.manager, options.force);
  return updateAt(state, target, old, applied, keepManagedFields, dryRun);
}
