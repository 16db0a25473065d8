/**
 * The seam between the reflector and HTTP: two cold Observables, so specs can script a fake in virtual time.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { Observable } from 'rxjs';
import { getJson, watchLines } from './http.js';
import type { QueryParams, WatchRequestOptions } from './http.js';

/**
 * What `listWatch` and discovery need from the network.
 *
 * # Guarantees (every implementation must keep them)
 * - Both methods are cold: nothing is sent until subscription, and each subscription is one request.
 * - Unsubscribing aborts the request at once.
 * - `get` emits exactly one decoded JSON value then completes, or errors with `ApiError` / `TransportError`.
 * - `watch` emits raw lines in arrival order; completes on a clean server close; errors on an error status or a
 *   cut stream. `onActivity` is called whenever bytes arrive; `onOpen` once, when the server accepted the watch
 *   (an implementation that cannot tell may skip it: the reflector then takes the first line as the sign).
 */
export interface Transport {
  get(path: string, query: QueryParams, options?: { readonly accept?: string }): Observable<unknown>;
  watch(path: string, query: QueryParams, options?: Omit<WatchRequestOptions, 'signal'>): Observable<string>;
}

const transports = new WeakMap<KubeConfig, Transport>();

/**
 * The HTTP {@link Transport} for a KubeConfig; one instance per KubeConfig, so caches keyed by transport (such as
 * discovery) are per KubeConfig too.
 */
export function kubeTransport(kc: KubeConfig): Transport {
  let transport = transports.get(kc);
  if (transport === undefined) {
    transport = {
      get: (path, query, options) =>
        new Observable<unknown>((subscriber) => {
          const controller = new AbortController();
          let settled = false;
          getJson(kc, path, query, { accept: options?.accept, signal: controller.signal }).then(
            (value) => {
              settled = true;
              subscriber.next(value);
              subscriber.complete();
            },
            (err: unknown) => {
              settled = true;
              subscriber.error(err);
            },
          );
          // Only an in-flight request needs aborting; a settled one has already released its socket.
          return () => {
            if (!settled) controller.abort();
          };
        }),
      watch: (path, query, options) => watchLines(kc, path, query, options),
    };
    transports.set(kc, transport);
  }
  return transport;
}
