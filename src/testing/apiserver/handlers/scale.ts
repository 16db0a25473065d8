/**
 * The `scale` subresource of Deployments, ReplicaSets and StatefulSets (autoscaling/v1 Scale), as `kubectl scale`
 * and autoscalers use it.
 * @module
 */
import { badRequest, cloneJson, invalid, isPlainObject, type KubeObject } from '../machinery/index.js';
import { mustGet, type RequestTarget, type ServerState } from '../storage/index.js';
import { commitUpdate, type Reply } from '../write-path/index.js';
import { isDryRun } from './query.js';
import { patchDocument } from './writes.js';
import { checkPreconditions, prepareUpdate } from '../registry/index.js';
import { parseJson } from '../../../transport/index.js';

/** Kinds that serve `/scale`. */
export const scalableKinds: ReadonlySet<string> = new Set(['Deployment', 'ReplicaSet', 'StatefulSet']);

function selectorString(selector: unknown): string {
  if (!isPlainObject(selector)) return '';
  const labels = isPlainObject(selector['matchLabels']) ? selector['matchLabels'] : {};
  const parts = Object.entries(labels).map(([k, v]) => `${k}=${String(v)}`);
  const expressions = Array.isArray(selector['matchExpressions']) ? selector['matchExpressions'] : [];
  for (const e of expressions.filter(isPlainObject)) {
    const values = Array.isArray(e['values']) ? e['values'].join(',') : '';
    const op = String(e['operator'] ?? '');
    if (op === 'In') parts.push(`${String(e['key'])} in (${values})`);
    else if (op === 'NotIn') parts.push(`${String(e['key'])} notin (${values})`);
    else if (op === 'Exists') parts.push(String(e['key']));
    else if (op === 'DoesNotExist') parts.push(`!${String(e['key'])}`);
  }
  return parts.sort().join(',');
}

/** The autoscaling/v1 Scale view of a workload. */
export function toScale(obj: KubeObject): KubeObject {
  const spec = isPlainObject(obj['spec']) ? obj['spec'] : {};
  const status = isPlainObject(obj['status']) ? obj['status'] : {};
  const { name, namespace, uid, resourceVersion, creationTimestamp } = obj.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
    spec: { replicas: spec['replicas'] ?? 0 },
    status: { replicas: status['replicas'] ?? 0, selector: selectorString(spec['selector']) },
  };
}

/**
 * GET, PUT or PATCH on `/scale`: reads or changes `spec.replicas` only, through the same update rules as PUT
 * (resourceVersion preconditions, generation bump).
 */
export function serveScale(
  state: ServerState,
  target: RequestTarget,
  method: string,
  raw: string,
  contentType: string,
  query: URLSearchParams,
): Reply {
  const old = mustGet(state, target);
  if (method === 'GET') return { code: 200, body: toScale(old) };
  const dryRun = isDryRun(query);
  let scale: KubeObject;
  if (method === 'PATCH') {
    scale = patchDocument(target, contentType, raw, toScale(old), 'Scale');
  } else {
    let parsed: unknown;
    try {
      parsed = parseJson(raw);
    } catch (error) {
      throw badRequest(`couldn't get version/kind; json parse error: ${(error as Error).message}`);
    }
    if (!isPlainObject(parsed) || !isPlainObject(parsed['metadata'] ?? {}))
      throw badRequest('the object provided is unrecognized (must be of type Scale)');
    scale = parsed as KubeObject;
    if (scale.kind !== undefined && scale.kind !== 'Scale')
      throw badRequest(
        `the object provided is unrecognized (must be of type Scale): kind ${JSON.stringify(scale.kind)}`,
      );
    scale.metadata ??= {};
  }
  const replicas = isPlainObject(scale['spec']) ? scale['spec']['replicas'] : undefined;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw invalid('autoscaling', 'Scale', old.metadata.name ?? '', [
      {
        field: 'spec.replicas',
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${String(replicas)}: must be greater than or equal to 0`,
      },
    ]);
  }
  checkPreconditions({ ...target.resource, allowUnconditionalUpdate: true }, old, scale.metadata);
  const next = cloneJson(old) as KubeObject;
  next['spec'] = { ...(isPlainObject(old['spec']) ? old['spec'] : {}), replicas };
  const prepared = prepareUpdate(
    state.runtime,
    { resource: target.resource, version: target.version, namespace: target.namespace },
    old,
    next,
    undefined,
  );
  const reply = commitUpdate(state, target, old, prepared, dryRun);
  return { code: reply.code, body: toScale(reply.body as KubeObject) };
}
