/**
 * `finalizer`: kube-rs's `finalizer()` as a reconcile function. Cleanup runs before an object goes, and never
 * twice for nothing: the finalizer is added before the first `apply`, and removed only after `cleanup` succeeded.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  type Observable,
  catchError,
  defaultIfEmpty,
  defer,
  from,
  isObservable,
  map,
  of,
  switchMap,
  take,
  throwError,
} from 'rxjs';
import { isNotFound } from '../../transport/index.js';
import type { ResourceClient } from '../resource/index.js';

/** What the handlers and the returned function receive: the reconcile operator's request fits. */
export interface FinalizerRequest<T> {
  /** The latest object, `undefined` when it is gone. */
  readonly object: T | undefined;
  /** Cancels the finalizer's own writes, and is handed on to the handlers. */
  readonly signal?: AbortSignal;
  /** The reconcile key (`namespace/name`), when the request comes from the reconcile operator. */
  readonly key?: string;
}

/** The two steps of a finalized object's life, and where conflicts re-read. */
export interface FinalizerHandlers<T> {
  /**
   * Brings the world in line with the object; runs only while the object carries the finalizer and lives. It may
   * return whatever a reconcile function may (a value, a Promise or an Observable of the result).
   */
  readonly apply: (object: T, request: FinalizerRequest<T>) => unknown;
  /** Undoes what `apply` did outside the object; runs once the object is being deleted, before the finalizer goes. */
  readonly cleanup: (object: T, request: FinalizerRequest<T>) => unknown;
  /** Passed to `mutate` for re-reads after a conflict (usually the informer the requests come from). */
  readonly store?: ResourceClient.StoreSource<T>;
}

/**
 * A finalizer name the API server would reject (it must be qualified, as `example.com/cleanup`). Not exported: it is
 * thrown where the finalizer is built, for a mistake in the code, and its `name` tells it apart.
 */
export class FinalizerNameError extends Error {
  /** Always `'FinalizerNameError'`. */
  override readonly name = 'FinalizerNameError';
}

/**
 * A reconcile function that manages the finalizer `name` on the objects `client` serves, as kube-rs's
 * `finalizer()` does:
 *
 * | the object | what runs |
 * |---|---|
 * | gone | nothing |
 * | alive, without the finalizer | the finalizer is added (a guarded patch), then `apply` on the written object |
 * | alive, with the finalizer | `apply` |
 * | being deleted, with the finalizer | `cleanup`; once it succeeded, the finalizer is removed |
 * | being deleted, without the finalizer | nothing (it is not ours to clean up) |
 *
 * The result plugs into the reconcile operator: `reconcile(finalizer(client, name, { apply, cleanup }), { lookup:
 * informer })`, and emits what `apply` or `cleanup` returned (`{ requeueAfter }` included), or `undefined`.
 *
 * # Guarantees
 * - Every step is idempotent and safe to repeat after a crash at any point: the state lives on the object, so the
 *   next run resumes where the last one stopped (added but not applied: `apply`; cleaned up but not removed:
 *   `cleanup` again, then removal).
 * - Adding and removing go through `mutate`: a JSON Patch guarded by the resourceVersion, so other finalizers are
 *   never clobbered; a conflict re-reads and retries. A removal that finds the object gone counts as done.
 * - Never adds the finalizer to an object that is being deleted (the API server forbids it).
 * - A handler that throws, rejects or errors fails the call with that error (the operator retries it) and, for
 *   `cleanup`, leaves the finalizer in place.
 *
 * # Caveats
 * - `cleanup` may run more than once (a crash before the removal, a failed removal): make it idempotent. To wait
 *   for something before the object may go, fail (the operator backs off and retries); a successful `cleanup`
 *   releases the object whatever it returns, as in kube-rs.
 * - Throws an `Error` named `FinalizerNameError` at once for a name without a `/`.
 */
export function finalizer<T extends KubernetesObject>(
  client: ResourceClient<T>,
  name: string,
  handlers: FinalizerHandlers<T>,
): (request: FinalizerRequest<T>) => Observable<unknown> {
  const [prefix, rest, extra] = name.split('/');
  if (!prefix || !rest || extra !== undefined) {
    throw new FinalizerNameError(`finalizer name "${name}" must be qualified, as "example.com/cleanup"`);
  }
  const carries = (object: T): boolean => object.metadata?.finalizers?.includes(name) === true;
  const deleting = (object: T): boolean => Boolean(object.metadata?.deletionTimestamp);

  return (request) =>
    defer(() => {
      const object = request.object;
      if (object === undefined) return of(undefined);
      const signal = request.signal;
      if (deleting(object)) {
        if (!carries(object)) return of(undefined);
        return run(handlers.cleanup, object, request).pipe(
          switchMap((result) =>
            client
              .mutate(
                object,
                (draft) => {
                  const finalizers = draft.metadata?.finalizers;
                  if (finalizers?.includes(name)) draft.metadata!.finalizers = finalizers.filter((f) => f !== name);
                },
                { signal, store: handlers.store },
              )
              .pipe(
                catchError((error: unknown) => (isNotFound(error) ? of(undefined) : throwError(() => error))),
                map(() => result),
              ),
          ),
        );
      }
      if (carries(object)) return run(handlers.apply, object, request);
      return client
        .mutate(
          object,
          (draft) => {
            if (deleting(draft as T) || carries(draft as T)) return;
            const metadata = (draft.metadata ??= {});
            metadata.finalizers = [...(metadata.finalizers ?? []), name];
          },
          { signal, store: handlers.store },
        )
        .pipe(
          // The object may have started its deletion meanwhile: then it is not ours to apply (nor to clean up).
          switchMap((written) =>
            carries(written) && !deleting(written)
              ? run(handlers.apply, written, { ...requestFields(request), object: written })
              : of(undefined),
          ),
        );
    });
}

/** A handler's output as an Observable of its result: the first value, or `undefined` for a bare completion. */
function run<T>(handler: FinalizerHandler<T>, object: T, request: FinalizerRequest<T>): Observable<unknown> {
  return defer(() => {
    const output = handler(object, request);
    if (isObservable(output)) return output.pipe(take(1), defaultIfEmpty(undefined));
    if (isThenable(output)) return from(output);
    return of(output);
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** The request's fields, read explicitly: the operator's `signal` is a getter that a spread would lose. */
function requestFields<T>(request: FinalizerRequest<T>): Omit<FinalizerRequest<T>, 'object'> {
  return { key: request.key, signal: request.signal };
}

/** A handler of {@link FinalizerHandlers}: whatever a reconcile function may return. */
export type FinalizerHandler<T> = FinalizerHandlers<T>['apply'];
