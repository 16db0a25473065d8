/**
 * The Website CRD (`crd.yaml`, the one file every installer uses) and how the demo and the specs install it.
 * @module
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { KubernetesObject } from '@kubernetes/client-node';
import { firstValueFrom } from 'rxjs';
import { parse as parseYaml } from 'yaml';
import { isAlreadyExists, resourceClient, type Connection } from '../../src/index.js';
import { WEBSITE, type Website } from './website.js';

/** Where the CRD manifest is. */
export const CRD_PATH = fileURLToPath(new URL('./crd.yaml', import.meta.url));

/** The CRD kind, for the client. */
export const CRD_RESOURCE = Object.freeze({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' });

/** The field manager of the CRD's installation (not the operator's: installing the CRD is not its job). */
export const CRD_FIELD_MANAGER = 'website-operator-install';

/** The CRD manifest, parsed. */
export function websiteCrd(): KubernetesObject {
  return parseYaml(readFileSync(CRD_PATH, 'utf8')) as KubernetesObject;
}

interface CrdStatus {
  readonly status?: { readonly conditions?: ReadonlyArray<{ readonly type?: string; readonly status?: string; readonly message?: string }> };
}

/**
 * Installs (or updates) the Website CRD, as `kubectl create` or `kubectl replace` would, and waits until Websites
 * are served: the CRD is `Established` and a list of Websites answers (kube-apiserver takes a second or two; the
 * in-memory server none).
 *
 * Not server-side apply: the in-memory server's apply drops the empty `subresources.status: {}` (kube-apiserver
 * keeps it), which would install the CRD without its status subresource there.
 *
 * # Guarantees
 * - Idempotent: installing an installed CRD leaves its spec as the manifest says.
 * - Rejects with the API server's error when the CRD is refused, and with a message naming what was awaited when
 *   Websites are not served within `timeoutMs`.
 */
export async function installWebsiteCrd(connection: Connection, timeoutMs = 30_000): Promise<void> {
  const crds = resourceClient<KubernetesObject & CrdStatus>(connection, CRD_RESOURCE, { fieldManager: CRD_FIELD_MANAGER });
  const crd = websiteCrd();
  await firstValueFrom(crds.create(crd)).catch(async (error: unknown) => {
    if (!isAlreadyExists(error)) throw error;
    const installed = await firstValueFrom(crds.get(crd.metadata!.name!));
    await firstValueFrom(crds.replace({ ...crd, metadata: { ...crd.metadata, resourceVersion: installed.metadata?.resourceVersion } }));
  });
  const websites = resourceClient<Website>(connection, WEBSITE);
  const deadline = Date.now() + timeoutMs;
  let last = 'not established';
  for (;;) {
    const current = await firstValueFrom(crds.get(crd.metadata!.name!));
    const established = current.status?.conditions?.find((condition) => condition.type === 'Established');
    if (established?.status === 'True') {
      const served = await firstValueFrom(websites.list({ limit: 1 })).then(() => true, (error: unknown) => {
        last = `established, but listing Websites failed: ${(error as Error).message}`;
        return false;
      });
      if (served) return;
    } else {
      last = established?.message ? `not established: ${established.message}` : 'not established';
    }
    if (Date.now() > deadline) throw new Error(`the Website CRD was not served within ${timeoutMs} ms (${last})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
