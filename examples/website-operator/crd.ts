/**
 * The Website CRD (`deploy/crd.yaml`, the one file every installer uses) and how the demo, `--install-crd` and the specs
 * install it.
 * @module
 */
import { fileURLToPath } from 'node:url';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Connection } from '../../src/index.js';
import { installCrd, readCrd } from '../shared/crd.js';
import { WEBSITE } from './website.js';

/** Where the CRD manifest is. */
export const CRD_PATH = fileURLToPath(new URL('./deploy/crd.yaml', import.meta.url));

/** The field manager of the CRD's installation (not the operator's: installing the CRD is not its job). */
export const CRD_FIELD_MANAGER = 'website-operator-install';

/** The CRD manifest, parsed. */
export function websiteCrd(): KubernetesObject {
  return readCrd(CRD_PATH);
}

/**
 * Installs (or updates) the Website CRD and waits until Websites are served (see `installCrd`): the CRD is
 * `Established` and a list of Websites answers.
 *
 * # Guarantees
 * - Idempotent; rejects with the API server's error when the CRD is refused, and with what it was waiting for when
 *   Websites are not served within `timeoutMs`.
 */
export function installWebsiteCrd(connection: Connection, timeoutMs = 30_000): Promise<void> {
  return installCrd(connection, websiteCrd(), { fieldManager: CRD_FIELD_MANAGER, served: WEBSITE, timeoutMs });
}
