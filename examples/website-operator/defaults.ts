/**
 * The shared ConfigMap of defaults, and what a Website asks for once its defaults are filled in.
 *
 * A Website's `spec` wins; what it leaves out comes from its defaults ConfigMap (`spec.defaultsConfigMap`, else
 * `website-defaults`, in the Website's namespace), then from the built-in defaults. The ConfigMap's keys:
 *
 * | key | meaning | example |
 * |---|---|---|
 * | `image` | the web server image | `nginx:1.27` |
 * | `replicas` | how many web servers, a whole number 0–1000 | `"2"` |
 * | `labels` | labels for every object the operator writes, a YAML mapping | `team: web` |
 *
 * Any other key is an error (a misspelt `replica` would otherwise do nothing, silently).
 * @module
 */
import type { V1ConfigMap } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { selectors } from '../../src/index.js';
import { DEFAULT_DEFAULTS_CONFIG_MAP, type Website } from './website.js';

/** The image of a Website that neither its spec nor its defaults give one. */
export const BUILT_IN_IMAGE = 'nginx:1.27-alpine';

/** The keys a defaults ConfigMap may carry. */
export const DEFAULTS_KEYS = ['image', 'replicas', 'labels'] as const;

/** What a defaults ConfigMap says. */
export interface WebsiteDefaults {
  readonly image?: string;
  readonly replicas?: number;
  readonly labels: Readonly<Record<string, string>>;
}

/** A defaults ConfigMap that cannot be used; `message` says which key and why. */
export class InvalidDefaultsError extends Error {
  override readonly name = 'InvalidDefaultsError';
}

/**
 * Reads a defaults ConfigMap.
 *
 * # Guarantees
 * - Throws {@link InvalidDefaultsError} naming the ConfigMap and the key for an unknown key (or any `binaryData`), an empty image, a
 *   `replicas` that is not a whole number from 0 to 1000, or `labels` that is not a YAML mapping of valid label
 *   keys to valid label values (checked as the API server checks labels).
 */
export function parseDefaults(configMap: V1ConfigMap): WebsiteDefaults {
  const data = configMap.data ?? {};
  const where = `ConfigMap ${configMap.metadata?.namespace}/${configMap.metadata?.name}`;
  const fail = (message: string): never => {
    throw new InvalidDefaultsError(`${where}: ${message}`);
  };
  const unknown = Object.keys(data).filter((key) => !(DEFAULTS_KEYS as readonly string[]).includes(key));
  if (unknown.length > 0)
    fail(
      `unknown key(s) ${unknown.map((key) => JSON.stringify(key)).join(', ')}; the keys are ${DEFAULTS_KEYS.join(', ')}`,
    );
  const binary = Object.keys(configMap.binaryData ?? {});
  if (binary.length > 0)
    fail(`binaryData is not read (${binary.map((key) => JSON.stringify(key)).join(', ')}); put the defaults in data`);
  const { image, replicas: replicasText, labels: labelsText } = data;
  if (image !== undefined && image.trim() === '') fail('image must not be empty');
  let replicas: number | undefined;
  if (replicasText !== undefined) {
    replicas = Number(replicasText);
    if (replicasText.trim() === '' || !Number.isInteger(replicas) || replicas < 0 || replicas > 1000) {
      fail(`replicas must be a whole number from 0 to 1000, got ${JSON.stringify(replicasText)}`);
    }
  }
  return {
    ...(image === undefined ? {} : { image: image.trim() }),
    ...(replicas === undefined ? {} : { replicas }),
    labels: parseLabels(labelsText, fail),
  };
}

function parseLabels(text: string | undefined, fail: (message: string) => never): Record<string, string> {
  if (text === undefined || text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (error) {
    return fail(`labels is not YAML: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return fail('labels must be a YAML mapping of label keys to values');
  const labels = Object.fromEntries(
    Object.entries(parsed).map(([key, value]) => [key, typeof value === 'string' ? value : String(value)]),
  );
  try {
    selectors.labelSelectorFromObject({ matchLabels: labels });
  } catch (error) {
    fail(`labels: ${(error as Error).message}`);
  }
  return labels;
}

/** The name of the defaults ConfigMap `website` uses. */
export function defaultsConfigMapOf(website: Website): string {
  return website.spec?.defaultsConfigMap || DEFAULT_DEFAULTS_CONFIG_MAP;
}

/** What a Website asks for, its defaults filled in: the input of the desired objects. */
export interface ResolvedWebsite {
  readonly content: string;
  readonly image: string;
  /** `undefined`: the Deployment's replicas are left to others (the API server's default, an autoscaler). */
  readonly replicas: number | undefined;
  /** From the defaults ConfigMap; the operator's own labels are added on top. */
  readonly labels: Readonly<Record<string, string>>;
}

/** Why a Website cannot be resolved: the reason (a condition reason) and a message for people. */
export interface Unresolvable {
  readonly reason: 'InvalidSpec' | 'InvalidName' | 'DefaultsNotFound' | 'InvalidDefaults';
  readonly message: string;
}

/**
 * Fills in a Website's defaults. `defaults` is its defaults ConfigMap as cached (undefined when there is none).
 *
 * # Guarantees
 * - Never throws: a Website without content, a defaults ConfigMap it names explicitly that does not exist, or one
 *   that {@link parseDefaults} refuses comes back as an {@link Unresolvable} with the reason and the cause.
 * - The implicit `website-defaults` may be absent: the built-in defaults then apply.
 */
export function resolveWebsite(
  website: Website,
  defaults: V1ConfigMap | undefined,
): { readonly resolved: ResolvedWebsite } | { readonly unresolvable: Unresolvable } {
  const spec = website.spec;
  if (typeof spec?.content !== 'string') {
    return {
      unresolvable: { reason: 'InvalidSpec', message: "spec.content is required (a string: the site's index.html)" },
    };
  }
  let parsed: WebsiteDefaults = { labels: {} };
  if (defaults === undefined) {
    if (spec.defaultsConfigMap) {
      return {
        unresolvable: {
          reason: 'DefaultsNotFound',
          message: `the defaults ConfigMap ${spec.defaultsConfigMap} named by spec.defaultsConfigMap does not exist`,
        },
      };
    }
  } else {
    try {
      parsed = parseDefaults(defaults);
    } catch (error) {
      return { unresolvable: { reason: 'InvalidDefaults', message: (error as Error).message } };
    }
  }
  return {
    resolved: {
      content: spec.content,
      image: spec.image || parsed.image || BUILT_IN_IMAGE,
      replicas: spec.replicas ?? parsed.replicas,
      labels: parsed.labels,
    },
  };
}
