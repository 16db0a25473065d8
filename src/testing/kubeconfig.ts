/**
 * The KubeConfig every test cluster hands out, and the file it writes: one builder and one writer shared by the
 * in-memory API server and the real control plane, so both produce the same shape.
 * @module
 */
import { writeFile } from 'node:fs/promises';
import { dumpYaml, KubeConfig } from '@kubernetes/client-node';

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/**
 * A client-node KubeConfig with one cluster (`url`, trusting `caPem`), one user, and a current context joining
 * them. The user authenticates with a client certificate when one is given, else with a bearer token when one is
 * given, else anonymously. Without `caPem` the URL is plain http, which client-node refuses unless
 * `skipTLSVerify` is set.
 */
export function buildKubeConfig(options: {
  name: string;
  url: string;
  caPem?: string;
  user: string;
  client?: { certPem: string; keyPem: string };
  token?: string;
}): KubeConfig {
  const kubeConfig = new KubeConfig();
  const { caPem, client, token } = options;
  kubeConfig.loadFromOptions({
    clusters: [
      {
        name: options.name,
        server: options.url,
        ...(caPem !== undefined ? { caData: b64(caPem), skipTLSVerify: false } : { skipTLSVerify: true }),
      },
    ],
    users: [
      client
        ? { name: options.user, certData: b64(client.certPem), keyData: b64(client.keyPem) }
        : { name: options.user, ...(token !== undefined ? { token } : {}) },
    ],
    contexts: [{ name: options.name, cluster: options.name, user: options.user }],
    currentContext: options.name,
  });
  return kubeConfig;
}

/**
 * Writes `kubeConfig` to `path` as YAML that kubectl and client-node load, mode 0600 because it holds credentials.
 */
export async function writeKubeConfigFile(kubeConfig: KubeConfig, path: string): Promise<void> {
  await writeFile(path, dumpYaml(JSON.parse(kubeConfig.exportConfig())), { mode: 0o600 });
}
