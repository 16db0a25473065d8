/**
 * The demo `npm run example -- website-operator` plays on the embedded cluster, as a user with kubectl would: it
 * installs the CRD, creates a defaults ConfigMap and three Websites, changes content, replicas and the defaults,
 * stands in for the Deployment controller the in-memory server lacks, and deletes a Website.
 * @module
 */
import type { KubeConfig, V1ConfigMap, V1Deployment } from '@kubernetes/client-node';
import { firstValueFrom, type Observable } from 'rxjs';
import { apiErrors, resourceClient, type Connection } from '../../src/index.js';
import { installWebsiteCrd } from './crd.js';
import {
  CONFIG_MAP,
  DEFAULT_DEFAULTS_CONFIG_MAP,
  DEPLOYMENT,
  ownedNames,
  SERVICE,
  WEBSITE,
  type Website,
} from './website.js';

/** The image the demo's defaults start with, and the one it changes them to. */
export const DEMO_IMAGES = { first: 'nginx:1.27', second: 'nginx:1.27-alpine' } as const;

/**
 * Makes a Deployment look rolled out, as kube-controller-manager's Deployment controller would once its pods are
 * ready: `observedGeneration` caught up and every replica updated, ready and available. Neither the in-memory
 * server nor a bare kube-apiserver runs that controller.
 */
export async function markRolledOut(connection: Connection, namespace: string, name: string): Promise<V1Deployment> {
  const deployments = resourceClient<V1Deployment>(connection, DEPLOYMENT, {
    namespace,
    fieldManager: 'demo-deployment-controller',
  });
  const deployment = await firstValueFrom(deployments.get(name));
  const replicas = deployment.spec?.replicas ?? 1;
  return firstValueFrom(
    deployments.patchStatus(name, {
      type: 'merge',
      body: {
        status: {
          observedGeneration: deployment.metadata?.generation,
          replicas,
          updatedReplicas: replicas,
          readyReplicas: replicas,
          availableReplicas: replicas,
          conditions: [
            {
              type: 'Available',
              status: 'True',
              reason: 'MinimumReplicasAvailable',
              message: 'Deployment has minimum availability.',
            },
            {
              type: 'Progressing',
              status: 'True',
              reason: 'NewReplicaSetAvailable',
              message: `ReplicaSet "${name}" has successfully progressed.`,
            },
          ],
        },
      },
    }),
  );
}

/** Resolves once `test` holds, polling every 100 ms; rejects with `what` after `timeoutMs`. */
async function until(test: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** One step of the demo. */
interface Step {
  readonly describe: string;
  readonly run: () => Promise<unknown>;
}

/**
 * Plays the demo in `namespace`, narrating each step. Resolves when it is done; stops between steps once `signal`
 * is aborted. `recordExists` tells whether a Website's DNS record is still published.
 */
export async function runWebsiteWorkload(
  kubeConfig: KubeConfig,
  namespace: string,
  narrate: (line: string) => void,
  signal: AbortSignal,
  recordExists: (namespace: string, name: string) => boolean,
): Promise<void> {
  const options = { namespace, fieldManager: 'demo-user' };
  const websites = resourceClient<Website>(kubeConfig, WEBSITE, options);
  const configMaps = resourceClient<V1ConfigMap>(kubeConfig, CONFIG_MAP, options);
  const website = (name: string, spec: Website['spec']): Website => ({
    apiVersion: WEBSITE.apiVersion,
    kind: WEBSITE.kind,
    metadata: { name, namespace },
    spec,
  });
  const defaults = (name: string, data: Record<string, string>): V1ConfigMap => ({
    metadata: { name, namespace },
    data,
  });
  const websiteShows = (name: string, image: string) =>
    until(
      async () => (await firstValueFrom(websites.get(name))).status?.image === image,
      `website ${name} to use ${image}`,
    );
  const gone = (client: { get(name: string): Observable<unknown> }, name: string): Promise<boolean> =>
    firstValueFrom(client.get(name)).then(
      () => false,
      (error: unknown) => {
        if (apiErrors.isNotFound(error)) return true;
        throw error;
      },
    );

  const steps: Step[] = [
    {
      describe: 'installs the Website CRD (examples/website-operator/deploy/crd.yaml)',
      run: () => installWebsiteCrd(kubeConfig),
    },
    {
      describe: `creates ConfigMap ${DEFAULT_DEFAULTS_CONFIG_MAP}: image ${DEMO_IMAGES.first}, replicas 2, labels team: web`,
      run: () =>
        firstValueFrom(
          configMaps.create(
            defaults(DEFAULT_DEFAULTS_CONFIG_MAP, { image: DEMO_IMAGES.first, replicas: '2', labels: 'team: web\n' }),
          ),
        ),
    },
    {
      describe: 'creates Website blog (content only: image and replicas come from the defaults)',
      run: () => firstValueFrom(websites.create(website('blog', { content: '<h1>Blog</h1>\n' }))),
    },
    {
      describe: 'creates Website shop (replicas 3)',
      run: () => firstValueFrom(websites.create(website('shop', { content: '<h1>Shop</h1>\n', replicas: 3 }))),
    },
    {
      describe: 'creates Website docs, whose spec.defaultsConfigMap names docs-defaults (not there yet: Degraded)',
      run: () =>
        firstValueFrom(
          websites.create(website('docs', { content: '<h1>Docs</h1>\n', defaultsConfigMap: 'docs-defaults' })),
        ),
    },
    {
      describe: 'creates ConfigMap docs-defaults (image httpd:2.4): docs recovers',
      run: () => firstValueFrom(configMaps.create(defaults('docs-defaults', { image: 'httpd:2.4' }))),
    },
    {
      describe: "changes blog's content and scales it to 4 replicas",
      run: () =>
        firstValueFrom(
          websites.patch('blog', {
            type: 'merge',
            body: { spec: { content: '<h1>Blog</h1>\n<p>First post!</p>\n', replicas: 4 } },
          }),
        ),
    },
    {
      describe: `changes ${DEFAULT_DEFAULTS_CONFIG_MAP}: image ${DEMO_IMAGES.second} (blog and shop use it, docs does not)`,
      run: async () => {
        await firstValueFrom(
          configMaps.patch(DEFAULT_DEFAULTS_CONFIG_MAP, {
            type: 'merge',
            body: { data: { image: DEMO_IMAGES.second } },
          }),
        );
        await Promise.all(['blog', 'shop'].map((name) => websiteShows(name, DEMO_IMAGES.second)));
      },
    },
    {
      describe:
        'rolls the Deployments out (the in-memory server has no Deployment controller: the demo patches their status)',
      run: () =>
        Promise.all(
          ['blog', 'shop', 'docs'].map((name) => markRolledOut(kubeConfig, namespace, ownedNames(name).deployment)),
        ),
    },
    {
      describe: 'deletes Website blog: the finalizer removes its DNS record, then the garbage collector its objects',
      run: async () => {
        await firstValueFrom(websites.delete('blog'));
        const names = ownedNames('blog');
        const deployments = resourceClient(kubeConfig, DEPLOYMENT, options);
        const services = resourceClient(kubeConfig, SERVICE, options);
        await until(
          async () =>
            !recordExists(namespace, 'blog') &&
            (await gone(websites, 'blog')) &&
            (await gone(deployments, names.deployment)) &&
            (await gone(services, names.service)) &&
            (await gone(configMaps, names.configMap)),
          'blog and its objects to go',
        );
        narrate("workload: blog's DNS record is removed, and its Deployment, Service and ConfigMap are collected");
      },
    },
  ];
  for (const step of steps) {
    await new Promise((resolve) => setTimeout(resolve, 400));
    if (signal.aborted) return;
    narrate(`workload: ${step.describe}`);
    await step.run();
  }
}
