/**
 * Field defaulting for built-in types: the subset of kube-apiserver's `SetDefaults_*` functions that controllers
 * commonly read (replicas, strategies, pod spec and container defaults), plus Secret `stringData` folding.
 * @module
 */
import { isPlainObject, type KubeObject } from '../machinery/index.js';
import type { ResourceInfo } from './resource.js';

type Json = Record<string, unknown>;

function setDefault(target: Json, key: string, value: unknown): void {
  if (target[key] === undefined || target[key] === null) target[key] = value;
}

function child(target: Json, key: string): Json {
  const value = target[key];
  if (isPlainObject(value)) return value;
  const created: Json = {};
  target[key] = created;
  return created;
}

function defaultContainer(container: unknown): void {
  if (!isPlainObject(container)) return;
  setDefault(container, 'terminationMessagePath', '/dev/termination-log');
  setDefault(container, 'terminationMessagePolicy', 'File');
  const image = typeof container['image'] === 'string' ? container['image'] : '';
  const tag = image.includes('@') ? 'digest' : (image.split('/').pop() ?? '').split(':')[1];
  setDefault(container, 'imagePullPolicy', tag === undefined || tag === 'latest' ? 'Always' : 'IfNotPresent');
  setDefault(container, 'resources', {});
  if (Array.isArray(container['ports']))
    for (const port of container['ports']) if (isPlainObject(port)) setDefault(port, 'protocol', 'TCP');
}

/** Pod spec defaults (including what the ServiceAccount and Priority admission plugins add). */
function defaultPodSpec(spec: Json): void {
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'schedulerName', 'default-scheduler');
  setDefault(spec, 'enableServiceLinks', true);
  for (const list of ['containers', 'initContainers']) {
    if (Array.isArray(spec[list])) for (const c of spec[list]) defaultContainer(c);
  }
}

function defaultTemplate(spec: Json): void {
  const template = spec['template'];
  if (isPlainObject(template)) defaultPodSpec(child(template, 'spec'));
}

/**
 * Applies defaults in place to a decoded body of a built-in type. Custom resources are left alone (no schema
 * defaulting).
 *
 * # Guarantees
 * - Only absent fields are set; values the client sent are never changed.
 * - Idempotent, so applying it to every write keeps no-op detection exact.
 */
export function applyDefaults(resource: ResourceInfo, obj: KubeObject): void {
  if (resource.custom) return;
  const spec = isPlainObject(obj['spec']) ? obj['spec'] : undefined;
  switch (resource.kind) {
    case 'Pod':
      if (spec !== undefined) defaultPodSpec(spec);
      return;
    case 'Deployment':
      if (spec === undefined) return;
      setDefault(spec, 'replicas', 1);
      setDefault(spec, 'revisionHistoryLimit', 10);
      setDefault(spec, 'progressDeadlineSeconds', 600);
      setDefault(spec, 'strategy', { type: 'RollingUpdate' });
      if (isPlainObject(spec['strategy']) && spec['strategy']['type'] === 'RollingUpdate') {
        setDefault(spec['strategy'], 'rollingUpdate', { maxUnavailable: '25%', maxSurge: '25%' });
      }
      defaultTemplate(spec);
      return;
    case 'ReplicaSet':
      if (spec === undefined) return;
      setDefault(spec, 'replicas', 1);
      defaultTemplate(spec);
      return;
    case 'StatefulSet':
      if (spec === undefined) return;
      setDefault(spec, 'replicas', 1);
      setDefault(spec, 'podManagementPolicy', 'OrderedReady');
      setDefault(spec, 'revisionHistoryLimit', 10);
      setDefault(spec, 'updateStrategy', { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
      setDefault(spec, 'persistentVolumeClaimRetentionPolicy', { whenDeleted: 'Retain', whenScaled: 'Retain' });
      defaultTemplate(spec);
      return;
    case 'DaemonSet':
      if (spec === undefined) return;
      setDefault(spec, 'revisionHistoryLimit', 10);
      setDefault(spec, 'updateStrategy', { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
      defaultTemplate(spec);
      return;
    case 'Service': {
      const s = spec ?? child(obj, 'spec');
      setDefault(s, 'type', 'ClusterIP');
      setDefault(s, 'sessionAffinity', 'None');
      if (Array.isArray(s['ports'])) {
        for (const port of s['ports']) {
          if (!isPlainObject(port)) continue;
          setDefault(port, 'protocol', 'TCP');
          setDefault(port, 'targetPort', port['port']);
        }
      }
      return;
    }
    case 'Secret': {
      setDefault(obj, 'type', 'Opaque');
      // The v1 conversion folds write-only stringData into data (base64), stringData winning on conflicts.
      const stringData = obj['stringData'];
      if (isPlainObject(stringData)) {
        const data = child(obj, 'data');
        for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
      }
      delete obj['stringData'];
      return;
    }
    default:
  }
}
