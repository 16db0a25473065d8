/**
 * The literal secrets the manager's redactor looks for: the connection's credentials, strings the user named, and
 * the data of Secrets in the manager's caches.
 */
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Store } from '../store/index.js';
import type { Connection } from '../transport/index.js';

/** Fields of a kubeconfig auth-provider config that hold credentials. */
const AUTH_PROVIDER_SECRETS = ['access-token', 'id-token', 'refresh-token', 'client-secret'];

/**
 * A provider of literals for `redactor`: it returns the same array until a Secret cache changes.
 *
 * # Guarantees
 * - Includes the KubeConfig user's token, password, client key (as given and decoded) and auth-provider tokens;
 *   every string of `extra`; and each value of `data` (base64 as stored, and decoded) and `stringData` of every
 *   Secret in the stores `secretStores()` returns.
 */
export function credentialLiterals(
  connection: Connection,
  extra: readonly string[],
  secretStores: () => ReadonlyArray<Store<KubernetesObject>>,
): () => readonly string[] {
  const fixed = [...connectionSecrets(connection), ...extra];
  let seen: ReadonlyArray<Store<KubernetesObject>> = [];
  let literals: readonly string[] = fixed;
  return () => {
    const stores = secretStores();
    if (stores.length === seen.length && stores.every((store, i) => store === seen[i])) return literals;
    seen = stores;
    const values = [...fixed];
    for (const store of stores) {
      for (const secret of store.list()) values.push(...secretValues(secret));
    }
    literals = values;
    return literals;
  };
}

function connectionSecrets(connection: Connection): string[] {
  const user =
    typeof (connection as KubeConfig).getCurrentUser === 'function'
      ? (connection as KubeConfig).getCurrentUser()
      : null;
  if (user === null) return [];
  const values: string[] = [];
  for (const value of [user.token, user.password, user.keyData])
    if (typeof value === 'string' && value !== '') values.push(value);
  if (typeof user.keyData === 'string' && user.keyData !== '') values.push(decoded(user.keyData));
  const config = (user.authProvider as { config?: Record<string, unknown> } | undefined)?.config ?? {};
  for (const key of AUTH_PROVIDER_SECRETS)
    if (typeof config[key] === 'string' && config[key] !== '') values.push(config[key]);
  return values;
}

function secretValues(secret: KubernetesObject): string[] {
  const { data, stringData } = secret as { data?: Record<string, unknown>; stringData?: Record<string, unknown> };
  const values: string[] = [];
  for (const value of Object.values(data ?? {})) {
    if (typeof value !== 'string' || value === '') continue;
    values.push(value, decoded(value));
  }
  for (const value of Object.values(stringData ?? {}))
    if (typeof value === 'string' && value !== '') values.push(value);
  return values;
}

function decoded(base64: string): string {
  return Buffer.from(base64, 'base64').toString('utf8');
}
