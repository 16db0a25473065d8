/**
 * Writing one owned object: server-side apply under the operator's field manager, a conflict with another manager
 * reported and then forced, and an Event when the write changed something.
 * @module
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { catchError, defer, tap, throwError, type Observable } from 'rxjs';
import { apiErrors, owners, type ResourceClient, type ResourceRef } from '../../src/index.js';
import { compareResourceVersions } from '../../src/extend.js';
import type { WebsiteEvents } from './events.js';
import { REASONS } from './events.js';
import type { Website, WebsiteId } from './website.js';

/** An object's identity and version: what tells a write that changed something from one that did not. */
export interface Version {
  readonly uid: string;
  readonly resourceVersion: string;
}

/**
 * What the operator remembers of its own last writes for one Website, so that a cache that has not caught up with
 * them yet does not make an unchanged object look changed (or a status look stale).
 */
export interface WebsiteMemory {
  /** The Website's uid: a memory of another uid (a Website deleted and created again) is not this one's. */
  readonly uid: string;
  /** The last version written, per `<Kind>/<name>`. */
  readonly owned: Map<string, Version>;
  /** The Website as the last status write answered. */
  status: Website | undefined;
}

/** A fresh memory for `uid`. */
export function newMemory(uid: string): WebsiteMemory {
  return { uid, owned: new Map(), status: undefined };
}

/** The version of `object`, if it has one. */
export function versionOf(object: KubernetesObject | undefined): Version | undefined {
  const uid = object?.metadata?.uid;
  const resourceVersion = object?.metadata?.resourceVersion;
  return uid && resourceVersion ? { uid, resourceVersion } : undefined;
}

/** The newer of two versions of one object (the remembered one when they do not compare). */
export function newer<V extends Version>(cached: V | undefined, remembered: V | undefined): V | undefined {
  if (cached === undefined || remembered === undefined) return cached ?? remembered;
  return compareResourceVersions(cached.resourceVersion, remembered.resourceVersion) === 1 ? cached : remembered;
}

/** What a write did, judged from the newest version known before it. */
export function changeOf(known: Version | undefined, written: KubernetesObject): 'created' | 'updated' | 'unchanged' {
  const after = versionOf(written);
  if (known === undefined || after === undefined || known.uid !== after.uid) return 'created';
  return known.resourceVersion === after.resourceVersion ? 'unchanged' : 'updated';
}

/** One owned kind: how to write it and where its cache is. */
export interface OwnedKind<T extends KubernetesObject> {
  readonly resource: ResourceRef;
  readonly client: ResourceClient<T>;
  readonly cache: ResourceClient.StoreSource<T>;
}

/** What one owned write needs to know about its run. */
export interface OwnedWriteContext {
  readonly id: WebsiteId;
  readonly memory: WebsiteMemory;
  readonly events: WebsiteEvents;
  readonly signal: AbortSignal;
}

/**
 * Applies `desired` (carrying the Website's controller reference) with server-side apply.
 *
 * # Guarantees
 * - One request when the apply goes through. When another manager owns some of the fields with other values
 *   (a 409 naming them), a Warning `FieldConflict` Event names each field and manager, and the same configuration
 *   is applied again with `force`, which takes those fields back: the operator owns what it applies.
 * - Any other error fails the call, untouched (the reconcile retries with backoff).
 * - A Normal `Created` or `Updated` Event (related to the object) when the write created or changed it; none when
 *   the server kept it as it was.
 */
export function applyOwned<T extends KubernetesObject>(
  kind: OwnedKind<T>,
  desired: T,
  context: OwnedWriteContext,
): Observable<T> {
  return defer(() => {
    const { id, memory, events, signal } = context;
    const name = desired.metadata!.name!;
    const memoryKey = `${kind.resource.kind}/${name}`;
    const known = newer(versionOf(kind.cache.current().get(`${id.namespace}/${name}`)), memory.owned.get(memoryKey));
    const related = { apiVersion: kind.resource.apiVersion, kind: kind.resource.kind, namespace: id.namespace, name };
    // A full object is a partial one too; the generic T cannot show the compiler that.
    const configuration = desired as ResourceClient.PartialObject<T>;
    return kind.client.apply(configuration, { signal }).pipe(
      catchError((error: unknown) => {
        const conflicts = apiErrors.applyConflicts(error);
        if (conflicts.length === 0) return throwError(() => error);
        const taken = conflicts.map((conflict) => `${conflict.field} from "${conflict.manager}"`).join(', ');
        events.record(id, {
          type: 'Warning',
          reason: REASONS.fieldConflict,
          action: 'Apply',
          note: `took back ${taken} on ${kind.resource.kind} ${name}`,
          related,
        });
        return kind.client.apply(configuration, { signal, force: true });
      }),
      tap((written) => {
        const change = changeOf(known, written);
        const version = versionOf(written);
        if (version !== undefined) memory.owned.set(memoryKey, version);
        if (change === 'unchanged') return;
        events.record(id, {
          type: 'Normal',
          reason: change === 'created' ? REASONS.created : REASONS.updated,
          action: 'Apply',
          note: `${change} ${kind.resource.kind} ${name}`,
          related: { ...related, uid: written.metadata?.uid },
        });
      }),
    );
  });
}

/**
 * Why the Website cannot take `desired` over, or `undefined`: an object of that name is cached with a controller
 * that is not this Website (the API server allows one controller, and taking another's object would be theft).
 * Objects with no controller are adopted.
 */
export function foreignController<T extends KubernetesObject>(
  kind: OwnedKind<T>,
  desired: T,
  id: WebsiteId,
): string | undefined {
  const name = desired.metadata!.name!;
  const existing = kind.cache.current().get(`${id.namespace}/${name}`);
  const controller = existing === undefined ? undefined : owners.controllerOf(existing);
  if (controller === undefined || controller.uid === id.uid) return undefined;
  return `${kind.resource.kind} ${name} exists and is controlled by ${controller.kind} ${controller.name}; delete it, or rename the Website`;
}
