/** Objects and fed informers for the view specs. */
import type { KubernetesObject, V1Node, V1OwnerReference, V1Pod } from '@kubernetes/client-node';
import { Subject } from 'rxjs';
import { informerFromSource, type Informer } from '../../src/informer/index.js';
import type { WatchEvent } from '../../src/watch/index.js';

let version = 1;
const nextVersion = () => String((version += 1));

export function node(name: string, labels: Record<string, string> = {}): V1Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, uid: `uid-${name}`, resourceVersion: nextVersion(), labels },
  };
}

export function pod(
  name: string,
  options: { node?: string; phase?: string; namespace?: string; owner?: V1OwnerReference; restarts?: number } = {},
): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      uid: `uid-${name}`,
      resourceVersion: nextVersion(),
      ...(options.owner === undefined ? {} : { ownerReferences: [options.owner] }),
    },
    spec: { containers: [], ...(options.node === undefined ? {} : { nodeName: options.node }) },
    status: {
      phase: options.phase ?? 'Running',
      containerStatuses: [{ name: 'c', image: 'i', imageID: '', ready: true, restartCount: options.restarts ?? 0 }],
    },
  };
}

/** An owned object of `kind` with a controller reference to `owner` (by its uid). */
export function owned<T extends KubernetesObject>(
  kind: string,
  name: string,
  owner: KubernetesObject | undefined,
  uid = `uid-${name}`,
  extra: Partial<V1OwnerReference> = {},
): T {
  return {
    apiVersion: kind === 'Pod' ? 'v1' : 'apps/v1',
    kind,
    metadata: {
      name,
      namespace: 'default',
      uid,
      resourceVersion: nextVersion(),
      ...(owner === undefined
        ? {}
        : {
            ownerReferences: [
              {
                apiVersion: owner.apiVersion!,
                kind: owner.kind!,
                name: owner.metadata!.name!,
                uid: owner.metadata!.uid!,
                controller: true,
                ...extra,
              },
            ],
          }),
    },
  } as T;
}

/** An informer fed by hand: `list` syncs it with a first list, `add`/`modify`/`remove` are watch deltas, `batch` sends several at once. */
export interface FedInformer<T extends KubernetesObject> {
  readonly informer: Informer<T>;
  list(objects: readonly T[]): void;
  add(object: T): void;
  modify(object: T): void;
  remove(object: T): void;
  batch(events: readonly WatchEvent<T>[]): void;
}

export function fed<T extends KubernetesObject>(): FedInformer<T> {
  const source = new Subject<readonly WatchEvent<T>[]>();
  return {
    informer: informerFromSource<T>(source),
    list: (objects) =>
      source.next([
        { type: 'relistStarted' },
        ...objects.map((object) => ({ type: 'listed' as const, object })),
        { type: 'relistDone', resourceVersion: nextVersion() },
      ]),
    add: (object) => source.next([{ type: 'added', object }]),
    modify: (object) => source.next([{ type: 'modified', object }]),
    remove: (object) => source.next([{ type: 'deleted', object }]),
    batch: (events) => source.next(events),
  };
}

/** A join view's rows as `key: right keys`, sorted, for compact assertions. */
export function membership(
  store: Iterable<[string, { readonly right: { keys(): Iterable<string> } }]>,
): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const [key, row] of [...store].sort(([a], [b]) => (a < b ? -1 : 1))) result[key] = [...row.right.keys()].sort();
  return result;
}
