import { writeFile } from 'node:fs/promises';
import { KubeConfig } from '@kubernetes/client-node';

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

/**
 * A client-node KubeConfig with one cluster (`url`, trusting `caPem`), one user, and a current context joining
 * them. The user authenticates with a client certificate when one is given, else with a bearer token.
 */
export function buildKubeConfig(options: {
  name: string;
  url: string;
  caPem: string;
  user: string;
  client?: { certPem: string; keyPem: string };
  token?: string;
}): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: options.name, server: options.url, caData: b64(options.caPem), skipTLSVerify: false }],
    users: [
      options.client
        ? { name: options.user, certData: b64(options.client.certPem), keyData: b64(options.client.keyPem) }
        : { name: options.user, token: options.token },
    ],
    contexts: [{ name: options.name, cluster: options.name, user: options.user }],
    currentContext: options.name,
  });
  return kubeConfig;
}

/**
 * Writes `kubeConfig` to `path` as (JSON-formatted) YAML that kubectl and client-node load, mode 0600 because it
 * holds credentials.
 */
export async function writeKubeConfigFile(kubeConfig: KubeConfig, path: string): Promise<void> {
  const pretty = `${JSON.stringify(JSON.parse(kubeConfig.exportConfig()), null, 2)}\n`;
  await writeFile(path, pretty, { mode: 0o600 });
}
