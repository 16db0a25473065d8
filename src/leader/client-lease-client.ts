/**
 * The {@link LeaseClient} over the typed resource client: the elector's Lease reads and writes go through the same
 * client layer (and so the same transport seam) as every other write.
 */
import { catchError, of, throwError } from 'rxjs';
import { resourceClient } from '../client/index.js';
import { isNotFound, type Connection, type WarningHandler } from '../transport/index.js';
import type { LeaseClient } from './lease-client.js';
import type { LeaseObject } from './types.js';

/**
 * The Lease `namespace/name` through `resourceClient` for `coordination.k8s.io/v1` Leases.
 *
 * # Guarantees
 * - Keeps the {@link LeaseClient} contract: 404 on `get` is `undefined`; every other error passes through as the
 *   client typed it (409 `AlreadyExists` on create, 409 `Conflict` on a stale replace); nothing is retried here.
 * - The API server's warnings on these requests go to `onWarning`.
 */
export function clientLeaseClient(
  connection: Connection,
  namespace: string,
  name: string,
  onWarning: WarningHandler,
): LeaseClient {
  const leases = resourceClient<LeaseObject>(
    connection,
    { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' },
    { namespace, onWarning },
  );
  return {
    describe: `${namespace}/${name}`,
    get: () =>
      leases
        .get({ metadata: { name } })
        .pipe(catchError((error: unknown) => (isNotFound(error) ? of(undefined) : throwError(() => error)))),
    create: (lease) => leases.create(lease),
    replace: (lease) => leases.replace(lease),
  };
}
