/**
 * The objects a Website owns, as the operator applies them: only the fields it has an opinion about (server-side
 * apply owns exactly those), each with the Website as its controller.
 * @module
 */
import { createHash } from 'node:crypto';
import type { V1ConfigMap, V1Deployment, V1Service } from '@kubernetes/client-node';
import { owners } from '../../src/index.js';
import type { ResolvedWebsite } from './defaults.js';
import {
  CONFIG_MAP,
  CONTENT_HASH_ANNOTATION,
  DEPLOYMENT,
  ownedNames,
  SERVICE,
  websiteOwner,
  type WebsiteId,
} from './website.js';

/** The `app.kubernetes.io/managed-by` value on everything the operator writes. */
export const MANAGED_BY = 'website-operator';

/** Where the web server reads the content, and the port it serves. */
export const CONTENT_PATH = '/usr/share/nginx/html';
export const HTTP_PORT = 80;

/** The three objects of one Website. */
export interface DesiredObjects {
  readonly configMap: V1ConfigMap;
  readonly deployment: V1Deployment;
  readonly service: V1Service;
}

/** The labels that select a Website's pods: fixed for its life, since a Deployment's selector cannot change. */
export function selectorLabels(id: WebsiteId): Record<string, string> {
  return { 'app.kubernetes.io/name': 'website', 'app.kubernetes.io/instance': id.name };
}

/** The hex SHA-256 of the content: the pod template annotation that rolls the pods when the content changes. */
export function contentHash(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('hex');
}

/**
 * The desired ConfigMap, Deployment and Service of a Website.
 *
 * # Guarantees
 * - Pure: the same inputs give equal objects, so an unchanged Website applies nothing new (the API server then
 *   writes nothing, and the resourceVersions stay).
 * - Every object carries a controller reference to the Website (`controller` and `blockOwnerDeletion` true) and the
 *   defaults' labels, under the operator's own `app.kubernetes.io/*` labels, which win.
 * - `spec.replicas` is left out when `replicas` is undefined, so another manager (an autoscaler) may own it.
 */
export function desiredObjects(id: WebsiteId, website: ResolvedWebsite): DesiredObjects {
  const names = ownedNames(id.name);
  const selector = selectorLabels(id);
  const labels = { ...website.labels, ...selector, 'app.kubernetes.io/managed-by': MANAGED_BY };
  const owner = websiteOwner(id);
  const metadata = (name: string) => ({ name, namespace: id.namespace, labels });
  const configMap: V1ConfigMap = {
    apiVersion: CONFIG_MAP.apiVersion,
    kind: CONFIG_MAP.kind,
    metadata: metadata(names.configMap),
    data: { 'index.html': website.content },
  };
  const deployment: V1Deployment = {
    apiVersion: DEPLOYMENT.apiVersion,
    kind: DEPLOYMENT.kind,
    metadata: metadata(names.deployment),
    spec: {
      ...(website.replicas === undefined ? {} : { replicas: website.replicas }),
      selector: { matchLabels: selector },
      template: {
        metadata: { labels, annotations: { [CONTENT_HASH_ANNOTATION]: contentHash(website.content) } },
        spec: {
          containers: [
            {
              name: 'web',
              image: website.image,
              ports: [{ name: 'http', containerPort: HTTP_PORT }],
              volumeMounts: [{ name: 'content', mountPath: CONTENT_PATH, readOnly: true }],
            },
          ],
          volumes: [{ name: 'content', configMap: { name: names.configMap } }],
        },
      },
    },
  };
  const service: V1Service = {
    apiVersion: SERVICE.apiVersion,
    kind: SERVICE.kind,
    metadata: metadata(names.service),
    spec: { selector, ports: [{ name: 'http', port: HTTP_PORT, targetPort: 'http' }] },
  };
  for (const object of [configMap, deployment, service]) owners.setControllerReference(object, owner);
  return { configMap, deployment, service };
}

/** `http://<service>.<namespace>.svc`: where the site answers inside the cluster. */
export function serviceUrl(id: WebsiteId): string {
  return `http://${ownedNames(id.name).service}.${id.namespace}.svc`;
}
