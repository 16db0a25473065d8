/**
 * Builders of reflector deltas (`WatchEvent`s) for marble tests: one constructor per delta, and marble
 * strings whose letters stand for deltas, delta sequences or plain objects.
 * @module
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { Observable } from 'rxjs';
import type { RunHelpers } from 'rxjs/testing';
import { objectKey } from '../../objects/index.js';
import type { WatchStatus } from 'rxkube';
import type { DeltaSource, WatchEvent } from 'rxkube/extend';

/**
 * What a letter of a watch marble may stand for:
 * - a `WatchEvent` (build one with {@link watchEvent});
 * - a plain object (anything with `metadata`): an upsert, `added` when its key is not cached at that point of the
 *   stream, `modified` when it is;
 * - an array of those, delivered in order in the same frame.
 */
export type MarbleDelta<T extends KubernetesObject = KubernetesObject> =
  | WatchEvent<T>
  | T
  | readonly (WatchEvent<T> | T)[];

/** The part of `TestScheduler.run`'s helpers the marble builders use: pass the helpers object itself. */
export type MarbleHelpers = Pick<RunHelpers, 'cold'>;

/**
 * One constructor per reflector delta, so a marble's values read as what the server did.
 *
 * # Guarantees
 * - Each returns a fresh, plain `WatchEvent`; `relist` returns the whole atomic sequence
 *   (`relistStarted`, one `listed` per object, `relistDone`), as the reflector emits it.
 *
 * # Caveats
 * - The objects are used as given: give them the `metadata.resourceVersion` the store should see.
 */
export const watchEvent = Object.freeze({
  /**
   * A watch `ADDED` of `object`. Use it to force `added` where a plain object would read as `modified` (its key is
   * already cached at that point of the marble).
   */
  added: <T extends KubernetesObject>(object: T): WatchEvent<T> => ({ type: 'added', object }),
  /** A watch `MODIFIED` of `object`, whether or not its key is cached at that point of the marble. */
  modified: <T extends KubernetesObject>(object: T): WatchEvent<T> => ({ type: 'modified', object }),
  /**
   * A watch `DELETED` of `object` (its last known state). A plain object never stands for a delete (it is an
   * upsert): write deletes with this.
   */
  deleted: <T extends KubernetesObject>(object: T): WatchEvent<T> => ({ type: 'deleted', object }),
  /** A watch `BOOKMARK` at `resourceVersion`: it only advances the resourceVersion and carries no object. */
  bookmark: <T extends KubernetesObject>(resourceVersion: string): WatchEvent<T> => ({
    type: 'bookmark',
    resourceVersion,
  }),
  /**
   * A change of the connection's health to `status`; it never changes the cache. For the usual "watch accepted"
   * status, `watchEvent.watching` is shorter.
   */
  status: <T extends KubernetesObject>(status: WatchStatus): WatchEvent<T> => ({ type: 'status', status }),
  /** The status the reflector reports once the server accepted its watch. */
  watching: <T extends KubernetesObject>(resourceVersion = '1'): WatchEvent<T> => ({
    type: 'status',
    status: { state: 'watching', resourceVersion },
  }),
  /** A whole relist: `relistStarted`, `listed` per object, `relistDone` at `resourceVersion` (default: the highest object's, or `1`). */
  relist: <T extends KubernetesObject>(objects: readonly T[], resourceVersion?: string): WatchEvent<T>[] => [
    { type: 'relistStarted' },
    ...objects.map((object) => ({ type: 'listed' as const, object })),
    { type: 'relistDone', resourceVersion: resourceVersion ?? highestResourceVersion(objects) },
  ],
});

const DELTA_TYPES = new Set([
  'relistStarted',
  'listed',
  'relistDone',
  'added',
  'modified',
  'deleted',
  'bookmark',
  'status',
  'problem',
]);

/** Whether a marble value is a watch event rather than an object (objects have `metadata`, events never do). */
function isWatchEvent<T extends KubernetesObject>(value: WatchEvent<T> | T): value is WatchEvent<T> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !('metadata' in value) &&
    DELTA_TYPES.has((value as { type?: string }).type ?? '')
  );
}

/**
 * Expands marble values into watch events, keeping track of which keys are cached so a plain object becomes
 * `added` or `modified` as the store would see it. One expander per subscription.
 */
function deltaExpander<T extends KubernetesObject>(): (value: MarbleDelta<T>) => WatchEvent<T>[] {
  let cached = new Set<string>();
  let listing: Set<string> | null = null;
  const one = (value: WatchEvent<T> | T): WatchEvent<T> => {
    if (!isWatchEvent(value)) {
      if (typeof value !== 'object' || value === null || typeof value.metadata?.name !== 'string') {
        throw new TypeError(
          `watch marble: a value must be a WatchEvent or an object with metadata.name, got ${JSON.stringify(value)}`,
        );
      }
      const key = objectKey(value);
      const event: WatchEvent<T> = cached.has(key)
        ? { type: 'modified', object: value }
        : { type: 'added', object: value };
      cached.add(key);
      return event;
    }
    switch (value.type) {
      case 'relistStarted':
        listing = new Set();
        break;
      case 'listed':
        listing?.add(objectKey(value.object));
        break;
      case 'relistDone':
        cached = listing ?? cached;
        listing = null;
        break;
      case 'added':
      case 'modified':
        cached.add(objectKey(value.object));
        break;
      case 'deleted':
        cached.delete(objectKey(value.object));
        break;
      default:
        break;
    }
    return value;
  };
  return (value) =>
    Array.isArray(value) ? (value as readonly (WatchEvent<T> | T)[]).map(one) : [one(value as WatchEvent<T> | T)];
}

/**
 * A cold stream of watch events from a marble diagram, inside `TestScheduler.run()`: `'a-b-(cd)'` with
 * `{ a: watchEvent.relist([node1]), b: node2, c: node1v2, d: watchEvent.deleted(node2) }`.
 *
 * # Guarantees
 * - Each letter's value is expanded by {@link MarbleDelta}'s rules, per subscription, in order: an array is
 *   delivered as consecutive events in the same frame.
 * - `|` completes and `#` errors the stream, as in any marble; leave them out to model a watch that stays open.
 *
 * # Caveats
 * - A value that is neither a watch event nor an object with `metadata.name` errors the stream with a `TypeError`
 *   naming it (an informer fed by it reports the error on every stream), rather than being skipped.
 */
export function watchMarbles<T extends KubernetesObject = KubernetesObject>(
  helpers: MarbleHelpers,
  marble: string,
  values: Readonly<Record<string, MarbleDelta<T>>> = {},
  error?: unknown,
): Observable<WatchEvent<T>> {
  return new Observable<WatchEvent<T>>((subscriber) => {
    const expand = deltaExpander<T>();
    return helpers.cold<MarbleDelta<T>>(marble, values as Record<string, MarbleDelta<T>>, error).subscribe({
      next: (value) => {
        let events: WatchEvent<T>[];
        try {
          events = expand(value);
        } catch (failure) {
          subscriber.error(failure);
          return;
        }
        for (const event of events) subscriber.next(event);
      },
      error: (failure: unknown) => subscriber.error(failure),
      complete: () => subscriber.complete(),
    });
  });
}

/**
 * A `DeltaSource` for `informerFactory({ source })` that plays a watch marble per resource: every informer
 * the factory starts for a resource kind gets a fresh subscription to that kind's marble.
 *
 * # Guarantees
 * - Keys of `marbles` are `apiVersion/kind` (`v1/Node`, `apps/v1/Deployment`); a resource without a marble gets a
 *   stream that errors with a `TypeError` naming it, so a controller watching something the test forgot fails
 *   loudly rather than waiting for a sync that never comes.
 *
 * # Caveats
 * - Watch options (namespace, selectors) are not applied: the marble is what the informer gets.
 */
export function marbleSource(
  helpers: MarbleHelpers,
  marbles: Readonly<
    Record<string, { readonly marble: string; readonly values?: Readonly<Record<string, MarbleDelta>> }>
  >,
): DeltaSource {
  return (<T extends KubernetesObject>(resource: { apiVersion: string; kind: string }): Observable<WatchEvent<T>> => {
    const script = marbles[`${resource.apiVersion}/${resource.kind}`];
    if (script === undefined) {
      return new Observable<WatchEvent<T>>((subscriber) =>
        subscriber.error(
          new TypeError(
            `marbleSource: no marble for ${resource.apiVersion}/${resource.kind}; known: ${Object.keys(marbles).join(', ') || 'none'}`,
          ),
        ),
      );
    }
    return watchMarbles<T>(helpers, script.marble, (script.values ?? {}) as Record<string, MarbleDelta<T>>);
  }) as DeltaSource;
}

/** The highest numeric `metadata.resourceVersion` among `objects`, or `1`. */
function highestResourceVersion(objects: readonly KubernetesObject[]): string {
  let highest = 1;
  for (const object of objects) {
    const version = Number(object.metadata?.resourceVersion);
    if (Number.isSafeInteger(version) && version > highest) highest = version;
  }
  return String(highest);
}
