/**
 * `controller({ watches$ })`: watches added and removed while the controller runs, over the context's shared,
 * ref-counted informers.
 */
import { expect } from 'chai';
import type { KubernetesObject, V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import { BehaviorSubject, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import {
  controller,
  resourceClient,
  type ControllerContext,
  type ControllerDefinition,
  type ReconcileEvent,
  type WatchesSpec,
} from '../../../src/index.js';
import { runController, type VirtualCluster } from '../../../src/testing/index.js';

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;

/** A Secret wakes the ConfigMap its `parent` label names. */
const secretsToParents = (): WatchesSpec => ({
  source: { resource: SECRET, options: { namespace: 'default' } },
  map: (event) => `default/${event.object.metadata?.labels?.parent ?? ''}`,
});

interface Scene {
  readonly watches$: BehaviorSubject<readonly WatchesSpec[]>;
  readonly at: (ms: number, act: (scene: Running) => void) => void;
}

interface Running {
  readonly cluster: VirtualCluster;
  readonly context: ControllerContext;
  readonly secrets: ReturnType<typeof resourceClient<V1Secret>>;
  readonly log: string[];
}

/** Runs a controller of ConfigMaps with `watches$` on a virtual cluster for 1 s; `log` has `<ms> <key> <reasons>` per run. */
function scene(setup: (scene: Scene) => void, onError?: (error: Error) => void): Running {
  let running!: Running;
  const scheduler = new TestScheduler((actual, expected) => void expect(actual).to.deep.equal(expected));
  scheduler.run(({ flush }) => {
    const watches$ = new BehaviorSubject<readonly WatchesSpec[]>([]);
    let context!: ControllerContext;
    const log: string[] = [];
    const definition: ControllerDefinition = {
      name: 'parents',
      start: (given) => {
        context = given;
        return controller<V1ConfigMap>({
          context,
          for: { resource: CONFIG_MAP, options: { namespace: 'default' } },
          watches$,
          ...(onError ? { onError } : {}),
          reconcile: () => undefined,
        });
      },
    };
    const run = runController(definition, {
      scheduler,
      until: 1000,
      objects: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p', namespace: 'default' } }],
    });
    run.events$.subscribe((event: ReconcileEvent) => {
      if (event.type === 'started') log.push(`${event.time} ${event.key} ${event.reasons.join(',')}`);
    });
    running = {
      cluster: run.cluster,
      get context() {
        return context;
      },
      log,
      secrets: resourceClient<V1Secret>(run.cluster, SECRET, { namespace: 'default' }),
    };
    setup({ watches$, at: (ms, act) => void timer(ms, scheduler).subscribe(() => act(running)) });
    flush();
  });
  return running;
}

const secret = (name: string, parent: string): V1Secret => ({
  metadata: { name, namespace: 'default', labels: { parent } },
});
const watchRequests = (cluster: VirtualCluster, resource: string) =>
  cluster.requestLog.records().filter((r) => r.verb === 'watch' && r.resource === resource);

describe('controller({ watches$ }): watches added and removed at run time', () => {
  it('triggers from a watch once it is added, and no more once it is removed', () => {
    const spec = secretsToParents();
    const { log } = scene(({ watches$, at }) => {
      at(100, () => watches$.next([spec]));
      at(200, ({ secrets }) => secrets.create(secret('s1', 'p')).subscribe());
      at(300, () => watches$.next([]));
      at(400, ({ secrets }) => secrets.create(secret('s2', 'p')).subscribe());
    });
    expect(log).to.deep.equal(['0 default/p added ConfigMap default/p', '200 default/p added Secret default/s1']);
  });

  it("releases a removed watch's informer: the factory runs one informer less and the watch request is aborted", () => {
    const spec = secretsToParents();
    const counts: string[] = [];
    const count = ({ context, cluster }: Running, when: string) =>
      counts.push(`${when}: ${context.informers.active} informers, ${cluster.openWatches()} watches`);
    scene(({ watches$, at }) => {
      at(50, (running) => count(running, 'before'));
      at(100, () => watches$.next([spec]));
      at(150, (running) => count(running, 'watching'));
      at(200, () => watches$.next([]));
      at(250, (running) => count(running, 'removed'));
    });
    expect(counts).to.deep.equal([
      'before: 1 informers, 1 watches',
      'watching: 2 informers, 2 watches',
      'removed: 1 informers, 1 watches',
    ]);
  });

  it('keeps a shared informer running when a spec is replaced by another of the same kind and options', () => {
    const first = secretsToParents();
    const second = secretsToParents();
    let running!: Running;
    const { log } = scene(({ watches$, at }) => {
      at(100, () => watches$.next([first]));
      at(200, () => watches$.next([second]));
      at(300, ({ secrets }) => secrets.create(secret('s1', 'p')).subscribe());
      at(400, (r) => (running = r));
    });
    expect(watchRequests(running.cluster, 'secrets')).to.have.length(1);
    // The replacement joined the running informer: its replay of the (empty) cache triggers nothing; s1 once.
    expect(log).to.deep.equal(['0 default/p added ConfigMap default/p', '300 default/p added Secret default/s1']);
  });

  it('leaves a watch the primary also uses running when it is removed', () => {
    const configs: WatchesSpec = {
      source: { resource: CONFIG_MAP, options: { namespace: 'default' } },
      map: () => 'default/p',
    };
    const counts: number[] = [];
    scene(({ watches$, at }) => {
      at(100, () => watches$.next([configs]));
      at(150, ({ context }) => counts.push(context.informers.active));
      at(200, () => watches$.next([]));
      at(250, ({ context, cluster }) => counts.push(context.informers.active, cluster.openWatches()));
    });
    expect(counts).to.deep.equal([1, 1, 1]);
  });

  it('reports a spec it cannot start once, leaves it out, and runs the others', () => {
    const reported: string[] = [];
    const bad = { source: { resource: SECRET } } as unknown as WatchesSpec;
    const good = secretsToParents();
    const { log } = scene(
      ({ watches$, at }) => {
        at(100, () => watches$.next([bad, good]));
        at(150, () => watches$.next([bad, good]));
        at(200, ({ secrets }) => secrets.create(secret('s1', 'p')).subscribe());
      },
      (error) => reported.push(error.message),
    );
    expect(reported.filter((message) => message.includes('watches$'))).to.have.length(1);
    expect(reported[0]).to.match(/each spec of watches\$ must be \{ source, map \}/);
    expect(log).to.deep.equal(['0 default/p added ConfigMap default/p', '200 default/p added Secret default/s1']);
  });

  it('refuses a watches$ that is not an Observable when the controller is built', () => {
    expect(() =>
      controller<KubernetesObject>({
        for: { current: () => undefined, events$: undefined } as never,
        reconcile: () => undefined,
        watches$: [] as never,
      }),
    ).to.throw(TypeError, 'watches$ must be an Observable');
  });
});
