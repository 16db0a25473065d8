/**
 * The virtual cluster is a pure function of its seed and the requests it gets at their virtual times: any
 * sequence of writes, reads and faults replays byte for byte.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { TestScheduler } from 'rxjs/testing';
import { virtualCluster } from '../../../src/testing/index.js';
import type { TransportRequest } from '../../../src/transport/index.js';

type Step =
  | { readonly at: number; readonly kind: 'request'; readonly request: TransportRequest }
  | {
      readonly at: number;
      readonly kind: 'fault';
      readonly fault: 'dropWatches' | 'compact' | 'conflictNext' | 'failWrites' | 'latency';
    };

const name = fc.constantFrom('a', 'b', 'c');
const base = '/api/v1/namespaces/default';
const requestArb: fc.Arbitrary<TransportRequest> = fc.oneof(
  name.map(
    (n): TransportRequest => ({
      method: 'POST',
      path: `${base}/configmaps`,
      body: { metadata: { name: n }, data: { n } },
    }),
  ),
  fc.constant<TransportRequest>({
    method: 'POST',
    path: `${base}/configmaps`,
    body: { metadata: { generateName: 'gen-' } },
  }),
  fc.constant<TransportRequest>({
    method: 'POST',
    path: `${base}/services`,
    body: { metadata: { generateName: 'svc-' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } },
  }),
  fc.tuple(name, fc.string({ maxLength: 3 })).map(
    ([n, v]): TransportRequest => ({
      method: 'PATCH',
      path: `${base}/configmaps/${n}`,
      body: { data: { v } },
      contentType: 'application/merge-patch+json',
    }),
  ),
  name.map(
    (n): TransportRequest => ({
      method: 'PATCH',
      path: `${base}/configmaps/${n}`,
      query: { fieldManager: 'prop', force: true },
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n }, data: { applied: n } },
      contentType: 'application/apply-patch+yaml',
    }),
  ),
  name.map((n): TransportRequest => ({ method: 'DELETE', path: `${base}/configmaps/${n}` })),
  fc.constant<TransportRequest>({ method: 'GET', path: `${base}/configmaps` }),
);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ at: fc.nat(5000), kind: fc.constant('request' as const), request: requestArb }) },
  {
    weight: 1,
    arbitrary: fc.record({
      at: fc.nat(5000),
      kind: fc.constant('fault' as const),
      fault: fc.constantFrom(
        'dropWatches',
        'compact',
        'conflictNext',
        'failWrites',
        'latency',
      ) as fc.Arbitrary<'dropWatches'>,
    }),
  },
);

/** Every answer, error and watch line, with its virtual time, for `steps` on a cluster seeded with `seed`. */
function trace(seed: number, steps: readonly Step[]): string {
  const out: string[] = [];
  const scheduler = new TestScheduler(() => undefined);
  scheduler.run(({ flush }) => {
    const cluster = virtualCluster({ scheduler, seed, bookmarkIntervalMs: 700 });
    const log = (label: string) => ({
      next: (value: unknown) =>
        out.push(`${scheduler.now()} ${label} ${typeof value === 'string' ? value : JSON.stringify(value)}`),
      error: (error: unknown) =>
        out.push(`${scheduler.now()} ${label} ! ${(error as Error).name} ${(error as Error).message}`),
    });
    cluster.watch(`${base}/configmaps`, { allowWatchBookmarks: true, timeoutSeconds: 3 }).subscribe(log('watch'));
    steps.forEach((step, i) => {
      scheduler.schedule(() => {
        if (step.kind === 'request') {
          cluster.request(step.request).subscribe(log(`#${i}`));
          return;
        }
        switch (step.fault) {
          case 'dropWatches':
            cluster.faults.dropWatches({ mode: 'abrupt' });
            return;
          case 'compact':
            cluster.faults.compact();
            return;
          case 'conflictNext':
            cluster.faults.conflictNext({ resource: { apiVersion: 'v1', kind: 'ConfigMap' }, name: 'a' });
            return;
          case 'failWrites':
            cluster.faults.failWrites({ status: 429, retryAfterSeconds: 2 });
            return;
          case 'latency':
            cluster.faults.latency(step.at % 300);
        }
      }, step.at);
    });
    flush();
    cluster.close();
  });
  return out.join('\n');
}

describe('virtualCluster determinism (property)', () => {
  it('replays any sequence of writes, reads and faults byte for byte for the same seed', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 25 }), fc.nat(1000), (steps, seed) => {
        const first = trace(seed, steps);
        // Every request is answered (or cut) within the flush, so the trace can only match by matching them all.
        steps.forEach((step, i) => {
          if (step.kind === 'request') expect(first).to.include(` #${i} `);
        });
        expect(first).to.equal(trace(seed, steps));
      }),
      { numRuns: 60 },
    );
  });

  it('gives other uids for another seed', () => {
    const steps: Step[] = [
      {
        at: 10,
        kind: 'request',
        request: { method: 'POST', path: `${base}/configmaps`, body: { metadata: { generateName: 'x-' } } },
      },
    ];
    expect(trace(1, steps)).to.not.equal(trace(2, steps));
  });
});
