/**
 * The {@link LeaseClient} over the transport seam's general request, until the typed resource client serves it.
 */
import { catchError, map, of, throwError, type Observable } from 'rxjs';
import { isNotFound, TransportError, type Transport } from '../transport/index.js';
import type { LeaseClient } from './lease-client.js';
import type { LeaseObject } from './types.js';

const LEASES = '/apis/coordination.k8s.io/v1/namespaces';

/**
 * The Lease `namespace/name` through `transport.request`.
 *
 * # Guarantees
 * - Keeps the {@link LeaseClient} contract: 404 on `get` is `undefined`, every other error passes through as the
 *   transport typed it; a 2xx whose body is not a Lease errors with `TransportError('MalformedResponse')`.
 */
export function transportLeaseClient(transport: Transport, namespace: string, name: string): LeaseClient {
  const collection = `${LEASES}/${encodeURIComponent(namespace)}/leases`;
  const path = `${collection}/${encodeURIComponent(name)}`;
  const send = (method: 'GET' | 'POST' | 'PUT', target: string, body?: LeaseObject): Observable<LeaseObject> =>
    transport.request(body === undefined ? { method, path: target } : { method, path: target, body }).pipe(
      map((response) => asLease(response.body, `${method} ${target}`)),
    );
  return {
    describe: `${namespace}/${name}`,
    get: () => send('GET', path).pipe(
      catchError((error: unknown) => (isNotFound(error) ? of(undefined) : throwError(() => error))),
    ),
    create: (lease) => send('POST', collection, lease),
    replace: (lease) => send('PUT', path, lease),
  };
}

function asLease(body: unknown, what: string): LeaseObject {
  const metadata = (body as { metadata?: unknown } | null)?.metadata;
  if (typeof body !== 'object' || body === null || typeof metadata !== 'object' || metadata === null) {
    throw new TransportError('MalformedResponse', `${what}: the answer is not a Lease`);
  }
  return body as LeaseObject;
}
