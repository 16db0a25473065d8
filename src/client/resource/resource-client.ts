/**
 * `resourceClient`: the typed client of one kind, every call one request through the transport seam.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { type Observable, defer, map, of, switchMap } from 'rxjs';
import type { ResourceRef } from '../../resources/index.js';
import { collectionPath, resolveResource$ } from '../../resources/index.js';
import { checkSelectors, type SelectorOptions } from '../../selectors/index.js';
import {
  TransportError,
  checkWarningHandler,
  printWarningOnce,
  requestWithWarnings,
  transportOf,
} from '../../transport/index.js';
import type { Connection, QueryParams, TransportRequest } from '../../transport/index.js';
import { mutate } from '../mutate/index.js';
import { withSignal } from './abortable.js';
import type { ResourceClient } from './client.js';
import { DEFAULT_RETRY } from './options.js';
import { listAllPages } from './pages.js';
import { hasStatusSubresource$ } from './status-subresource.js';
import { namespaceOf, objectPath, targetOf } from './target.js';
import {
  baseOfPatch,
  checkWriteObserver,
  observeWrite,
  versionIn,
  type ClientWrite,
  type WriteVerb,
} from './write-observer.js';
import type { ResolvedResource } from 'rxkube/extend';

/** The content type of server-side apply; the body is JSON, which is YAML. */
export const APPLY_PATCH = 'application/apply-patch+yaml';

const patchContentTypes: Readonly<Record<ResourceClient.Patch['type'], string>> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

/**
 * A typed client for the kind `resource` over `connection` (a KubeConfig, or any Transport such as an in-process
 * cluster), scoped to `options.namespace` or cluster-wide.
 *
 * # Guarantees
 * - See `ResourceClient`: cold Observables, one request per subscription, aborted on unsubscribe or by a
 *   `signal`, typed `ApiError`s, no retries except conflicts inside `mutate`.
 * - Every request goes through the connection's `Transport.request`, never around it.
 * - The API server's warnings (unknown fields a write dropped, deprecated APIs) go to `options.onWarning`, from
 *   successful and refused requests alike; by default each distinct text is printed once per process.
 * - The kind is resolved to its URL (built-in table, else discovery, cached per connection) on first use, not at
 *   creation, so a client of a CRD that is not installed yet can be created; its calls fail with
 *   `UnknownResourceError` until it is.
 *
 * # Caveats
 * - A namespaced kind needs a namespace for every call but `list`: from the client, or from the object.
 *
 * @example
 * ```ts
 * const pods = resourceClient<V1Pod>(kubeConfig, { apiVersion: 'v1', kind: 'Pod' }, { namespace: 'default', fieldManager: 'my-controller' });
 * pods.mutate(pod, (draft) => { draft.metadata!.labels = { ...draft.metadata!.labels, seen: 'true' }; });
 * ```
 */
export function resourceClient<T extends KubernetesObject>(
  connection: Connection,
  resource: ResourceRef,
  options: ResourceClient.Options = {},
): ResourceClient<T> {
  const transport = transportOf(connection);
  checkWarningHandler('resourceClient', options.onWarning);
  const onWarning = options.onWarning ?? printWarningOnce;
  const resolved$ = (): Observable<ResolvedResource> => defer(() => resolveResource$(transport, resource, onWarning));
  const namespace = options.namespace === '' ? undefined : options.namespace;
  const fieldManager = options.fieldManager;
  checkWriteObserver(options.writeObserver);
  const observer = options.writeObserver;

  /**
   * One request, built once the kind is resolved; its JSON body is the result. A write (`describe` given) is told to
   * the write observer, unless it is a dry run.
   */
  const send = <R>(
    signal: AbortSignal | undefined,
    build: (r: ResolvedResource) => TransportRequest,
    describe?: (r: ResolvedResource) => WriteTarget,
  ): Observable<R> =>
    withSignal(
      resolved$().pipe(
        // A request that cannot be built (no name, no namespace) errors here, at subscription, never at call time.
        switchMap((r) => {
          const request = build(r);
          const answer$ = requestWithWarnings(transport, request, onWarning).pipe(
            map((response) => objectBody<R>(request, response.body)),
          );
          if (observer === undefined || describe === undefined || request.query?.['dryRun'] === 'All') return answer$;
          return observeWrite(answer$, observer, { resource: client.resource, ...describe(r), signal });
        }),
      ),
      signal,
    );
  /** What the observer hears of a write to `ref`. */
  const writeTo = (
    r: ResolvedResource,
    ref: ResourceClient.ObjectRef,
    what: string,
    verb: WriteVerb,
    status: boolean,
    base: string | undefined,
  ): WriteTarget => {
    const target = targetOf(r, namespace, ref, what);
    return {
      verb,
      subresource: status ? 'status' : undefined,
      namespace: target.namespace,
      name: target.name,
      generateName: undefined,
      base,
    };
  };

  /** `call()`, unless the selectors are text the server would refuse: then an error at subscription, before any request. */
  const withSelectors = <R>(name: string, o: SelectorOptions | undefined, call: () => Observable<R>): Observable<R> =>
    defer(() => {
      checkSelectors(`resourceClient.${name}`, o ?? {});
      return call();
    });

  const writeQuery = (o: ResourceClient.WriteOptions | undefined): QueryParams => ({
    dryRun: o?.dryRun === true ? 'All' : undefined,
    fieldManager: o?.fieldManager ?? fieldManager,
    fieldValidation: o?.fieldValidation,
  });
  const applyQuery = (o: ResourceClient.ApplyOptions | undefined): QueryParams => ({
    ...writeQuery(o),
    force: o?.force === true ? true : undefined,
  });
  const applyBody = (object: object): object => {
    const partial = object as { apiVersion?: string; kind?: string };
    return { ...object, apiVersion: partial.apiVersion ?? resource.apiVersion, kind: partial.kind ?? resource.kind };
  };

  /** One GET of the collection: one page when `limit` is given. */
  const listPage = (o: ResourceClient.ListOptions | undefined): Observable<ResourceClient.ObjectList<T>> =>
    send(o?.signal, (r) => ({
      method: 'GET',
      path: collectionPath(r, namespace),
      query: {
        labelSelector: o?.labelSelector,
        fieldSelector: o?.fieldSelector,
        limit: o?.limit,
        continue: o?.continue,
        resourceVersion: o?.resourceVersion,
        resourceVersionMatch: o?.resourceVersionMatch,
      },
    }));

  const client: ResourceClient<T> = {
    resource: Object.freeze({ apiVersion: resource.apiVersion, kind: resource.kind }),
    namespace,
    fieldManager,
    inNamespace: (ns) => resourceClient<T>(transport, resource, { ...options, namespace: ns }),

    get: (ref, o) =>
      send(o?.signal, (r) => ({
        method: 'GET',
        path: objectPath(r, targetOf(r, namespace, ref, 'get')),
        query: { resourceVersion: o?.resourceVersion },
      })),
    list: (o) =>
      withSelectors('list', o, () =>
        o?.limit !== undefined || o?.continue !== undefined ? listPage(o) : listAllPages(listPage, o ?? {}),
      ),
    create: (object, o) =>
      send(
        o?.signal,
        (r) => ({
          method: 'POST',
          path: collectionPath(r, namespaceOf(r, namespace, object?.metadata?.namespace, 'create')),
          query: writeQuery(o),
          body: object,
        }),
        (r) => ({
          verb: 'create',
          subresource: undefined,
          namespace: namespaceOf(r, namespace, object?.metadata?.namespace, 'create'),
          name: nonEmpty(object?.metadata?.name),
          generateName: nonEmpty(object?.metadata?.generateName),
          base: null,
        }),
      ),
    replace: (object, o) =>
      send(
        o?.signal,
        (r) => ({
          method: 'PUT',
          path: objectPath(r, targetOf(r, namespace, object, 'replace')),
          query: writeQuery(o),
          body: object,
        }),
        (r) => writeTo(r, object, 'replace', 'replace', false, versionIn(object)),
      ),
    patch: (ref, patch, o) =>
      send(
        o?.signal,
        (r) => ({
          method: 'PATCH',
          path: objectPath(r, targetOf(r, namespace, ref, 'patch')),
          query: writeQuery(o),
          body: patch.body,
          contentType: patchContentTypes[patch.type],
        }),
        (r) => writeTo(r, ref, 'patch', 'patch', false, baseOfPatch(patch)),
      ),
    apply: (object, o) =>
      send(
        o?.signal,
        (r) => ({
          method: 'PATCH',
          path: objectPath(r, targetOf(r, namespace, object as object, 'apply')),
          query: applyQuery(o),
          body: applyBody(object as object),
          contentType: APPLY_PATCH,
        }),
        (r) => writeTo(r, object as object, 'apply', 'apply', false, versionIn(object)),
      ),
    delete: (ref, o) =>
      send(
        o?.signal,
        (r) => ({
          method: 'DELETE',
          path: objectPath(r, targetOf(r, namespace, ref, 'delete')),
          query: dryRunQuery(o),
          body: deleteOptionsBody(o),
        }),
        (r) => writeTo(r, ref, 'delete', 'delete', false, o?.preconditions?.resourceVersion),
      ),
    deleteCollection: (o) =>
      withSelectors('deleteCollection', o, () =>
        send(o?.signal, (r) => ({
          method: 'DELETE',
          path: collectionPath(r, namespaceOf(r, namespace, undefined, 'deleteCollection')),
          query: { ...dryRunQuery(o), labelSelector: o?.labelSelector, fieldSelector: o?.fieldSelector },
          body: deleteOptionsBody(o),
        })),
      ),

    getStatus: (ref, o) =>
      send(o?.signal, (r) => ({
        method: 'GET',
        path: objectPath(r, targetOf(r, namespace, ref, 'getStatus'), 'status'),
        query: { resourceVersion: o?.resourceVersion },
      })),
    replaceStatus: (object, o) =>
      send(
        o?.signal,
        (r) => ({
          method: 'PUT',
          path: objectPath(r, targetOf(r, namespace, object, 'replaceStatus'), 'status'),
          query: writeQuery(o),
          body: object,
        }),
        (r) => writeTo(r, object, 'replaceStatus', 'replace', true, versionIn(object)),
      ),
    patchStatus: (ref, patch, o) =>
      send(
        o?.signal,
        (r) => ({
          method: 'PATCH',
          path: objectPath(r, targetOf(r, namespace, ref, 'patchStatus'), 'status'),
          query: writeQuery(o),
          body: patch.body,
          contentType: patchContentTypes[patch.type],
        }),
        (r) => writeTo(r, ref, 'patchStatus', 'patch', true, baseOfPatch(patch)),
      ),
    applyStatus: (object, o) =>
      send(
        o?.signal,
        (r) => ({
          method: 'PATCH',
          path: objectPath(r, targetOf(r, namespace, object as object, 'applyStatus'), 'status'),
          query: applyQuery(o),
          body: applyBody(object as object),
          contentType: APPLY_PATCH,
        }),
        (r) => writeTo(r, object as object, 'applyStatus', 'apply', true, versionIn(object)),
      ),

    mutate: (target, recipe, o) =>
      withSignal(
        mutate(
          {
            client,
            resource: resolved$,
            hasStatusSubresource: () =>
              options.statusSubresource !== undefined
                ? of(options.statusSubresource)
                : resolved$().pipe(switchMap((r) => hasStatusSubresource$(transport, r, onWarning))),
            retry: o?.retry ?? options.retry ?? DEFAULT_RETRY,
            scheduler: options.scheduler,
            random: options.random,
          },
          target,
          recipe,
          o,
        ),
        o?.signal,
      ),
  };
  return client;
}

/** What a write observer hears of a write besides its kind and signal. */
type WriteTarget = Omit<ClientWrite, 'resource' | 'signal'>;

/** `value` when it is a non-empty string. */
function nonEmpty(value: string | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The answer's JSON object; anything else (a proxy's HTML page, an empty body) is a `MalformedResponse`. */
function objectBody<R>(request: TransportRequest, body: unknown): R {
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body as R;
  const what = typeof body === 'string' ? `${body.length} characters of text` : JSON.stringify(body);
  throw new TransportError(
    'MalformedResponse',
    `${request.method} ${request.path}: expected a JSON object, got ${what}`,
  );
}

/**
 * A delete's dry run goes in the query, which kube-apiserver reads as it reads the `DeleteOptions` body; the
 * in-memory server reads only the query (see docs/contract-differences.md), and a dry run that deleted would be the
 * worst way to find out.
 */
function dryRunQuery(o: ResourceClient.DeleteOptions | undefined): QueryParams {
  return { dryRun: o?.dryRun === true ? 'All' : undefined };
}

/** The `DeleteOptions` body of a delete, or none when there is nothing to say. */
function deleteOptionsBody(o: ResourceClient.DeleteOptions | undefined): object | undefined {
  if (o === undefined) return undefined;
  const body = {
    ...(o.gracePeriodSeconds !== undefined ? { gracePeriodSeconds: o.gracePeriodSeconds } : {}),
    ...(o.propagationPolicy !== undefined ? { propagationPolicy: o.propagationPolicy } : {}),
    ...(o.preconditions !== undefined ? { preconditions: o.preconditions } : {}),
  };
  return Object.keys(body).length === 0 ? undefined : { apiVersion: 'v1', kind: 'DeleteOptions', ...body };
}
