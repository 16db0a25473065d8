/**
 * `list` over every page: client-go's `pager.List`, following `continue` tokens until the last page.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { EMPTY, type Observable, catchError, defer, expand, last, map, throwError } from 'rxjs';
import { isExpired } from '../../transport/index.js';
import type { ResourceClient } from './client.js';

/** The page size of automatic paging, as client-go's pager and the reflector use. */
export const DEFAULT_PAGE_SIZE = 500;

/** A 410 on a `continue` token this pager followed, told apart from a 410 of the first page. */
class ExpiredContinue {
  constructor(readonly error: unknown) {}
}

/**
 * Every page of a list, as one {@link ObjectList}: `page` is asked for the first page (`limit: pageSize`, the
 * caller's `resourceVersion`), then for each `continue` token the server answers with, until a page has none.
 *
 * # Guarantees
 * - One request per page, one after the other, and nothing before subscription; unsubscribing (or the `signal`)
 *   aborts the page in flight.
 * - The pages of one `continue` chain are one consistent snapshot: the result carries the first page's
 *   `apiVersion`, `kind` and `metadata.resourceVersion`, every item in order, and no `continue`.
 * - A continued page answered with 410 (its token expired: the snapshot was compacted while paging) restarts the
 *   list once without a `limit`, as the reflector and client-go's pager (`FullListIfExpired`) do: one request for
 *   everything, at the caller's `resourceVersion`; the pages read so far are dropped. An error of that list, or of
 *   the first page, is the error of the call.
 * - A `pageSize` that is not a whole number ≥ 1 is a `RangeError` at subscription.
 */
export function listAllPages<T extends KubernetesObject>(
  page: (options: ResourceClient.ListOptions) => Observable<ResourceClient.ObjectList<T>>,
  options: ResourceClient.ListOptions,
): Observable<ResourceClient.ObjectList<T>> {
  return defer(() => {
    const pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(pageSize) || pageSize < 1) {
      return throwError(() => new RangeError(`list: pageSize must be a whole number >= 1, got ${String(pageSize)}`));
    }
    // kube-apiserver refuses a resourceVersion (or its match) beside a continue token: the token carries it.
    const continued = (token: string): Observable<ResourceClient.ObjectList<T>> =>
      page({
        ...options,
        limit: pageSize,
        continue: token,
        resourceVersion: undefined,
        resourceVersionMatch: undefined,
      }).pipe(
        catchError((error: unknown) => throwError(() => (isExpired(error) ? new ExpiredContinue(error) : error))),
      );
    let head: ResourceClient.ObjectList<T> | undefined;
    const items: T[] = [];
    return page({ ...options, limit: pageSize, continue: undefined }).pipe(
      expand((answer) => (answer.metadata?.continue ? continued(answer.metadata.continue) : EMPTY)),
      map((answer) => {
        head ??= answer;
        for (const item of answer.items ?? []) items.push(item);
        return answer;
      }),
      last(),
      map(() => whole(head!, items)),
      catchError((failure: unknown) =>
        failure instanceof ExpiredContinue
          ? page({ ...options, limit: undefined, continue: undefined }).pipe(
              map((full) => whole(full, full.items ?? [])),
            )
          : throwError(() => failure),
      ),
    );
  });
}

/** The list of `items`, with the type and version of `head`, and no `continue`. */
function whole<T extends KubernetesObject>(
  head: ResourceClient.ObjectList<T>,
  items: T[],
): ResourceClient.ObjectList<T> {
  const resourceVersion = head.metadata?.resourceVersion;
  return {
    ...(head.apiVersion !== undefined ? { apiVersion: head.apiVersion } : {}),
    ...(head.kind !== undefined ? { kind: head.kind } : {}),
    metadata: resourceVersion !== undefined ? { resourceVersion } : {},
    items,
  };
}
