/**
 * The `Website` custom resource (`example.rxkube.io/v1alpha1`, defined by `deploy/crd.yaml`) and the names the operator
 * gives what it owns. In controller-runtime this is the API package that `AddToScheme` registers: here a type for
 * the compiler and a {@link ResourceRef} for the client and the informers; discovery does the rest at run time.
 * @module
 */
import type { KubernetesObject, V1ObjectMeta } from '@kubernetes/client-node';
import type { conditions, owners, ResourceRef } from '../../src/index.js';

/** The API group of the Website kind. */
export const WEBSITE_GROUP = 'example.rxkube.io';

/** What the client and the informers need to know about the kind: the rest comes from discovery. */
export const WEBSITE: ResourceRef = Object.freeze({ apiVersion: `${WEBSITE_GROUP}/v1alpha1`, kind: 'Website' });

/** The owned and watched kinds. */
export const DEPLOYMENT: ResourceRef = Object.freeze({ apiVersion: 'apps/v1', kind: 'Deployment' });
export const SERVICE: ResourceRef = Object.freeze({ apiVersion: 'v1', kind: 'Service' });
export const CONFIG_MAP: ResourceRef = Object.freeze({ apiVersion: 'v1', kind: 'ConfigMap' });

/** What a Website asks for (`spec`); see `deploy/crd.yaml` for the schema the API server enforces. */
export interface WebsiteSpec {
  /** The site's `index.html`. */
  readonly content: string;
  /** The web server image (it must serve `/usr/share/nginx/html` on port 80). */
  readonly image?: string;
  /** How many web servers. */
  readonly replicas?: number;
  /** The ConfigMap of defaults in the Website's namespace; default {@link DEFAULT_DEFAULTS_CONFIG_MAP}. */
  readonly defaultsConfigMap?: string;
}

/** The three condition types a Website reports. */
export type WebsiteConditionType = 'Ready' | 'Progressing' | 'Degraded';

/** A `metav1.Condition`, as the API serves it (times are RFC 3339 strings): rxkube's type. */
export type Condition = conditions.Condition;

/** What the operator observed (`status`), written through the status subresource. */
export interface WebsiteStatus {
  /** The generation the status describes. */
  readonly observedGeneration?: number;
  /** The image in use, after defaults. */
  readonly image?: string;
  /** The Deployment's desired replicas. */
  readonly replicas?: number;
  /** The Deployment's ready replicas. */
  readonly readyReplicas?: number;
  /** Where the Service answers inside the cluster. */
  readonly url?: string;
  /** The DNS name the record publishes. */
  readonly hostname?: string;
  readonly conditions?: Condition[];
}

/** A Website object. */
export interface Website extends KubernetesObject {
  metadata?: V1ObjectMeta;
  spec?: WebsiteSpec;
  status?: WebsiteStatus;
}

/** The defaults ConfigMap a Website uses when it names none. */
export const DEFAULT_DEFAULTS_CONFIG_MAP = 'website-defaults';

/** The finalizer that keeps a Website until its DNS record is removed. */
export const RECORD_FINALIZER = `${WEBSITE_GROUP}/dns-record`;

/** The pod template annotation that changes with the content, so a new content rolls the pods. */
export const CONTENT_HASH_ANNOTATION = `${WEBSITE_GROUP}/content-sha256`;

/** A Website's identity, read once from the object (and never its `kind`, which listed objects lack). */
export interface WebsiteId {
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  /** `namespace/name`: the reconcile key. */
  readonly key: string;
  readonly generation: number;
}

/** The identity of `website`; throws a `TypeError` for an object the API server could not have served. */
export function websiteId(website: Website): WebsiteId {
  const { namespace, name, uid, generation } = website.metadata ?? {};
  if (!namespace || !name || !uid)
    throw new TypeError(
      `a Website needs metadata.namespace, name and uid, got ${JSON.stringify(website.metadata ?? {})}`,
    );
  return { namespace, name, uid, key: `${namespace}/${name}`, generation: generation ?? 0 };
}

/**
 * The owner that controller references point to, from {@link WEBSITE} and the identity a run carries (a run passes
 * its {@link WebsiteId} around, not the object).
 */
export function websiteOwner(id: WebsiteId): owners.Owner {
  return {
    apiVersion: WEBSITE.apiVersion,
    kind: WEBSITE.kind,
    metadata: { name: id.name, namespace: id.namespace, uid: id.uid },
  };
}

/** What the operator names the objects it owns for a Website. */
export interface OwnedNames {
  readonly deployment: string;
  readonly service: string;
  readonly configMap: string;
}

/** The Deployment and the Service are named after the Website; the ConfigMap of its content is `<name>-content`. */
export function ownedNames(name: string): OwnedNames {
  return { deployment: name, service: name, configMap: `${name}-content` };
}

/**
 * Why `name` cannot name a Website's Service, or `undefined` when it can: a DNS-1035 label (the CRD's CEL rule says
 * the same, so only a server that skips it, like the in-memory one, lets such a Website in).
 */
export function invalidNameReason(name: string): string | undefined {
  if (name.length <= 63 && /^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(name)) return undefined;
  return `the name ${JSON.stringify(name)} cannot name a Service: it must be a DNS-1035 label (lowercase letters, digits and '-', starting with a letter, at most 63 characters)`;
}
