/**
 * The fault API on the virtual cluster, each fault scheduled at a virtual time: watch faults (drop, compact,
 * stall, malformed lines, restart), request faults (failNext, latency) and the write faults (conflictNext,
 * failWrites).
 */
import type { V1ConfigMap } from '@kubernetes/client-node';
import { expect } from 'chai';
import { takeUntil, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { resourceClient } from '../../../src/client/index.js';
import { informer } from '../../../src/informer/index.js';
import { virtualCluster, type VirtualCluster } from '../../../src/testing/index.js';
import {
  ApiError,
  isConflict,
  isServerError,
  isTooManyRequests,
  TransportError,
} from '../../../src/transport/index.js';

const CONFIG_MAPS = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const configMap = (name: string, data: Record<string, string> = {}): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data,
});

/** Runs `body` in `TestScheduler.run` with a fresh virtual cluster; closes it after the flush. */
function inVirtualTime(body: (cluster: VirtualCluster) => void): void {
  const scheduler = new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
  scheduler.run(({ flush }) => {
    const cluster = virtualCluster({ scheduler, seed: 3, bookmarkIntervalMs: 60_000 });
    body(cluster);
    flush();
    cluster.close();
  });
}

/** At virtual time `at`, runs `work`. */
const at = (cluster: VirtualCluster, ms: number, work: () => void): void => {
  timer(ms, cluster.scheduler).subscribe(work);
};

/** Outcome of one write: `ok` or the error's code / TransportError reason, with the virtual time it arrived. */
function outcome(cluster: VirtualCluster, log: string[], label: string) {
  return {
    next: () => log.push(`${cluster.scheduler.now()}:${label}:ok`),
    error: (error: unknown) =>
      log.push(
        `${cluster.scheduler.now()}:${label}:${error instanceof ApiError ? error.code : error instanceof TransportError ? error.reason : String(error)}`,
      ),
  };
}

/** Informer events as `t:type:name` plus the states it went through, until `until`. */
function watchLog(cluster: VirtualCluster, until: number, log: string[]): void {
  const configMaps = informer<V1ConfigMap>(cluster, CONFIG_MAPS, { scheduler: cluster.scheduler, random: () => 0 });
  const stop = timer(until, cluster.scheduler);
  configMaps.events$
    .pipe(takeUntil(stop))
    .subscribe((event) => log.push(`${cluster.scheduler.now()}:${event.type}:${event.object.metadata?.name}`));
  configMaps.problems$
    .pipe(takeUntil(stop))
    .subscribe((problem) => log.push(`${cluster.scheduler.now()}:problem:${problem.reason}`));
}

describe('virtualCluster: faults in virtual time', () => {
  it('answers 409 Conflict to the next write of one object (by kind and key), then lets writes through', () => {
    const log: string[] = [];
    let conflict: unknown;
    inVirtualTime((cluster) => {
      cluster.seed([configMap('a'), configMap('b')]);
      const client = resourceClient<V1ConfigMap>(cluster, CONFIG_MAPS).inNamespace('default');
      at(cluster, 10, () => cluster.faults.conflictNext({ resource: CONFIG_MAPS, namespace: 'default', name: 'a' }));
      at(cluster, 20, () =>
        client.patch('b', { type: 'merge', body: { data: { x: '1' } } }).subscribe(outcome(cluster, log, 'b')),
      );
      at(cluster, 30, () =>
        client.patch('a', { type: 'merge', body: { data: { x: '1' } } }).subscribe({
          ...outcome(cluster, log, 'a'),
          error: (error: unknown) => {
            conflict = error;
            outcome(cluster, log, 'a').error(error);
          },
        }),
      );
      at(cluster, 40, () =>
        client.patch('a', { type: 'merge', body: { data: { x: '2' } } }).subscribe(outcome(cluster, log, 'a')),
      );
    });
    expect(log).to.deep.equal(['20:b:ok', '30:a:409', '40:a:ok']);
    expect(isConflict(conflict)).to.equal(true);
    expect((conflict as ApiError).message).to.equal(
      'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
    );
  });

  it('fails the next writes with 429 and Retry-After, or 500, and never a read', () => {
    const log: string[] = [];
    const errors: unknown[] = [];
    inVirtualTime((cluster) => {
      const client = resourceClient<V1ConfigMap>(cluster, CONFIG_MAPS).inNamespace('default');
      at(cluster, 0, () => cluster.faults.failWrites({ status: 429, retryAfterSeconds: 7 }));
      at(cluster, 5, () => client.list().subscribe(outcome(cluster, log, 'list')));
      at(cluster, 10, () =>
        client.create(configMap('a')).subscribe({
          ...outcome(cluster, log, 'create'),
          error: (e: unknown) => {
            errors.push(e);
            outcome(cluster, log, 'create').error(e);
          },
        }),
      );
      at(cluster, 20, () => cluster.faults.failWrites({ status: 500, count: 2 }));
      at(cluster, 30, () =>
        client.create(configMap('a')).subscribe({
          ...outcome(cluster, log, 'create'),
          error: (e: unknown) => {
            errors.push(e);
            outcome(cluster, log, 'create').error(e);
          },
        }),
      );
      at(cluster, 40, () => client.delete('a').subscribe(outcome(cluster, log, 'delete')));
      at(cluster, 50, () => client.create(configMap('a')).subscribe(outcome(cluster, log, 'create')));
    });
    expect(log).to.deep.equal(['5:list:ok', '10:create:429', '30:create:500', '40:delete:500', '50:create:ok']);
    expect(isTooManyRequests(errors[0])).to.equal(true);
    expect((errors[0] as ApiError).reason).to.equal('TooManyRequests');
    expect((errors[0] as ApiError).retryAfterSeconds).to.equal(7);
    expect(isServerError(errors[1])).to.equal(true);
  });

  it('delays answers by the latency fault, in virtual time', () => {
    const log: string[] = [];
    inVirtualTime((cluster) => {
      const client = resourceClient<V1ConfigMap>(cluster, CONFIG_MAPS).inNamespace('default');
      at(cluster, 100, () => client.list().subscribe(outcome(cluster, log, 'list')));
      at(cluster, 200, () => cluster.faults.latency(1500));
      at(cluster, 300, () => client.list().subscribe(outcome(cluster, log, 'list')));
      at(cluster, 300, () => cluster.faults.failNext({ status: 503, path: '/api/v1/namespaces/default/configmaps' }));
      at(cluster, 400, () => client.list().subscribe(outcome(cluster, log, 'list')));
    });
    // The client's discovery is cached after the first list; the later lists are one request each.
    expect(log).to.deep.equal(['100:list:ok', '1800:list:ok', '1900:list:503']);
  });

  it('drops, compacts, stalls, corrupts and restarts watches at virtual times; the informer recovers each time', () => {
    const log: string[] = [];
    inVirtualTime((cluster) => {
      cluster.seed([configMap('a')]);
      watchLog(cluster, 200_000, log);
      const client = resourceClient<V1ConfigMap>(cluster, CONFIG_MAPS).inNamespace('default');
      at(cluster, 1000, () => cluster.faults.dropWatches({ mode: 'abrupt' }));
      at(cluster, 1001, () => client.create(configMap('b')).subscribe());
      at(cluster, 10_000, () => {
        cluster.faults.dropWatches();
        cluster.faults.compact();
      });
      at(cluster, 20_000, () => cluster.faults.stallWatches(5000));
      at(cluster, 21_000, () => client.create(configMap('c')).subscribe());
      at(cluster, 40_000, () => cluster.faults.injectMalformedLine());
      at(cluster, 41_000, () => client.create(configMap('d')).subscribe());
      at(cluster, 60_000, () => cluster.faults.restart());
      at(cluster, 60_001, () => client.create(configMap('e')).subscribe());
    });
    const events = log.filter((line) => !line.includes(':problem:'));
    expect(events[0]).to.equal('0:added:a');
    // Every write reaches the informer exactly once and after its fault: no gap, no duplicate.
    for (const name of ['b', 'c', 'd', 'e'])
      expect(events.filter((line) => line.endsWith(`:added:${name}`))).to.have.length(1);
    const time = (name: string): number =>
      Number(events.find((line) => line.endsWith(`:added:${name}`))!.split(':')[0]);
    expect(time('c')).to.equal(25_000);
    expect(time('d')).to.equal(41_000);
    expect(log.filter((line) => line.includes(':problem:'))).to.deep.equal(['40000:problem:MalformedLine']);
  });
});
