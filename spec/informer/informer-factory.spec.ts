import { expect } from 'chai';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { map } from 'rxjs';
import { TestScheduler, type RunHelpers } from 'rxjs/testing';
import type { ListWatchOptions, ResourceRef, WatchEvent } from '../../src/watch/index.js';
import type { WarningHandler } from '../../src/transport/index.js';
import { informerFactory, type DeltaSource } from '../../src/informer/index.js';
import { pod, type TestPod } from '../store/fixtures.js';

type E = WatchEvent<TestPod>;
const pods: ResourceRef = { apiVersion: 'v1', kind: 'Pod' };
const values = {
  a: { type: 'relistStarted' } as E,
  b: { type: 'listed', object: pod('x', '1', { node: 'n1' }) } as E,
  c: { type: 'relistDone', resourceVersion: '1' } as E,
};

function testScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => {
    expect(actual).to.deep.equal(expected);
  });
}

type Cold = RunHelpers['cold'];

/** A factory whose every watch is the same cold marble, recording which watches were started. */
function scripted(
  helpers: { cold: Cold },
  marble = 'a-b-c',
  factoryOptions: { onWarning?: WarningHandler; minWatchTimeout?: number | 'server' } = {},
) {
  const started: string[] = [];
  const sources: ReturnType<Cold>[] = [];
  const given: ListWatchOptions<KubernetesObject>[] = [];
  const source: DeltaSource = <T extends KubernetesObject>(resource: ResourceRef, options: ListWatchOptions<T>) => {
    started.push(`${resource.kind} ns=${options.namespace ?? '*'}`);
    given.push(options as unknown as ListWatchOptions<KubernetesObject>);
    const cold = helpers.cold<E>(marble, values);
    sources.push(cold);
    return cold as never;
  };
  return { factory: informerFactory(new KubeConfig(), { source, ...factoryOptions }), started, sources, given };
}

describe('informerFactory', () => {
  it('shares one watch between informers for the same resource and options', () => {
    testScheduler().run(({ cold, expectObservable, flush }) => {
      const { factory, started, sources } = scripted({ cold });
      const one = factory.for<TestPod>(pods);
      const two = factory.for<TestPod>(pods);
      expectObservable(one.synced$).toBe('f---t', { f: false, t: true });
      expectObservable(two.events$.pipe(map((e) => e.key)), '--^').toBe('----x', { x: 'default/x' });
      flush();
      expect(started).to.deep.equal(['Pod ns=*']);
      expect(sources[0]!.subscriptions).to.have.length(1);
      expect(two.current()).to.equal(one.current());
    });
  });

  it('starts separate watches for different namespaces or selectors', () => {
    testScheduler().run(({ cold, flush }) => {
      const { factory, started } = scripted({ cold });
      factory.for<TestPod>(pods, { namespace: 'a' }).events$.subscribe();
      factory.for<TestPod>(pods, { namespace: 'b' }).events$.subscribe();
      factory.for<TestPod>(pods, { namespace: 'a', labelSelector: 'app=x' }).events$.subscribe();
      factory.for<TestPod>(pods, { namespace: 'a' }).synced$.subscribe();
      flush();
      expect(started).to.deep.equal(['Pod ns=a', 'Pod ns=b', 'Pod ns=a']);
      expect(factory.active).to.equal(3);
    });
  });

  it('drops the shared entry when the last subscriber leaves and recreates it on the next subscribe', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions, flush }) => {
      const { factory, started, sources } = scripted({ cold });
      const informer = factory.for<TestPod>(pods);
      expectObservable(informer.synced$, '^----!').toBe('f---t', { f: false, t: true });
      expectObservable(informer.synced$, '------^----!').toBe('------f---t', { f: false, t: true });
      flush();
      expect(started).to.have.length(2);
      expectSubscriptions(sources[0]!.subscriptions).toBe('^----!');
      expectSubscriptions(sources[1]!.subscriptions).toBe('------^----!');
      expect(factory.active).to.equal(0);
    });
  });

  it('gives the shared store the indexers of every declaration', () => {
    testScheduler().run(({ cold, flush }) => {
      const { factory } = scripted({ cold });
      const byNode = factory.for<TestPod>(pods, { indexers: { byNode: (p) => p.spec?.nodeName } });
      const plain = factory.for<TestPod>(pods);
      plain.events$.subscribe();
      flush();
      expect(
        byNode
          .current()
          .byIndex('byNode', 'n1')
          .map((p) => p.metadata!.name),
      ).to.deep.equal(['x']);
    });
  });

  it('refuses a new indexer for a shared informer that is already running', () => {
    testScheduler().run(({ cold }) => {
      const { factory } = scripted({ cold });
      factory.for<TestPod>(pods).events$.subscribe();
      expect(() => factory.for<TestPod>(pods, { indexers: { late: () => 'x' } })).to.throw(
        /declare it before subscribing/,
      );
    });
  });

  it('refuses two different indexer functions under one name', () => {
    testScheduler().run(({ cold }) => {
      const { factory } = scripted({ cold });
      factory.for<TestPod>(pods, { indexers: { byNode: (p) => p.spec?.nodeName } });
      expect(() => factory.for<TestPod>(pods, { indexers: { byNode: () => 'other' } })).to.throw(
        TypeError,
        /different function/,
      );
    });
  });

  it("never hands a view objects shaped by another view's transform: different transforms get different watches", () => {
    testScheduler().run(({ cold, flush }) => {
      const started: string[] = [];
      // Like listWatch, this source applies the transform it was given to every object it emits.
      const source: DeltaSource = <T extends KubernetesObject>(
        _resource: ResourceRef,
        options: ListWatchOptions<T>,
      ) => {
        started.push(options.transform === undefined ? 'plain' : 'transformed');
        const shape = (e: E): E =>
          e.type === 'listed' && options.transform
            ? { ...e, object: options.transform(e.object as never) as never }
            : e;
        return cold<E>('a-b-c', values).pipe(map(shape)) as never;
      };
      const factory = informerFactory(new KubeConfig(), { source });
      const label = (p: TestPod): TestPod => ({ ...p, metadata: { ...p.metadata, labels: { shaped: 'yes' } } });
      const shaped = factory.for<TestPod>(pods, { transform: label });
      const sameShape = factory.for<TestPod>(pods, { transform: label });
      const plain = factory.for<TestPod>(pods);
      shaped.events$.subscribe();
      sameShape.events$.subscribe();
      plain.events$.subscribe();
      flush();
      expect(started).to.deep.equal(['transformed', 'plain']);
      expect(plain.current().get('default/x')?.metadata?.labels).to.deep.equal({});
      expect(shaped.current().get('default/x')?.metadata?.labels).to.deep.equal({ shaped: 'yes' });
      expect(sameShape.current()).to.equal(shaped.current());
    });
  });

  it('starts separate watches when keepManagedFields, streamingList, failFast, pageSize or listTimeout differ', () => {
    testScheduler().run(({ cold, flush }) => {
      const { factory, started } = scripted({ cold });
      const variants: ListWatchOptions<TestPod>[] = [
        {},
        { keepManagedFields: true },
        { streamingList: true },
        { failFast: true },
        { pageSize: 50 },
        { listTimeout: 5000 },
      ];
      for (const options of variants) factory.for<TestPod>(pods, options).events$.subscribe();
      for (const options of variants) factory.for<TestPod>(pods, options).synced$.subscribe();
      flush();
      expect(started).to.have.length(variants.length);
    });
  });

  it('refuses a second view of one watch with another scheduler, naming the option', () => {
    const { factory } = scripted({
      cold: (() => {
        throw new Error('no watch expected');
      }) as never,
    });
    const other = new TestScheduler(() => undefined);
    factory.for<TestPod>(pods, { scheduler: new TestScheduler(() => undefined) });
    expect(() => factory.for<TestPod>(pods, { scheduler: other })).to.throw(TypeError, /option "scheduler" differs/);
  });

  it("gives every watch the factory's onWarning unless a view names its own, and refuses two handlers for one watch", () => {
    testScheduler().run(({ cold, flush }) => {
      const factoryHandler: WarningHandler = () => undefined;
      const ownHandler: WarningHandler = () => undefined;
      const { factory, given } = scripted({ cold }, 'a-b-c', { onWarning: factoryHandler });
      factory.for<TestPod>(pods).synced$.subscribe();
      factory.for<TestPod>(pods, { namespace: 'own', onWarning: ownHandler }).synced$.subscribe();
      flush();
      expect(given.map((options) => options.onWarning)).to.deep.equal([factoryHandler, ownHandler]);
      expect(() => factory.for<TestPod>(pods, { namespace: 'own', onWarning: () => undefined })).to.throw(
        TypeError,
        /option "onWarning" differs/,
      );
    });
    expect(() => informerFactory(new KubeConfig(), { onWarning: 'log' as never })).to.throw(
      TypeError,
      'informerFactory: onWarning must be a function',
    );
  });

  it("gives every watch the factory's minWatchTimeout unless a view names its own, and refuses two for one watch", () => {
    testScheduler().run(({ cold, flush }) => {
      const { factory, given } = scripted({ cold }, 'a-b-c', { minWatchTimeout: 'server' });
      factory.for<TestPod>(pods).synced$.subscribe();
      factory.for<TestPod>(pods, { namespace: 'own', minWatchTimeout: 20_000 }).synced$.subscribe();
      flush();
      expect(given.map((options) => options.minWatchTimeout)).to.deep.equal(['server', 20_000]);
      expect(() => factory.for<TestPod>(pods, { namespace: 'own', minWatchTimeout: 30_000 })).to.throw(
        TypeError,
        /option "minWatchTimeout" differs/,
      );
    });
  });

  it("gives a watch its first view's idleTimeout and refuses another for the same watch", () => {
    testScheduler().run(({ cold, flush }) => {
      const { factory, given } = scripted({ cold });
      factory.for<TestPod>(pods, { idleTimeout: 45_000 }).synced$.subscribe();
      flush();
      expect(given.map((options) => options.idleTimeout)).to.deep.equal([45_000]);
      expect(() => factory.for<TestPod>(pods, { idleTimeout: false })).to.throw(
        TypeError,
        /option "idleTimeout" differs/,
      );
    });
  });

  it('compares a backoff policy by value, and accepts a later view that leaves it out', () => {
    const { factory } = scripted({
      cold: (() => {
        throw new Error('no watch expected');
      }) as never,
    });
    factory.for<TestPod>(pods, { backoff: { baseMs: 100, factor: 2, capMs: 1000 } });
    expect(() => factory.for<TestPod>(pods, { backoff: { baseMs: 100, factor: 2, capMs: 1000 } })).to.not.throw();
    expect(() => factory.for<TestPod>(pods)).to.not.throw();
    expect(() => factory.for<TestPod>(pods, { backoff: { baseMs: 200, factor: 2, capMs: 1000 } })).to.throw(
      TypeError,
      /option "backoff" differs/,
    );
  });

  it('answers current() with an empty store while the shared informer is idle', () => {
    testScheduler().run(({ cold }) => {
      const { factory, started } = scripted({ cold });
      const informer = factory.for<TestPod>(pods);
      expect(informer.current().size).to.equal(0);
      expect(informer.current().synced).to.equal(false);
      expect(started).to.deep.equal([]);
    });
  });
});
