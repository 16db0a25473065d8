/**
 * DELETE and DELETE-collection: preconditions, finalizers, propagation finalizers, pod graceful deletion.
 * @module
 */
import { compileFilter } from './filter.js';
import { atVersion, itemsWithoutTypeMeta } from '../representation/index.js';
import {
  badRequest,
  cloneJson,
  forbidden,
  invalid,
  isPlainObject,
  type KubeObject,
  objectKey,
  preconditionFailed,
  successStatus,
  timestamp,
} from '../machinery/index.js';
import { intParam, isDryRun } from './query.js';
import { groupVersion, storageKey } from '../registry/index.js';
import { mustGet, type RequestTarget, type ServerState } from '../storage/index.js';
import type { Reply } from '../write-path/index.js';

/** The DeleteOptions fields the server honours (body or query). */
export interface DeleteOptions {
  readonly gracePeriodSeconds?: number;
  readonly propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  /** `dryRun: ['All']` in the body, as client-go sends it; the query's `dryRun` is read by the caller. */
  readonly dryRun?: boolean;
}

/** Reads DeleteOptions from the JSON body (if any) and query parameters (which the real server also accepts). */
export function deleteOptions(body: unknown, query: URLSearchParams): DeleteOptions {
  const fromBody = isPlainObject(body) ? body : {};
  if (body !== undefined && !isPlainObject(body)) throw badRequest('DeleteOptions must be a JSON object');
  const grace = intParam(query, 'gracePeriodSeconds') ?? fromBody['gracePeriodSeconds'];
  const policy = query.get('propagationPolicy') ?? fromBody['propagationPolicy'];
  if (grace !== undefined && (typeof grace !== 'number' || !Number.isInteger(grace)))
    throw badRequest('gracePeriodSeconds must be an integer');
  if (policy !== undefined && policy !== 'Orphan' && policy !== 'Background' && policy !== 'Foreground') {
    throw badRequest(
      `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan", "nil"`,
    );
  }
  const pre = isPlainObject(fromBody['preconditions']) ? fromBody['preconditions'] : {};
  const dryRun = bodyDryRun(fromBody['dryRun']);
  return {
    ...(dryRun ? { dryRun } : {}),
    ...(grace !== undefined ? { gracePeriodSeconds: Math.max(0, grace as number) } : {}),
    ...(policy !== undefined ? { propagationPolicy: policy } : {}),
    preconditions: {
      ...(typeof pre['uid'] === 'string' ? { uid: pre['uid'] } : {}),
      ...(typeof pre['resourceVersion'] === 'string' ? { resourceVersion: pre['resourceVersion'] } : {}),
    },
  };
}

const protectedNamespaces = new Set(['default', 'kube-system', 'kube-public']);

function podGracePeriod(obj: KubeObject, requested: number | undefined): number {
  const spec = isPlainObject(obj['spec']) ? obj['spec'] : {};
  const status = isPlainObject(obj['status']) ? obj['status'] : {};
  // Unscheduled or finished pods have no kubelet to confirm termination: the real strategy deletes them at once.
  if (typeof spec['nodeName'] !== 'string' || spec['nodeName'] === '') return 0;
  if (status['phase'] === 'Succeeded' || status['phase'] === 'Failed') return 0;
  if (requested !== undefined) return requested;
  const fromSpec = spec['terminationGracePeriodSeconds'];
  return typeof fromSpec === 'number' && fromSpec >= 0 ? fromSpec : 30;
}

/**
 * Deletes one object and answers like the generic registry.
 *
 * # Guarantees
 * - Preconditions that do not match are 409 Conflict and change nothing.
 * - With finalizers (including `orphan`/`foregroundDeletion` added for those propagation policies) or a pod grace
 *   period, the object only gets `deletionTimestamp` (one MODIFIED) and is returned with 200.
 * - Otherwise it is removed (one DELETED) and the answer is the object (pods, services) or a success Status.
 */
export function deleteObject(
  state: ServerState,
  target: RequestTarget,
  options: DeleteOptions,
  queryDryRun: boolean,
): Reply {
  const dryRun = queryDryRun || options.dryRun === true;
  const { resource } = target;
  const old = mustGet(state, target);
  const name = old.metadata.name ?? '';
  const pre = options.preconditions ?? {};
  if (pre.uid !== undefined && pre.uid !== old.metadata.uid) {
    throw preconditionFailed(resource.group, resource.kind, name, 'UID', pre.uid, old.metadata.uid ?? '');
  }
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== old.metadata.resourceVersion) {
    throw preconditionFailed(
      resource.group,
      resource.kind,
      name,
      'ResourceVersion',
      pre.resourceVersion,
      old.metadata.resourceVersion ?? '',
    );
  }
  const isNamespace = !resource.custom && resource.kind === 'Namespace';
  if (isNamespace && protectedNamespaces.has(name))
    throw forbidden(resource, name, 'this namespace may not be deleted');
  const apiVersion = groupVersion(resource.group, target.version);
  const key = storageKey(resource);
  const objKey = objectKey(old.metadata.namespace ?? '', name);
  const isPod = !resource.custom && resource.kind === 'Pod';
  const grace = isPod ? podGracePeriod(old, options.gracePeriodSeconds) : 0;
  const finalizers = [...(old.metadata.finalizers ?? [])];
  const deleting = old.metadata.deletionTimestamp !== undefined;
  if (!deleting) {
    const extra =
      options.propagationPolicy === 'Orphan'
        ? 'orphan'
        : options.propagationPolicy === 'Foreground'
          ? 'foregroundDeletion'
          : undefined;
    if (extra !== undefined && !finalizers.includes(extra)) finalizers.push(extra);
  }
  const nsFinalizers =
    isNamespace && isPlainObject(old['spec']) && Array.isArray(old['spec']['finalizers'])
      ? old['spec']['finalizers']
      : [];
  const pendingGrace = old.metadata.deletionGracePeriodSeconds;
  if (deleting && isPod && grace === 0 && pendingGrace !== undefined && pendingGrace > 0 && finalizers.length === 0) {
    // Like the generic registry: record deletionTimestamp=now and grace 0 (MODIFIED), then remove (DELETED).
    const final = cloneJson(old) as KubeObject;
    final.metadata.deletionTimestamp = timestamp(state.runtime.now());
    final.metadata.deletionGracePeriodSeconds = 0;
    if (dryRun) return { code: 200, body: atVersion(final, apiVersion) };
    state.store.put(key, final);
    return removeNow(state, target, key, objKey, final, dryRun);
  }
  const mustWait = finalizers.length > 0 || grace > 0 || nsFinalizers.length > 0;
  if (mustWait) {
    const currentGrace = old.metadata.deletionGracePeriodSeconds;
    const shorten = deleting && isPod && currentGrace !== undefined && grace < currentGrace;
    if (deleting && !shorten) return { code: 200, body: atVersion(old, apiVersion) };
    const next = cloneJson(old) as KubeObject;
    next.metadata.deletionTimestamp = timestamp(state.runtime.now() + grace * 1000);
    // Namespaces are finalized by their own REST logic, which sets no grace period.
    if (!isNamespace) next.metadata.deletionGracePeriodSeconds = grace;
    if (finalizers.length > 0) next.metadata.finalizers = finalizers;
    if (isNamespace) next['status'] = { ...(isPlainObject(old['status']) ? old['status'] : {}), phase: 'Terminating' };
    if (dryRun) return { code: 200, body: atVersion(next, apiVersion) };
    return { code: 200, body: atVersion(state.store.put(key, next), apiVersion) };
  }
  return removeNow(state, target, key, objKey, old, dryRun);
}

function removeNow(
  state: ServerState,
  target: RequestTarget,
  key: string,
  objKey: string,
  old: KubeObject,
  dryRun: boolean,
): Reply {
  const apiVersion = groupVersion(target.resource.group, target.version);
  const last = dryRun ? old : (state.store.remove(key, objKey) ?? old);
  if (target.resource.returnDeletedObject) return { code: 200, body: atVersion(last, apiVersion) };
  return {
    code: 200,
    body: successStatus({
      name: old.metadata.name,
      group: target.resource.group,
      kind: target.resource.plural,
      uid: old.metadata.uid,
    }),
  };
}

/** The body's `dryRun` list: `['All']` or nothing; anything else is the real server's 422. */
function bodyDryRun(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (!Array.isArray(value) || value.some((entry) => entry !== 'All')) {
    throw invalid('meta.k8s.io', 'DeleteOptions', '', [
      {
        field: 'dryRun',
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: ${JSON.stringify(value)}: supported values: "All"`,
      },
    ]);
  }
  return value.length > 0;
}

/** DELETE on a collection: deletes every matching object with the same options; answers with the list of results. */
export function deleteCollection(
  state: ServerState,
  target: RequestTarget,
  body: unknown,
  query: URLSearchParams,
): Reply {
  const options = deleteOptions(body, query);
  const dryRun = isDryRun(query);
  const filter = compileFilter(
    target.resource,
    query.get('labelSelector') ?? undefined,
    query.get('fieldSelector') ?? undefined,
  );
  const key = storageKey(target.resource);
  const victims = [...state.store.values(key)].filter(
    (o) => (target.namespace === '' || o.metadata.namespace === target.namespace) && filter.matches(o),
  );
  const items: unknown[] = [];
  for (const victim of victims) {
    const reply = deleteObject(
      state,
      { ...target, name: victim.metadata.name ?? '', namespace: victim.metadata.namespace ?? '' },
      options,
      dryRun,
    );
    if (isPlainObject(reply.body) && reply.body['kind'] !== 'Status') items.push(reply.body);
    else items.push(atVersion(victim, groupVersion(target.resource.group, target.version)));
  }
  return {
    code: 200,
    body: {
      kind: target.resource.listKind,
      apiVersion: groupVersion(target.resource.group, target.version),
      metadata: { resourceVersion: String(state.store.resourceVersion) },
      // As in a list: a built-in kind's items without kind and apiVersion.
      items: target.resource.custom ? items : itemsWithoutTypeMeta(items),
    },
  };
}
