/**
 * `mutate`: an Immer recipe on the latest object, sent as one guarded JSON Patch (two when status changes too),
 * with client-go's conflict retry.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { type Observable, defer, map, of, switchMap, throwError, timer, catchError } from 'rxjs';
import type { SchedulerLike } from 'rxjs';
import { monotonicScheduler } from '../../clock/index.js';
import { keyFor, objectKey } from '../../objects/index.js';
import type { ResolvedResource } from '../../resources/index.js';
import { jsonEqual, recipeChanges, splitStatus, toJsonPatch } from '../patch/index.js';
import type { JsonPatchOperation, PathOperation, Recipe } from '../patch/index.js';
import type { ResourceClient } from '../resource/index.js';
import { conflictKind, staleObjectConflict } from './conflict.js';
import { compareResourceVersions } from './resource-version.js';
import { retryDelay } from './retry.js';

/** What `mutate` needs from its client. */
export interface MutateContext<T extends KubernetesObject> {
  /** Reads (`get`) and guarded writes (`patch`, `patchStatus`). */
  readonly client: ResourceClient<T>;
  /** The resolved kind, for the wording of the final conflict error. */
  readonly resource: () => Observable<ResolvedResource>;
  /** Whether status changes go to the status subresource. */
  readonly hasStatusSubresource: () => Observable<boolean>;
  readonly retry: ResourceClient.RetryPolicy;
  readonly scheduler?: SchedulerLike | undefined;
  readonly random?: (() => number) | undefined;
}

/** A guarded write that failed, with the resourceVersion its `test` named and where its base came from. */
class GuardedWriteFailure {
  constructor(
    readonly error: unknown,
    readonly sentResourceVersion: string,
    readonly baseFromServer: boolean,
  ) {}
}

/** An object to run the recipe on, and whether it is the server's own answer (not a cache's or the caller's copy). */
interface Base<T> {
  readonly object: T;
  readonly fromServer: boolean;
}

/**
 * Runs `recipe` on `target` (re-read on conflicts) and writes the difference. The semantics are documented on
 * `ResourceClient.mutate`; the cancellation signal is applied by the client around this Observable.
 */
export function mutate<T extends KubernetesObject>(
  context: MutateContext<T>,
  target: T | ResourceClient.ObjectRef,
  recipe: Recipe<T>,
  options: ResourceClient.MutateOptions<T> = {},
): Observable<T> {
  const { client, retry } = context;
  const scheduler = context.scheduler ?? monotonicScheduler;
  const random = context.random ?? Math.random;
  // The signal rides along so that a write observer can tie each write to the reconcile run that sent it.
  const writeOptions: ResourceClient.WriteOptions = {
    signal: options.signal,
    dryRun: options.dryRun,
    fieldManager: options.fieldManager,
    fieldValidation: options.fieldValidation,
  };

  /** The store's copy when it is strictly newer than `than` (so it has seen the write that beat us), else a GET. */
  const latest = (ref: ResourceClient.ObjectRef, than: string | undefined): Observable<Base<T>> => {
    const cached = options.store?.current().get(keyOf(ref, client.namespace));
    if (
      cached !== undefined &&
      (than === undefined || compareResourceVersions(cached.metadata?.resourceVersion, than) === 1)
    ) {
      return of({ object: cached, fromServer: false });
    }
    return client.get(ref).pipe(map((object) => ({ object, fromServer: true })));
  };

  /** One guarded JSON Patch: `test` of the resourceVersion the change was computed against, then the change. */
  const guarded = (base: Base<T>, operations: readonly PathOperation[], status: boolean): Observable<T> => {
    const resourceVersion = base.object.metadata!.resourceVersion!;
    const body: JsonPatchOperation[] = [
      { op: 'test', path: '/metadata/resourceVersion', value: resourceVersion },
      ...toJsonPatch(operations),
    ];
    const write = status
      ? client.patchStatus(base.object, { type: 'json', body }, writeOptions)
      : client.patch(base.object, { type: 'json', body }, writeOptions);
    return write.pipe(
      catchError((error: unknown) =>
        throwError(() => new GuardedWriteFailure(error, resourceVersion, base.fromServer)),
      ),
    );
  };

  /** Where each operation goes: status apart only when the kind has a status subresource. */
  const route = (
    operations: readonly PathOperation[],
  ): Observable<{ main: readonly PathOperation[]; status: readonly PathOperation[] }> => {
    const split = splitStatus(operations);
    if (split.status.length === 0) return of(split);
    return context.hasStatusSubresource().pipe(map((has) => (has ? split : { main: operations, status: [] })));
  };

  const attempt = (base: Base<T>, retries: number): Observable<T> =>
    defer(() => {
      const { operations } = recipeChanges(base.object, recipe);
      if (operations.length === 0) return of(base.object);
      return route(operations).pipe(
        switchMap(({ main, status }) =>
          (main.length > 0 ? guarded(base, main, false) : of(base.object)).pipe(
            // The status write's base is the server's answer to the first write (or the attempt's base).
            switchMap((written) =>
              status.length > 0
                ? guarded({ object: written, fromServer: base.fromServer || written !== base.object }, status, true)
                : of(written),
            ),
          ),
        ),
      );
    }).pipe(catchError((failure: unknown) => retryAfter(base.object, failure, retries)));

  const retryAfter = (base: T, failure: unknown, retries: number): Observable<T> => {
    if (!(failure instanceof GuardedWriteFailure)) return throwError(() => failure);
    const { error, sentResourceVersion, baseFromServer } = failure;
    const kind = conflictKind(error);
    if (kind === undefined) return throwError(() => error);
    const exhausted = retries + 1 >= retry.steps;
    if (exhausted && kind === 'conflict') return throwError(() => error);
    // A 422 may be a stale `test`, a base that lacks what the server has, or a patch that can never apply: only a
    // fresh read tells them apart.
    const wait$ = exhausted ? of(0) : timer(retryDelay(retries, retry, random()), scheduler);
    return wait$.pipe(
      switchMap(() => latest(base, sentResourceVersion)),
      switchMap((fresh) => {
        const changed = fresh.object.metadata?.resourceVersion !== sentResourceVersion;
        if (kind === 'unapplied' && !changed) {
          // The version stands, so the patch failed on the object it was computed for: a base without some of the
          // server's fields (an informer transform trimmed them) made a guard fail. Once, run the recipe on the
          // server's own object, which `latest` has just read.
          const trimmed = !baseFromServer && fresh.fromServer && !exhausted && !jsonEqual(fresh.object, base);
          return trimmed ? attempt(fresh, retries + 1) : throwError(() => error);
        }
        if (exhausted)
          return context
            .resource()
            .pipe(switchMap((r) => throwError(() => staleObjectConflict(r, nameOf(base), error))));
        return attempt(fresh, retries + 1);
      }),
    );
  };

  return defer(() =>
    versionOf(target) !== undefined ? of({ object: target as T, fromServer: false }) : latest(target, undefined),
  ).pipe(switchMap((base) => attempt(base, 0)));
}

/** The resourceVersion an object carries, if it is an object and has one. */
function versionOf(target: KubernetesObject | ResourceClient.ObjectRef): string | undefined {
  const version = typeof target === 'string' ? undefined : (target as KubernetesObject).metadata?.resourceVersion;
  return typeof version === 'string' && version !== '' ? version : undefined;
}

/** The store key of a reference: its namespace (or the client's) and name. */
function keyOf(ref: ResourceClient.ObjectRef, clientNamespace: string | undefined): string {
  if (typeof ref === 'string') return keyFor(ref, clientNamespace);
  const key = objectKey(ref as KubernetesObject);
  return ref.metadata?.namespace ? key : keyFor(key, clientNamespace);
}

function nameOf(object: KubernetesObject): string {
  return object.metadata?.name ?? '';
}
