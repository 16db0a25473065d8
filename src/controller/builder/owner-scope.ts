/**
 * The triggers of `owns`: owned objects key their controller owner of the primary kind, whose key depends on that
 * kind's scope. Internal to the builder.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  combineLatest,
  distinctUntilChanged,
  EMPTY,
  filter,
  map,
  merge,
  type Observable,
  retry,
  type SchedulerLike,
  shareReplay,
  startWith,
  switchMap,
  take,
  timer,
} from 'rxjs';
import { backoffCeiling } from '../../backoff/index.js';
import { messageOf } from '../../error-messages/index.js';
import type { Informer } from '../../informer/index.js';
import { splitApiVersion } from '../../objects/index.js';
import { builtinScopes, type ResolvedResource } from '../../resources/index.js';
import type { ResourceRef } from '../../watch/index.js';
import { toOwnerKeys } from '../triggers/index.js';
import type { ReconcileTrigger } from '../reconcile/index.js';

/** How often the owner kind's scope is asked again while discovery fails: 1 s, doubling, at most 30 s. */
const RESOLVE_RETRY = { baseMs: 1_000, factor: 2, capMs: 30_000 } as const;

/** What `owns` adds to a controller. */
export interface OwnedTriggers {
  /** The owners' triggers; nothing is mapped before the owner kind's scope is known. */
  readonly triggers$: Observable<ReconcileTrigger>;
  /** `gate`, held closed until the owner kind's scope is known (unchanged when it was known at once). */
  gate(gate: Observable<boolean>): Observable<boolean>;
}

/** Where the scope of a kind the built-in table does not know comes from, and what to do while it cannot. */
export interface ScopeSource {
  /** Discovery of the owner kind (an informer factory's `resolve`); `undefined` when the factory has none. */
  readonly resolve$: Observable<ResolvedResource> | undefined;
  /** The primary informer's `synced$`: once true, its own discovery answered, so ours is usually a cache hit. */
  readonly primarySynced$: Observable<boolean>;
  readonly scheduler: SchedulerLike;
  /** Receives each distinct failure to resolve the scope (the controller keeps trying). */
  readonly report: (error: Error) => void;
}

/**
 * The triggers of the `owned` informers, keyed by their controller owner of kind `owner`, as controller-runtime's
 * `EnqueueRequestForOwner` keys them after asking its RESTMapper for the owner's scope.
 *
 * # Guarantees
 * - A key is never guessed: a namespaced child of a cluster-scoped owner (a ConfigMap owned by its Namespace, by a
 *   cluster-scoped custom resource) triggers `ownerName`, a namespaced owner `namespace/ownerName`.
 * - A built-in owner kind's scope is known at once: nothing changes in timing.
 * - Another kind's scope is asked once the primary informer has synced (its discovery answered on the same
 *   connection, so the answer is cached), and again with backoff while that fails, each distinct failure reported.
 *   Until it is known, owned events are not mapped and the gate stays closed; then the owned informers replay their
 *   caches as `added`, so no child is missed and no run starts before its owners can be woken.
 * - Bad input throws a `TypeError` at once: no owner reference (`for` given as an informer, whose kind is unknown),
 *   a malformed `apiVersion`, or an owner kind that needs discovery when the informer factory cannot resolve
 *   resources.
 */
export function ownedTriggers(
  owner: ResourceRef | undefined,
  owned: readonly Pick<Informer<KubernetesObject>, 'events$'>[],
  source: ScopeSource,
): OwnedTriggers {
  if (owned.length === 0) return { triggers$: EMPTY, gate: (gate) => gate };
  if (owner === undefined)
    throw new TypeError('controller: `owns` needs `for` given as a resource reference, to know the owner kind');
  const keysOf = (namespaced: boolean) =>
    toOwnerKeys({ kind: owner.kind, apiVersion: owner.apiVersion, clusterScoped: !namespaced });
  const mapped = (namespaced: boolean): Observable<ReconcileTrigger> => {
    const operator = keysOf(namespaced);
    return merge(...owned.map((informer) => informer.events$.pipe(operator)));
  };
  const known = builtinScopes(owner.kind).get(groupOf(owner.apiVersion));
  if (known !== undefined) {
    const triggers$ = mapped(known);
    return { triggers$, gate: (gate) => gate };
  }
  keysOf(true); // validates kind and apiVersion now, as the built-in case does
  const { resolve$ } = source;
  if (resolve$ === undefined) {
    throw new TypeError(
      `controller: cannot tell whether ${owner.kind} ${owner.apiVersion} is cluster-scoped to key its owned objects: it is not a built-in kind ` +
        'and the informer factory cannot resolve resources (it has no resolve(); use one made by informerFactory())',
    );
  }
  const scope$ = source.primarySynced$.pipe(
    filter((synced) => synced),
    take(1),
    switchMap(() => resolveReporting(resolve$, owner, source)),
    map((resolved) => resolved.namespaced),
    shareReplay({ bufferSize: 1, refCount: true }),
  );
  const known$ = scope$.pipe(
    map(() => true),
    startWith(false),
  );
  return {
    triggers$: scope$.pipe(switchMap(mapped)),
    gate: (gate) =>
      combineLatest([gate, known$]).pipe(
        map(([open, scopeKnown]) => open === true && scopeKnown),
        distinctUntilChanged(),
      ),
  };
}

/** `resolve$`'s first answer, asking again with backoff after each failure, each distinct failure reported once. */
function resolveReporting(
  resolve$: Observable<ResolvedResource>,
  owner: ResourceRef,
  source: ScopeSource,
): Observable<ResolvedResource> {
  let reported: string | undefined;
  return resolve$.pipe(
    take(1),
    retry({
      delay: (error: unknown, count: number) => {
        const message = messageOf(error);
        if (message !== reported) {
          reported = message;
          source.report(
            new Error(
              `controller: the scope of ${owner.kind} ${owner.apiVersion} is unknown, so the owners of its owned objects are not keyed ` +
                `and no reconcile starts yet: ${message}; retrying`,
              { cause: error },
            ),
          );
        }
        return timer(backoffCeiling(count - 1, RESOLVE_RETRY), source.scheduler);
      },
    }),
  );
}

/** The group of the owner's `apiVersion`; a malformed one is a `TypeError` naming the controller. */
function groupOf(apiVersion: string): string {
  try {
    return splitApiVersion(apiVersion).group;
  } catch (error) {
    throw new TypeError(`controller: ${messageOf(error)}`);
  }
}
