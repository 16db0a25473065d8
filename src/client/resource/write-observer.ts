/**
 * What a resource client tells about the writes it sends: enough for a controller to remember what it wrote (so
 * that its next run waits for its caches to show it) and to recognise the watch events that only echo it.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { Observable } from 'rxjs';
import type { ResourceRef } from 'rxkube';
import type { ResourceClient } from './client.js';

/** The calls of a resource client that write. */
export type WriteVerb = 'create' | 'replace' | 'patch' | 'apply' | 'delete';

/** One write a client is about to send. */
export interface ClientWrite {
  /** The client's kind. */
  readonly resource: ResourceRef;
  /** Which call: `mutate` sends `patch`es (one or two). */
  readonly verb: WriteVerb;
  /** `status` for the status subresource's calls. */
  readonly subresource: 'status' | undefined;
  /** The object's namespace; `undefined` for a cluster-scoped kind. */
  readonly namespace: string | undefined;
  /** The object's name; `undefined` for a create that lets the server pick one (`generateName`). */
  readonly name: string | undefined;
  /** The `metadata.generateName` of a create without a name. */
  readonly generateName: string | undefined;
  /**
   * The resourceVersion the write is conditioned on, so that the server refuses it (409, or 422 for a failed `test`)
   * when the object has moved on: the `test` of `metadata.resourceVersion` a JSON Patch starts with (as `mutate`
   * sends), or the `metadata.resourceVersion` in the body of a replace, a merge or strategic patch, or an apply.
   * `null` for a create (there was no object). `undefined` when the write is not conditioned: the server applies it
   * to whatever version it holds.
   */
  readonly base: string | null | undefined;
  /** The call's `signal`, when it was given one: a reconcile run's `signal` ties the write to that run. */
  readonly signal: AbortSignal | undefined;
}

/** What a {@link WriteObserver} wants to hear about one write once it is sent. */
export interface ClientWriteOutcome {
  /** The server answered with `answer`: the object as written, or, for some deletes, a `Status`. */
  answered?(answer: KubernetesObject): void;
  /** The write is over (answered, refused, failed or cancelled). Called exactly once, after `answered` if any. */
  settled?(): void;
}

/**
 * Hears the writes of a resource client (`ResourceClientOptions.writeObserver`); a controller context's clients
 * tell the context's own-write ledger.
 *
 * # Guarantees
 * - `sending` is called once per write request, when it is sent (after the kind is resolved), for `create`,
 *   `replace`, `patch`, `apply`, `delete` and the status writes, and for each write `mutate` sends. Dry runs and
 *   `deleteCollection` are not told.
 * - The outcome's `answered` is called before the caller receives the answer, and `settled` right after it (or
 *   when the write fails or is cancelled): an observer that holds back the watch events of an object while a write
 *   of it is in flight can decide about them before anyone acts on the answer.
 *
 * # Caveats
 * - What an observer throws is reported as a process warning (`KubernetesWriteObserverError`) and does not change
 *   the write's outcome.
 */
export interface WriteObserver {
  /** A write is about to be sent; return what to call as it ends, or nothing. */
  sending(write: ClientWrite): ClientWriteOutcome | void;
}

/** Throws a `TypeError` unless `observer` is undefined or has a `sending` method. */
export function checkWriteObserver(observer: unknown): void {
  if (observer === undefined) return;
  if (observer === null || typeof observer !== 'object' || typeof (observer as WriteObserver).sending !== 'function') {
    throw new TypeError(
      `resourceClient: writeObserver must be an object with a sending(write) method, got ${observer === null ? 'null' : typeof observer}`,
    );
  }
}

/** The resourceVersion a body names in `metadata.resourceVersion`, if it is a non-empty string. */
export function versionIn(body: unknown): string | undefined {
  const version = (body as { metadata?: { resourceVersion?: unknown } } | null | undefined)?.metadata?.resourceVersion;
  return typeof version === 'string' && version !== '' ? version : undefined;
}

/** The resourceVersion a patch is conditioned on: a JSON Patch's leading `test`, else the body's own. */
export function baseOfPatch(patch: ResourceClient.Patch): string | undefined {
  if (patch.type !== 'json') return versionIn(patch.body);
  const first = Array.isArray(patch.body) ? patch.body[0] : undefined;
  if (
    first?.op === 'test' &&
    first.path === '/metadata/resourceVersion' &&
    typeof first.value === 'string' &&
    first.value !== ''
  )
    return first.value;
  return undefined;
}

/**
 * `answer$`, told to `observer` as the write `write`: `sending` at subscription, `answered` with its value, then
 * `settled` once however it ends.
 */
export function observeWrite<R>(answer$: Observable<R>, observer: WriteObserver, write: ClientWrite): Observable<R> {
  return new Observable<R>((subscriber) => {
    const outcome = guarded(() => observer.sending(write)) ?? undefined;
    let settled = false;
    const settle = (): void => {
      if (settled) return;
      settled = true;
      if (outcome?.settled !== undefined) guarded(() => outcome.settled!());
    };
    const subscription = answer$.subscribe({
      next: (answer) => {
        if (outcome?.answered !== undefined && !settled) guarded(() => outcome.answered!(answer as KubernetesObject));
        settle();
        subscriber.next(answer);
      },
      error: (error: unknown) => {
        settle();
        subscriber.error(error);
      },
      complete: () => {
        settle();
        subscriber.complete();
      },
    });
    return () => {
      subscription.unsubscribe();
      settle();
    };
  });
}

function guarded<T>(call: () => T): T | undefined {
  try {
    return call();
  } catch (error) {
    process.emitWarning(error instanceof Error ? error : new Error(String(error)), {
      type: 'KubernetesWriteObserverError',
    });
    return undefined;
  }
}
