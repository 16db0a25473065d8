import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCertificateAuthority, issueCertificate } from '../pki/index.js';
import type { CertificateAuthority, Pem } from '../pki/index.js';
import { fetchText } from './http.js';
import type { ClientTls } from './http.js';
import { spawnGroup } from './processes.js';
import type { GroupProcess } from './processes.js';
import { waitUntilReady } from './readiness.js';

/** The user and group that the admin client certificate and the admin token authenticate as. */
export const ADMIN_USER = 'rxkube-admin';
export const ADMIN_GROUP = 'system:masters';

/** Everything kube-apiserver needs on disk, generated once per control plane and kept across restarts. */
export interface ApiServerSecrets {
  readonly ca: CertificateAuthority;
  readonly serving: Pem;
  readonly admin: Pem;
  readonly adminToken: string;
  readonly files: {
    readonly caCert: string;
    readonly servingCert: string;
    readonly servingKey: string;
    readonly serviceAccountKey: string;
    readonly serviceAccountPublicKey: string;
    readonly tokens: string;
  };
}

/** Generates the CA, serving and admin certificates, the service-account key and the token file under `dir`. */
export function writeApiServerSecrets(dir: string, serviceIp: string, token?: string): ApiServerSecrets {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const ca = createCertificateAuthority({ commonName: 'rxkube-control-plane-ca' });
  const serving = issueCertificate(ca, {
    commonName: 'kube-apiserver',
    dnsNames: [
      'localhost',
      'kubernetes',
      'kubernetes.default',
      'kubernetes.default.svc',
      'kubernetes.default.svc.cluster.local',
    ],
    ipAddresses: ['127.0.0.1', '::1', serviceIp],
    usage: 'server',
  });
  const admin = issueCertificate(ca, { commonName: ADMIN_USER, organizations: [ADMIN_GROUP], usage: 'client' });
  const serviceAccount = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const adminToken = token ?? randomBytes(24).toString('hex');
  const files = {
    caCert: join(dir, 'ca.crt'),
    servingCert: join(dir, 'apiserver.crt'),
    servingKey: join(dir, 'apiserver.key'),
    serviceAccountKey: join(dir, 'sa.key'),
    serviceAccountPublicKey: join(dir, 'sa.pub'),
    tokens: join(dir, 'tokens.csv'),
  };
  const write = (path: string, text: string): void => writeFileSync(path, text, { mode: 0o600 });
  write(files.caCert, ca.certPem);
  write(files.servingCert, serving.certPem);
  write(files.servingKey, serving.keyPem);
  write(files.serviceAccountKey, serviceAccount.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  write(files.serviceAccountPublicKey, serviceAccount.publicKey.export({ type: 'spki', format: 'pem' }).toString());
  // token,user,uid,"group1,group2"
  write(files.tokens, `${adminToken},${ADMIN_USER},${ADMIN_USER},"${ADMIN_GROUP}"\n`);
  return { ca, serving, admin, adminToken, files };
}

/** How to launch kube-apiserver; the same config is reused verbatim by restarts. */
export interface ApiServerConfig {
  readonly binary: string;
  readonly workDir: string;
  readonly port: number;
  readonly etcdUrl: string;
  readonly secrets: ApiServerSecrets;
  readonly serviceClusterIpRange: string;
  readonly etcdCompactionInterval: string;
  readonly extraArgs: readonly string[];
}

/**
 * The kube-apiserver command line. Later flags in `extraArgs` override earlier scalar flags (pflag keeps the last).
 */
export function apiServerArgs(config: ApiServerConfig): string[] {
  const { files } = config.secrets;
  return [
    `--etcd-servers=${config.etcdUrl}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--secure-port=${config.port}`,
    `--cert-dir=${join(config.workDir, 'apiserver-cert-dir')}`,
    `--tls-cert-file=${files.servingCert}`,
    `--tls-private-key-file=${files.servingKey}`,
    `--client-ca-file=${files.caCert}`,
    `--token-auth-file=${files.tokens}`,
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${files.serviceAccountPublicKey}`,
    `--service-account-signing-key-file=${files.serviceAccountKey}`,
    `--service-cluster-ip-range=${config.serviceClusterIpRange}`,
    '--authorization-mode=RBAC',
    '--allow-privileged=true',
    // No kube-controller-manager runs, so nothing creates the `default` ServiceAccount pods would need.
    '--disable-admission-plugins=ServiceAccount',
    '--watch-cache=true',
    // Streaming lists (sendInitialEvents); on by default since 1.34, pinned so a default flip cannot surprise us.
    '--feature-gates=WatchList=true',
    `--etcd-compaction-interval=${config.etcdCompactionInterval}`,
    '--profiling=false',
    ...config.extraArgs,
  ];
}

/** Client TLS as the admin user, for probing before a KubeConfig exists. */
export function adminTls(secrets: ApiServerSecrets): ClientTls {
  return { ca: secrets.ca.certPem, cert: secrets.admin.certPem, key: secrets.admin.keyPem };
}

/** Starts kube-apiserver and waits until an authenticated `GET /readyz` answers 200. */
export async function startApiServer(config: ApiServerConfig, timeoutMs: number): Promise<GroupProcess> {
  const process = spawnGroup(
    'kube-apiserver',
    config.binary,
    apiServerArgs(config),
    join(config.workDir, 'kube-apiserver.log'),
    config.workDir,
  );
  const tls = adminTls(config.secrets);
  try {
    await waitUntilReady(
      'kube-apiserver',
      process,
      async () => {
        const { status, body } = await fetchText(`https://127.0.0.1:${config.port}/readyz`, { tls, timeoutMs: 3000 });
        return status === 200
          ? true
          : `HTTP ${status} ${
              body
                .trim()
                .split('\n')
                .filter((l) => l.includes('failed'))
                .join('; ') || body.trim()
            }`;
      },
      timeoutMs,
    );
  } catch (error) {
    await process.stop(2000);
    throw error;
  }
  return process;
}
