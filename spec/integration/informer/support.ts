/**
 * Helpers for the informer integration specs: bounded waits, an event recorder that checks the event sequence
 * against a model, a convergence check against a fresh server list, and a time-compressing scheduler.
 */
import { CoreV1Api, type KubernetesObject, type V1Pod } from '@kubernetes/client-node';
import { expect } from 'chai';
import { asyncScheduler, Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';
import { claimHealth, type Informer, type InformerEvent, type InformerProblem } from '../../../src/informer/index.js';
import type { ClusterHandle } from '../../../src/testing/index.js';
import type { WatchStatus } from '../../../src/watch/index.js';

import { waitForAsync } from '../../support/wait.js';

export { waitFor, waitForAsync } from '../../support/wait.js';

/** Everything an informer emitted during a test, kept for assertions. */
export interface Recording<T extends KubernetesObject> {
  readonly events: InformerEvent<T>[];
  readonly statuses: WatchStatus[];
  readonly problems: InformerProblem[];
  readonly subscription: Subscription;
  /** Reasons of every `error` status so far, in order. */
  errorReasons(): string[];
  /** Reasons of every problem so far, in order. */
  problemReasons(): string[];
  /** How many (re)lists started (`listing` page 1 statuses). */
  lists(): number;
  /** The events of `type` for `key`. */
  of(type: InformerEvent['type'], key: string): InformerEvent<T>[];
}

/** Subscribes to `events$`, `status$` and `problems$` of `informer` and records what they emit. */
export function record<T extends KubernetesObject>(informer: Informer<T>): Recording<T> {
  const events: InformerEvent<T>[] = [];
  const statuses: WatchStatus[] = [];
  const problems: InformerProblem[] = [];
  const subscription = new Subscription();
  // The recording keeps every status: the faults it injects are expected, so the informer need not print them.
  subscription.add(claimHealth(informer));
  subscription.add(informer.status$.subscribe((status) => statuses.push(status)));
  subscription.add(informer.problems$.subscribe((problem) => problems.push(problem)));
  subscription.add(informer.events$.subscribe((event) => events.push(event)));
  return {
    events,
    statuses,
    problems,
    subscription,
    errorReasons: () => statuses.flatMap((s) => (s.state === 'error' ? [s.cause.reason] : [])),
    problemReasons: () => problems.map((p) => p.reason),
    lists: () => statuses.filter((s) => s.state === 'listing' && s.page === 1).length,
    of: (type, key) => events.filter((e) => e.type === type && e.key === key),
  };
}

const rvOf = (object: KubernetesObject | undefined): string | undefined => object?.metadata?.resourceVersion;

/**
 * Folds the recorded events into a key → resourceVersion model and throws at the first event that contradicts
 * it: an `added` for a key already present (a duplicate), an `updated`/`deleted` for a key that is absent or
 * whose `old`/last object is not the one the model holds (a missed event). Returns the final model.
 */
export function foldEvents<T extends KubernetesObject>(events: readonly InformerEvent<T>[]): Map<string, string> {
  const model = new Map<string, string>();
  events.forEach((event, index) => {
    const where = `event #${index} (${event.type} ${event.key})`;
    switch (event.type) {
      case 'added':
        expect(model.has(event.key), `${where}: duplicate added`).to.equal(false);
        model.set(event.key, rvOf(event.object)!);
        break;
      case 'updated':
        expect(model.get(event.key), `${where}: updated from a version the informer never delivered`).to.equal(
          rvOf(event.old),
        );
        model.set(event.key, rvOf(event.object)!);
        break;
      case 'deleted':
        expect(model.has(event.key), `${where}: deleted a key that was never added`).to.equal(true);
        if (event.stateUnknown)
          expect(model.get(event.key), `${where}: tombstone is not the last known object`).to.equal(rvOf(event.object));
        model.delete(event.key);
        break;
      case 'resync':
        expect(model.get(event.key), `${where}: resync of an unknown version`).to.equal(rvOf(event.object));
        break;
    }
  });
  return model;
}

/** `namespace/name` (or `name`) → resourceVersion of a server list's items. */
export function versions(items: readonly KubernetesObject[]): Map<string, string> {
  return new Map(
    items.map((o) => [
      o.metadata?.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata!.name!,
      o.metadata!.resourceVersion!,
    ]),
  );
}

/** key → resourceVersion of an informer's current snapshot. */
export function cached<T extends KubernetesObject>(informer: Informer<T>): Map<string, string> {
  return new Map([...informer.current().entries()].map(([key, object]) => [key, rvOf(object)!]));
}

const sameVersions = (a: Map<string, string>, b: Map<string, string>): boolean =>
  a.size === b.size && [...a].every(([key, rv]) => b.get(key) === rv);

/**
 * Waits until the informer's `current()` equals a fresh list from the server (keys and resourceVersions), then
 * checks that the recorded event sequence is gap-free and duplicate-free and folds to that same state.
 */
export async function expectConverged<T extends KubernetesObject>(
  informer: Informer<T>,
  recording: Recording<T>,
  listServer: () => Promise<readonly KubernetesObject[]>,
): Promise<void> {
  let server = new Map<string, string>();
  await waitForAsync(
    async () => {
      server = versions(await listServer());
      return sameVersions(server, cached(informer)) && sameVersions(server, foldEvents(recording.events));
    },
    'the informer to converge to the server state',
    8000,
  ).catch((error: unknown) => {
    expect(cached(informer), 'current() against a fresh server list').to.deep.equal(server);
    expect(foldEvents(recording.events), 'the folded event sequence against a fresh server list').to.deep.equal(server);
    throw error;
  });
}

/** Lists every pod of the cluster through client-node. */
export function podLister(cluster: Pick<ClusterHandle, 'kubeConfig'>, namespace?: string): () => Promise<V1Pod[]> {
  const api = cluster.kubeConfig.makeApiClient(CoreV1Api);
  return async () =>
    (namespace === undefined ? await api.listPodForAllNamespaces() : await api.listNamespacedPod({ namespace })).items;
}

/** A minimal valid pod. */
export function pod(name: string, labels: Record<string, string> = {}): V1Pod {
  return { metadata: { name, labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
}

/**
 * A scheduler whose clock runs `factor` times faster than the wall clock: `now()` is scaled up and every delay is
 * scaled down by `factor`. It lets the reflector's fixed real-world timers (the dead-connection budget of
 * `timeoutSeconds + 30 s`, at least 330 s, has no option of its own) fire within a second or two over real HTTP.
 *
 * # Caveats
 * - Every timer of whoever uses it is compressed, backoff included; use it only where that is intended.
 * - Rescheduling from inside an action (`this.schedule`) is compressed as well.
 */
export function fastClock(factor: number, base: SchedulerLike = asyncScheduler): SchedulerLike {
  const origin = base.now();
  return {
    now: () => origin + (base.now() - origin) * factor,
    schedule<S>(work: (this: SchedulerAction<S>, state?: S) => void, delay = 0, state?: S): Subscription {
      return base.schedule(
        function (this: SchedulerAction<S>, inner?: S) {
          const compressed = Object.assign(Object.create(this) as SchedulerAction<S>, {
            schedule: (next?: S, nextDelay = 0) => this.schedule(next, nextDelay / factor),
          });
          work.call(compressed, inner);
        },
        delay / factor,
        state,
      );
    },
  };
}
