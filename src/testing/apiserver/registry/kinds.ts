/**
 * Per-kind rules of the built-in registry strategies: pod QoS class, pod spec validation and immutability,
 * Service address allocation, Lease validation.
 * @module
 */
import {
  cloneJson,
  type FieldError,
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  isPlainObject,
  jsonEqual,
  type KubeObject,
} from '../machinery/index.js';

/** The pod QoS class the real strategy computes on create: BestEffort, Burstable or Guaranteed. */
export function qosClass(spec: Record<string, unknown>): string {
  const containers = [spec['containers'], spec['initContainers']]
    .flatMap((c) => (Array.isArray(c) ? c : []))
    .filter(isPlainObject);
  let any = false;
  let guaranteed = containers.length > 0;
  for (const c of containers) {
    const res = isPlainObject(c['resources']) ? c['resources'] : {};
    const requests = isPlainObject(res['requests']) ? res['requests'] : {};
    const limits = isPlainObject(res['limits']) ? res['limits'] : {};
    if (Object.keys(requests).length + Object.keys(limits).length > 0) any = true;
    for (const r of ['cpu', 'memory']) {
      if (limits[r] === undefined || (requests[r] !== undefined && requests[r] !== limits[r])) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** The pod spec checks this server makes: at least one container, each with a name and an image. */
export function validatePodSpec(obj: KubeObject): FieldError[] {
  const spec = obj['spec'];
  if (!isPlainObject(spec)) return [fieldRequired('spec.containers')];
  const containers = spec['containers'];
  if (!Array.isArray(containers) || containers.length === 0) return [fieldRequired('spec.containers')];
  const errors: FieldError[] = [];
  containers.forEach((c, i) => {
    if (!isPlainObject(c) || typeof c['name'] !== 'string' || c['name'] === '')
      errors.push(fieldRequired(`spec.containers[${i}].name`));
    if (!isPlainObject(c) || typeof c['image'] !== 'string' || c['image'] === '')
      errors.push(fieldRequired(`spec.containers[${i}].image`));
  });
  return errors;
}

/**
 * What the Service REST allocators do on create: a random cluster IP in 10.96.0.0/16 (the default service CIDR's
 * start), IPv4 single-stack fields, and random node ports for NodePort/LoadBalancer ports. Headless (`None`) and
 * ExternalName services get no IP. Collisions are not checked (random, like the real allocator's choice).
 */
export function allocateServiceAddresses(obj: KubeObject, random: () => number): void {
  const spec = isPlainObject(obj['spec']) ? obj['spec'] : (obj['spec'] = {});
  const type = spec['type'] ?? 'ClusterIP';
  if (type === 'ExternalName') return;
  if (spec['clusterIP'] === undefined || spec['clusterIP'] === '') {
    spec['clusterIP'] = `10.96.${Math.floor(random() * 256)}.${10 + Math.floor(random() * 240)}`;
  }
  if (spec['clusterIPs'] === undefined) spec['clusterIPs'] = [spec['clusterIP']];
  if (spec['clusterIP'] !== 'None') {
    spec['ipFamilies'] ??= ['IPv4'];
    spec['ipFamilyPolicy'] ??= 'SingleStack';
  }
  spec['internalTrafficPolicy'] ??= 'Cluster';
  if (type === 'NodePort' || type === 'LoadBalancer') {
    spec['externalTrafficPolicy'] ??= 'Cluster';
    if (Array.isArray(spec['ports'])) {
      for (const port of spec['ports'].filter(isPlainObject)) port['nodePort'] ??= 30000 + Math.floor(random() * 2768);
    }
  }
}

/** Like the Service strategy's `patchAllocatedValues`: an update that omits allocated fields keeps them. */
export function keepAllocatedValues(old: KubeObject, next: KubeObject): void {
  const o = isPlainObject(old['spec']) ? old['spec'] : {};
  const n = isPlainObject(next['spec']) ? next['spec'] : (next['spec'] = {});
  for (const field of [
    'clusterIP',
    'clusterIPs',
    'ipFamilies',
    'ipFamilyPolicy',
    'internalTrafficPolicy',
    'externalTrafficPolicy',
  ]) {
    if ((n[field] === undefined || n[field] === '') && o[field] !== undefined) n[field] = cloneJson(o[field]);
  }
  const oldPorts = Array.isArray(o['ports']) ? o['ports'].filter(isPlainObject) : [];
  if (Array.isArray(n['ports'])) {
    for (const port of n['ports'].filter(isPlainObject)) {
      const match = oldPorts.find(
        (p) => p['port'] === port['port'] && (p['protocol'] ?? 'TCP') === (port['protocol'] ?? 'TCP'),
      );
      if (port['nodePort'] === undefined && match?.['nodePort'] !== undefined) port['nodePort'] = match['nodePort'];
    }
  }
}

/** Lease spec checks: `leaseDurationSeconds` > 0, `leaseTransitions` >= 0, with the real messages. */
export function validateLease(obj: KubeObject): FieldError[] {
  const spec = isPlainObject(obj['spec']) ? obj['spec'] : {};
  const errors: FieldError[] = [];
  for (const field of ['leaseDurationSeconds', 'leaseTransitions'] as const) {
    const value = spec[field];
    if (typeof value !== 'number') continue;
    if (field === 'leaseDurationSeconds' && value <= 0)
      errors.push(fieldInvalid(`spec.${field}`, value, 'must be greater than 0'));
    if (field === 'leaseTransitions' && value < 0)
      errors.push(fieldInvalid(`spec.${field}`, value, 'must be greater than or equal to 0'));
  }
  return errors;
}

const podMutableSpec = new Set([
  'containers',
  'initContainers',
  'activeDeadlineSeconds',
  'tolerations',
  'terminationGracePeriodSeconds',
]);

/** Pod spec immutability: only images, activeDeadlineSeconds, tolerations and the grace period may change. */
export function podSpecProblems(oldSpec: unknown, newSpec: unknown): FieldError[] {
  const o = isPlainObject(oldSpec) ? oldSpec : {};
  const n = isPlainObject(newSpec) ? newSpec : {};
  const stripImages = (list: unknown) =>
    Array.isArray(list) ? list.map((c) => (isPlainObject(c) ? { ...c, image: undefined } : c)) : list;
  const keys = new Set([...Object.keys(o), ...Object.keys(n)]);
  const changed = [...keys].some((k) => {
    if (!podMutableSpec.has(k)) return !jsonEqual(o[k], n[k]);
    if (k === 'containers' || k === 'initContainers') return !jsonEqual(stripImages(o[k]), stripImages(n[k]));
    return false;
  });
  if (!changed) return [];
  return [
    fieldForbidden(
      'spec',
      'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
    ),
  ];
}
