/**
 * Fakes for the read-your-own-writes specs: a cache whose resourceVersion and objects a spec sets, and writes told
 * to a ledger as a client tells them.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { BehaviorSubject } from 'rxjs';
import type { ClientWrite } from '../../../src/client/index.js';
import type { OwnWrites, ReadCache } from '../../../src/controller/own-writes/index.js';
import type { ResourceRef } from '../../../src/resources/index.js';

export const CONFIG_MAP: ResourceRef = { apiVersion: 'v1', kind: 'ConfigMap' };
export const SECRET: ResourceRef = { apiVersion: 'v1', kind: 'Secret' };

/** A cache a spec moves by hand: `set(rv, ...objects)` replaces it and emits on `store$`. */
export interface FakeCache extends ReadCache {
  set(resourceVersion: string, ...objects: KubernetesObject[]): void;
}

export function fakeCache(resourceVersion = '1', ...objects: KubernetesObject[]): FakeCache {
  let state = { resourceVersion, objects: new Map(objects.map((object) => [keyOf(object), object])) };
  const store$ = new BehaviorSubject<unknown>(state);
  return {
    current: () => ({ resourceVersion: state.resourceVersion, get: (key: string) => state.objects.get(key) }),
    store$,
    set(next, ...items) {
      state = { resourceVersion: next, objects: new Map(items.map((object) => [keyOf(object), object])) };
      store$.next(state);
    },
  };
}

export function object(
  name: string,
  resourceVersion: string,
  extra: Partial<KubernetesObject['metadata']> = {},
  namespace = 'default',
): KubernetesObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, resourceVersion, uid: `uid-${name}`, ...extra },
  };
}

function keyOf(object: KubernetesObject): string {
  return object.metadata?.namespace ? `${object.metadata.namespace}/${object.metadata.name}` : object.metadata!.name!;
}

/** A write as a client tells it: sent, answered with `answer` (unless `undefined`: it failed), settled. */
export function write(
  writes: OwnWrites,
  answer: KubernetesObject | undefined,
  options: Partial<ClientWrite> & { readonly settle?: boolean } = {},
): { settle(): void } {
  const outcome = writes.sending({
    resource: CONFIG_MAP,
    verb: 'patch',
    subresource: undefined,
    namespace: 'default',
    name: answer?.metadata?.name,
    generateName: undefined,
    base: undefined,
    signal: undefined,
    ...options,
  });
  if (answer !== undefined) outcome.answered?.(answer);
  const settle = (): void => outcome.settled?.();
  if (options.settle !== false) settle();
  return { settle };
}

/** A request as the operator hands it, with a signal of its own. */
export function request(key: string): {
  key: string;
  reasons: readonly string[];
  attempt: number;
  priority: number;
  signal: AbortSignal;
} {
  return { key, reasons: [], attempt: 1, priority: 0, signal: new AbortController().signal };
}
