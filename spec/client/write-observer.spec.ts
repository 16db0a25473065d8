/**
 * The resource client's write observer: every write, its target, the version it was conditioned on, its signal and
 * its answer, told before the caller sees the answer; dry runs and reads are not writes.
 */
import { expect } from 'chai';
import type { KubernetesObject, V1ConfigMap } from '@kubernetes/client-node';
import { concat, defer, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { finalizer, resourceClient, type ClientWrite, type WriteObserver } from '../../src/client/index.js';
import { virtualCluster } from '../../src/testing/index.js';

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' } as const;

/** What the observer heard, one line per call: `sending <verb>[/status] <ns>/<name|generateName*> base=<base>`, `answered <rv>`, `settled`. */
function listening(): { observer: WriteObserver; heard: string[]; writes: ClientWrite[] } {
  const heard: string[] = [];
  const writes: ClientWrite[] = [];
  const observer: WriteObserver = {
    sending(write) {
      writes.push(write);
      const target = write.name ?? `${write.generateName}*`;
      heard.push(
        `sending ${write.verb}${write.subresource ? '/status' : ''} ${write.namespace === undefined ? '' : `${write.namespace}/`}${target} base=${String(write.base)}`,
      );
      return {
        answered: (answer: KubernetesObject) =>
          heard.push(`answered ${answer.kind === 'Status' ? 'Status' : answer.metadata?.resourceVersion}`),
        settled: () => heard.push('settled'),
      };
    },
  };
  return { observer, heard, writes };
}

/**
 * Runs the calls one after the other on a virtual cluster seeded with a ConfigMap `app`; `calls` gets the
 * resourceVersion `app` was seeded at (each write then adds 1).
 */
function onCluster(
  calls: (client: ReturnType<typeof resourceClient<V1ConfigMap>>, seeded: number) => Observable<unknown>[],
  observer: WriteObserver,
): string[] {
  const seen: string[] = [];
  const scheduler = new TestScheduler((actual, expected) => void expect(actual).to.deep.equal(expected));
  scheduler.run(({ flush }) => {
    const cluster = virtualCluster({ scheduler });
    const seeded = Number(
      cluster.seed([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', namespace: 'default' } }]),
    );
    const client = resourceClient<V1ConfigMap>(cluster, CONFIG_MAP, {
      namespace: 'default',
      writeObserver: observer,
      fieldManager: 'spec',
    });
    concat(
      ...calls(client, seeded).map((call$) =>
        defer(() => {
          seen.push('call');
          return call$;
        }),
      ),
    ).subscribe({ error: (error: unknown) => seen.push(`error ${String(error)}`) });
    flush();
    cluster.close();
  });
  return seen;
}

describe('resourceClient: the write observer', () => {
  it('tells each write with its target and the version it is conditioned on, then its answer, then that it settled', () => {
    const { observer, heard } = listening();
    let v = 0;
    onCluster((client, seeded) => {
      v = seeded;
      return [
        client.get('app'),
        client.create({ metadata: { generateName: 'web-' } }),
        client.patch('app', {
          type: 'json',
          body: [
            { op: 'test', path: '/metadata/resourceVersion', value: String(v) },
            { op: 'add', path: '/data', value: { a: '1' } },
          ],
        }),
        client.patch('app', { type: 'merge', body: { data: { b: '2' } } }),
        client.apply({ metadata: { name: 'app' }, data: { c: '3' } }),
        client.replace({ metadata: { name: 'app', resourceVersion: String(v + 4) }, data: {} }),
        client.create({ metadata: { name: 'dry' } }, { dryRun: true }),
        client.delete('app'),
      ];
    }, observer);
    expect(heard).to.deep.equal([
      `sending create default/web-* base=null`,
      `answered ${v + 1}`,
      'settled',
      `sending patch default/app base=${v}`,
      `answered ${v + 2}`,
      'settled',
      `sending patch default/app base=undefined`,
      `answered ${v + 3}`,
      'settled',
      `sending apply default/app base=undefined`,
      `answered ${v + 4}`,
      'settled',
      `sending replace default/app base=${v + 4}`,
      `answered ${v + 5}`,
      'settled',
      `sending delete default/app base=undefined`,
      `answered ${heard.at(-2)?.split(' ')[1]}`,
      'settled',
    ]);
  });

  it('tells a refused write as settled without an answer, a status write as such, and no namespace for a cluster-scoped kind', () => {
    const { observer, heard } = listening();
    const scheduler = new TestScheduler(() => undefined);
    scheduler.run(({ flush }) => {
      const cluster = virtualCluster({ scheduler });
      const namespaces = resourceClient(cluster, NAMESPACE, { writeObserver: observer });
      namespaces.create({ metadata: { name: 'team' } }).subscribe();
      flush();
      namespaces.create({ metadata: { name: 'team' } }).subscribe({ error: () => undefined });
      flush();
      namespaces
        .patchStatus('team', { type: 'merge', body: { metadata: { resourceVersion: heard[1]!.split(' ')[1] } } })
        .subscribe();
      flush();
      cluster.close();
    });
    const created = heard[1]!.split(' ')[1]!;
    expect(heard).to.deep.equal([
      'sending create team base=null',
      `answered ${created}`,
      'settled',
      'sending create team base=null',
      'settled',
      `sending patch/status team base=${created}`,
      heard[6],
      'settled',
    ]);
    expect(heard[6]).to.match(/^answered \d+$/);
  });

  it("tells the writes mutate sends, each conditioned on the version it tests, with the call's signal", () => {
    const { observer, heard, writes } = listening();
    const signal = new AbortController().signal;
    let v = 0;
    onCluster((client, seeded) => {
      v = seeded;
      return [
        client.mutate(
          'app',
          (draft) => {
            draft.data = { a: '1' };
          },
          { signal },
        ),
      ];
    }, observer);
    expect(heard).to.deep.equal([`sending patch default/app base=${v}`, `answered ${v + 1}`, 'settled']);
    expect(writes.map((write) => write.signal)).to.deep.equal([signal]);
  });

  it("tells the finalizer helper's writes, with the request's signal", () => {
    const { observer, writes } = listening();
    const signal = new AbortController().signal;
    const scheduler = new TestScheduler(() => undefined);
    scheduler.run(({ flush }) => {
      const cluster = virtualCluster({ scheduler });
      cluster.seed([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'app', namespace: 'default' } }]);
      const client = resourceClient<V1ConfigMap>(cluster, CONFIG_MAP, {
        namespace: 'default',
        writeObserver: observer,
      });
      const reconcile = finalizer(client, 'example.com/cleanup', { apply: () => undefined, cleanup: () => undefined });
      client.get('app').subscribe((app) => reconcile({ object: app, signal }).subscribe());
      flush();
      cluster.close();
    });
    expect(writes.map((write) => [write.verb, write.name, write.base, write.signal === signal])).to.deep.equal([
      ['patch', 'app', writes[0]?.base, true],
    ]);
    expect(writes[0]?.base).to.be.a('string');
  });

  it('refuses an observer without a sending method where the client is made, and survives one that throws', () => {
    const scheduler = new TestScheduler(() => undefined);
    expect(() => resourceClient(virtualCluster({ scheduler }), CONFIG_MAP, { writeObserver: {} as never })).to.throw(
      TypeError,
      'writeObserver must be an object with a sending(write) method',
    );
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      const seen = onCluster((client) => [client.create({ metadata: { name: 'b' } })], {
        sending: () => {
          throw new Error('observer broke');
        },
      });
      expect(seen).to.deep.equal(['call']);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
