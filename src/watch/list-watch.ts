/**
 * `listWatch`: a Kubernetes reflector as a cold Observable of {@link WatchEvent}s.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { map, Observable } from 'rxjs';
import type { ResolvedResource } from '../resources/index.js';
import { eachOf, transportOf } from '../transport/index.js';
import { resolveOptions } from './options.js';
import type { ListWatchOptions } from './options.js';
import { BatchOutput } from './batch-output.js';
import { Reflector } from './reflector.js';
import type { ReflectorDelta, WatchEvent } from './types.js';
import type { Connection, ResourceRef } from 'rxkube';

/**
 * Lists then watches one resource, forever, emitting deltas and in-band status.
 *
 * `resource` is `{ apiVersion, kind }` (resolved through the built-in table or discovery) or an already resolved
 * resource (`{ group, version, plural, namespaced, kind }`).
 *
 * # Guarantees
 * - **List.** The first list is paginated (`limit` = `pageSize`, default 500, then `continue`); its
 *   resourceVersion starts the watch. A 410 on a `continue` token restarts the list once without `limit`.
 * - **Atomic relists.** Every (re)list is emitted as `relistStarted`, one `listed` per object, `relistDone(rv)`,
 *   in one synchronous burst once the list is complete, so a list that fails half-way emits nothing. Tombstones
 *   (`deleted` with `stateUnknown`) for objects missing from a relist are computed by the store at `relistDone`, not
 *   here.
 * - **Frozen objects.** Every object emitted (listed, added, modified, deleted; transformed or not) is deep-frozen.
 *   A `transform` receives the object unfrozen (managedFields already stripped) and its result is frozen.
 * - **Watch.** `allowWatchBookmarks=true`, `timeoutSeconds` uniform in [300, 600] from `random` (in
 *   [`minWatchTimeout`, 2 × `minWatchTimeout`], or none with `'server'`). A clean close
 *   resumes from the last seen resourceVersion (bookmarks included) with no relist and no delay; a clean close
 *   within 1 s with no event at all counts as a failure, so a misbehaving server cannot make it spin.
 * - **410 Gone** (watch ERROR event or HTTP 410) relists at once; a second 410 in a row backs off first.
 * - **Streaming list** (`streamingList`): `sendInitialEvents=true&resourceVersionMatch=NotOlderThan`; initial events
 *   are collected until the bookmark annotated `k8s.io/initial-events-end: "true"` and emitted as a relist; the
 *   same connection then carries on as the watch. An answer no retry changes (400, 405, 406, 414, 422: how a server
 *   without streaming lists refuses `sendInitialEvents`), a bookmark without the annotation (kube-apiserver never
 *   sends one before the end bookmark) or a close before the end bookmark means the server does not support it:
 *   status `StreamingListUnsupported`, then list+watch for the rest of the subscription. A 401, 403, 404, 429, 5xx
 *   or network failure is an ordinary failure, and the retry streams again.
 * - **Backoff.** Failures wait `random() · min(30 s, 800 ms · 2^n)` (full jitter); `n` resets after a watch has
 *   stayed up for 120 s. A 429 waits exactly its `Retry-After`. 401/403/404 are reported as status `error` +
 *   `backingOff` and retried, unless `failFast`, which stops the reflector.
 * - **Failures no retry can fix** (`TERMINAL_CODES`: 400, 405, 406, 414, 422) stop it: status `failed`, then the
 *   Observable errors with a `ListWatchError` that says so. Selector text is checked before any request.
 * - **Health, said once.** Each distinct cause of failure is reported to `onHealth` on the failure that shows it
 *   first, its recovery once the watch is accepted again, and the failure that stops it (see `WatchHealthReport`);
 *   by default to the connection's own handler (a virtual cluster's), else as a `KubernetesWatchHealth` process
 *   warning on stderr.
 * - **Unknown kinds.** A kind discovery does not know (a CRD not installed yet) is reported as status `error`
 *   (`UnknownResource`) and retried with backoff, asking discovery again each time, so the watch starts once the
 *   CRD is served. A discovery request that fails on the network is an ordinary retried failure. Under `failFast`
 *   an unknown kind errors the Observable.
 * - **Time limits.** A list page (or discovery request) unanswered after `listTimeout` (default 70 s) is aborted,
 *   reported as `ListTimeout` and retried after backoff. A watch with no bytes for `timeoutSeconds + 30 s` (3630 s
 *   without `timeoutSeconds`) is aborted (`DeadConnection`) and resumed from the last resourceVersion after
 *   backoff; once the watch has had a bookmark (more then follow about every minute), already after
 *   `idleTimeout` (90 s) without bytes.
 * - **Health versus problems.** `status` events are connection health only; `watching` is announced once the
 *   server accepted the watch. Bad input is a `problem` event with a running count per reason, never a status:
 *   - a malformed watch line, or a watched object without `metadata.name`, is reported and the watch is resumed
 *     (after backoff) from the last good resourceVersion;
 *   - a listed object without `metadata.name` is reported and skipped (it cannot be keyed);
 *   - an object whose `transform` throws is reported and emitted untransformed, so a MODIFIED or DELETED is never
 *     lost and the cache never keeps a version the server has left.
 *   Nothing is dropped silently and nothing throws.
 * - **Unsubscribe** aborts the in-flight request and cancels every timer at once, even when it happens inside a
 *   callback of this very stream: nothing stays scheduled.
 * - Every delay goes through `scheduler`, so the whole machine runs in `TestScheduler.run` virtual time.
 *
 * # Caveats
 * - The Observable errors (it never retries) for a malformed apiVersion, a `namespace` on a cluster-scoped kind
 *   (both after status `failed`), or a bad option (selector text included, before any request): no retry could fix
 *   those.
 * - A relist is buffered in memory until complete, as client-go does (the full list is held as pages, never
 *   emitted as one array event).
 * - `resyncPeriod` (DESIGN 3.1) is not implemented here: it needs the cache, so it belongs to the informer.
 */
export function listWatch<T extends KubernetesObject = KubernetesObject>(
  connection: Connection,
  resource: ResourceRef | ResolvedResource,
  options: ListWatchOptions<T> = {},
): Observable<WatchEvent<T>> {
  return eachOf(listWatchBatches(connection, resource, options).pipe(map(expandListedPages)));
}

/**
 * The events of `batch`, with each `listedPages` expanded into its `listed` events, in order. A batch without one
 * is returned as it is.
 * @internal
 */
export function expandListedPages<T extends KubernetesObject>(
  batch: readonly ReflectorDelta<T>[],
): readonly WatchEvent<T>[] {
  if (!batch.some((delta) => delta.type === 'listedPages')) return batch as readonly WatchEvent<T>[];
  const events: WatchEvent<T>[] = [];
  for (const delta of batch) {
    if (delta.type !== 'listedPages') events.push(delta);
    else for (const page of delta.pages) for (const object of page) events.push({ type: 'listed', object });
  }
  return events;
}

/**
 * {@link listWatch}, one emission per batch of events that arrived together: a whole relist (`relistStarted`, its
 * objects as one `listedPages`, `relistDone`), or the events of the lines of one watch chunk (when the transport has
 * `watchChunks`, as the HTTP transport and the virtual cluster do). Everything else (status, problems, a line of a
 * transport without chunks) is a batch of one. The informer reads it, so that one batch is one store `produce` and
 * one snapshot.
 *
 * # Guarantees
 * - Exactly the events of `listWatch`, in the same order, grouped, once each `listedPages` is expanded into its
 *   `listed` events ({@link expandListedPages}); never an empty batch, never an empty `listedPages`.
 * @internal
 */
export function listWatchBatches<T extends KubernetesObject = KubernetesObject>(
  connection: Connection,
  resource: ResourceRef | ResolvedResource,
  options: ListWatchOptions<T> = {},
): Observable<readonly ReflectorDelta<T>[]> {
  return new Observable<readonly ReflectorDelta<T>[]>((subscriber) => {
    let resolved;
    try {
      resolved = resolveOptions(options, connection);
    } catch (err) {
      subscriber.error(err);
      return undefined;
    }
    const transport = options.transport ?? transportOf(connection);
    const reflector = new Reflector<T>(new BatchOutput<T>(subscriber), transport, resource, resolved);
    reflector.start();
    return () => reflector.stop();
  });
}
