/**
 * Installing an example's CustomResourceDefinition from its manifest (the one YAML file `kubectl apply` also
 * takes), for its demo, its `--install-crd` flag and its specs.
 * @module
 */
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  catchError,
  defer,
  filter,
  firstValueFrom,
  map,
  mergeMap,
  of,
  repeat,
  take,
  throwError,
  timeout,
  type Observable,
} from 'rxjs';
import { parse as parseYaml } from 'yaml';
import { apiErrors, resourceClient, type Connection, type ResourceRef } from '../../src/index.js';
import type { ExampleTarget } from './cli.js';
import { messageOf } from './health.js';

/** The CRD kind, for the client. */
export const CRD_RESOURCE: ResourceRef = Object.freeze({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
});

/** How often {@link installCrd} asks whether the CRD is served yet, ms. */
const POLL_MS = 200;

interface CrdObject extends KubernetesObject {
  readonly spec?: unknown;
  readonly status?: {
    readonly conditions?: ReadonlyArray<{
      readonly type?: string;
      readonly status?: string;
      readonly message?: string;
    }>;
  };
}

/**
 * The CRD manifest at `path` (one YAML document), parsed.
 *
 * # Guarantees
 * - Throws with the path for a file that is not one YAML mapping of kind `CustomResourceDefinition` with a name.
 */
export function readCrd(path: URL | string): KubernetesObject {
  const crd = parseYaml(readFileSync(path, 'utf8')) as CrdObject | null;
  if (crd === null || typeof crd !== 'object' || crd.kind !== CRD_RESOURCE.kind || !crd.metadata?.name) {
    throw new TypeError(`${String(path)} is not a CustomResourceDefinition manifest with a metadata.name`);
  }
  return crd;
}

/** Options of {@link installCrd}. */
export interface InstallCrdOptions {
  /** The field manager of the create or replace (the installer's, not the controller's). */
  readonly fieldManager: string;
  /** Also wait until a list of this kind answers: discovery serves it, so a client can use it at once. */
  readonly served?: ResourceRef;
  /** How long to wait, ms. Default 30 000. */
  readonly timeoutMs?: number;
}

/**
 * Creates `crd`, or replaces the installed one when its spec differs (guarded by its resourceVersion), as `kubectl
 * create` and `kubectl replace` would, then waits until it is `Established` and, with `served`, until its kind lists.
 * kube-apiserver takes a second or two; the in-memory server establishes a CRD in the create response.
 *
 * # Guarantees
 * - Idempotent: an installed CRD with the same spec is not written again.
 * - Rejects with the API server's error when the write is refused (e.g. 403 without rights on CRDs), and after
 *   `timeoutMs` with a message naming the CRD and what it was still waiting for.
 *
 * # Caveats
 * - Not server-side apply: the in-memory server's apply drops a CRD's empty `subresources.status: {}` (kube-apiserver
 *   keeps it), so the CRD would be installed there without its status subresource.
 * - Polls on the async scheduler, in real time: it is for programs and specs that talk to a server, not for
 *   virtual-time specs.
 */
export function installCrd(connection: Connection, crd: KubernetesObject, options: InstallCrdOptions): Promise<void> {
  const crds = resourceClient<CrdObject>(connection, CRD_RESOURCE, { fieldManager: options.fieldManager });
  const name = crd.metadata!.name!;
  const timeoutMs = options.timeoutMs ?? 30_000;
  let waitingFor = 'the create';
  const write$ = crds.create(crd).pipe(
    catchError((error: unknown) =>
      !apiErrors.isAlreadyExists(error)
        ? throwError(() => error)
        : crds.get(name).pipe(
            mergeMap((installed) =>
              isDeepStrictEqual(installed.spec, (crd as CrdObject).spec)
                ? of(installed)
                : crds.replace({
                    ...crd,
                    metadata: { ...crd.metadata, resourceVersion: installed.metadata?.resourceVersion },
                  }),
            ),
          ),
    ),
  );
  // One look: true once the CRD is Established (and its kind lists, when asked); `waitingFor` says what is missing.
  const served$ = (crdNow: CrdObject): Observable<boolean> => {
    const established = crdNow.status?.conditions?.find((condition) => condition.type === 'Established');
    if (established?.status !== 'True') {
      waitingFor = established?.message ? `Established (${established.message})` : 'Established';
      return of(false);
    }
    if (options.served === undefined) return of(true);
    const kind = options.served.kind;
    return resourceClient(connection, options.served)
      .list({ limit: 1 })
      .pipe(
        map(() => true),
        catchError((error: unknown) => {
          waitingFor = `a list of ${kind} to answer (${messageOf(error)})`;
          return of(false);
        }),
      );
  };
  const poll$ = defer(() => crds.get(name)).pipe(
    mergeMap(served$),
    repeat({ delay: POLL_MS }),
    filter((served) => served),
    take(1),
  );
  return firstValueFrom(
    write$.pipe(
      mergeMap((written) => served$(written).pipe(mergeMap((served) => (served ? of(true) : poll$)))),
      timeout({
        first: timeoutMs,
        with: () =>
          throwError(
            () => new Error(`the CRD ${name} was not served within ${timeoutMs} ms: still waiting for ${waitingFor}`),
          ),
      }),
      map(() => undefined),
    ),
  );
}

/**
 * For an example's `main.ts`: installs `crd` on `target` and says so as `<name>: installed the CRD <crd>`; on failure
 * says why on stderr, stops the embedded cluster and exits with code 1.
 */
export async function installExampleCrd(
  name: string,
  target: ExampleTarget,
  crd: KubernetesObject,
  served: ResourceRef,
): Promise<void> {
  try {
    await installCrd(target.kubeConfig, crd, { fieldManager: `${name}-install`, served });
    console.log(`${name}: installed the CRD ${crd.metadata!.name}`);
  } catch (error) {
    console.error(`${name}: could not install the CRD ${crd.metadata!.name}: ${messageOf(error)}`);
    await target.cluster?.stop();
    process.exit(1);
  }
}
