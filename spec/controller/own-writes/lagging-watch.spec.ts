/**
 * Read-your-own-writes against a lagging watch on the virtual cluster: the bug class it exists for (Sieve's stale
 * reads after one's own write), as a controller that counts its children and creates one when there is none.
 */
import { expect } from 'chai';
import type { V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import { of, timer } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import {
  controller,
  owners,
  resourceClient,
  type ControllerDefinition,
  type InformerEvent,
  type ReconcileEvent,
} from '../../../src/index.js';
import { runController, type VirtualCluster } from '../../../src/testing/index.js';

const CONFIG_MAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
const toOwner = (event: InformerEvent): string[] =>
  (event.object.metadata?.ownerReferences ?? []).map((owner) => `default/${owner.name}`);

/**
 * Keeps exactly one Secret per ConfigMap: counts them in its cache, creates one (by generateName) when there is none.
 * It watches its Secrets as owned objects, or (`atRunTime`) through a watch added by `watches$`.
 */
function oneChild(readYourWrites: boolean | { readonly maxWait: number }, atRunTime = false): ControllerDefinition {
  return {
    name: 'one-child',
    start: (context) => {
      const secrets = context.informers.for<V1Secret>(SECRET, { namespace: 'default' });
      const client = context.client<V1Secret>(SECRET, { namespace: 'default' });
      return controller<V1ConfigMap>({
        context,
        for: { resource: CONFIG_MAP, options: { namespace: 'default' } },
        ...(atRunTime
          ? { watches$: of([{ source: { resource: SECRET, options: { namespace: 'default' } }, map: toOwner }]) }
          : { owns: [{ resource: SECRET, options: { namespace: 'default' } }] }),
        readYourWrites,
        reconcile: ({ object, signal }) => {
          if (object === undefined) return undefined;
          const children = secrets
            .current()
            .list({ namespace: 'default' })
            .filter((secret) => owners.isControlledBy(secret, object));
          if (children.length > 0) return undefined;
          const child = owners.setControllerReference<V1Secret>(
            { apiVersion: 'v1', kind: 'Secret', metadata: { generateName: 'child-', namespace: 'default' } },
            object,
          );
          return client.create(child, { signal });
        },
      });
    },
  };
}

/**
 * Runs `definition` with every watch event `lag` ms late. The parent is created at 10 ms and touched by someone
 * else at 50 ms: its creation reaches the controller at 110 ms (the first run creates the child then), the touch at
 * 150 ms (a second run), the child at 210 ms. So the second run starts while the child is still on its way.
 */
function lagging(
  definition: ControllerDefinition,
  lag = 100,
): { cluster: VirtualCluster; events: readonly ReconcileEvent[] } {
  let cluster!: VirtualCluster;
  let events!: readonly ReconcileEvent[];
  const scheduler = new TestScheduler((actual, expected) => void expect(actual).to.deep.equal(expected));
  scheduler.run(({ flush }) => {
    const run = runController(definition, { scheduler, until: 2000, watchLag: lag });
    cluster = run.cluster;
    const configs = resourceClient<V1ConfigMap>(cluster, CONFIG_MAP, { namespace: 'default' });
    timer(10, scheduler).subscribe(() =>
      configs.create({ metadata: { name: 'parent', namespace: 'default' } }).subscribe(),
    );
    timer(50, scheduler).subscribe(() =>
      configs.patch('parent', { type: 'merge', body: { metadata: { annotations: { touched: 'yes' } } } }).subscribe(),
    );
    flush();
    events = run.events;
  });
  return { cluster, events };
}

const startsOf = (events: readonly ReconcileEvent[]) => events.filter((event) => event.type === 'started');

describe('read-your-own-writes on a lagging watch', () => {
  it('never creates a second child because its cache had not caught up with the first', () => {
    const { cluster, events } = lagging(oneChild(true));
    expect(cluster.list(SECRET, 'default')).to.have.length(1);
    // The run the touch triggers waits from 150 ms for the child's event (210 ms), which also wakes the parent: one
    // run, on a cache that holds the child.
    expect(startsOf(events).map((event) => event.time)).to.deep.equal([110, 210]);
    expect(startsOf(events).filter((event) => event.staleRead !== undefined)).to.deep.equal([]);
  });

  it('waits as well for the caches of a watch added at run time', () => {
    const { cluster, events } = lagging(oneChild(true, true));
    expect(cluster.list(SECRET, 'default')).to.have.length(1);
    expect(startsOf(events).map((event) => event.time)).to.deep.equal([110, 210]);
  });

  it('creates two children without it: the failure read-your-own-writes exists for', () => {
    const { cluster, events } = lagging(oneChild(false));
    expect(cluster.list(SECRET, 'default')).to.have.length(2);
    expect(startsOf(events).map((event) => event.time)).to.deep.equal([110, 150, 210, 250]);
  });

  it('runs anyway once its bound has passed, and says which write its caches did not show', () => {
    const { cluster, events } = lagging(oneChild({ maxWait: 30 }));
    // 150 ms: the touch; 30 ms later the run gives up on the first child (due at 210 ms) and creates a second. At
    // 210 ms the first child wakes the parent, whose run waits for the second (due at 280 ms) until 240 ms, and
    // finds the first.
    expect(cluster.list(SECRET, 'default')).to.have.length(2);
    const [first, second] = cluster
      .list(SECRET, 'default')
      .sort((a, b) => Number(a.metadata!.resourceVersion) - Number(b.metadata!.resourceVersion));
    const stale = startsOf(events)
      .filter((event) => event.staleRead !== undefined)
      .map((event) => ({
        time: event.time,
        waitedMs: event.staleRead!.waitedMs,
        behind: event.staleRead!.behind.map(({ resource, key, resourceVersion, deleted }) => ({
          kind: resource.kind,
          key,
          resourceVersion,
          deleted,
        })),
      }));
    expect(stale).to.deep.equal([
      {
        time: 180,
        waitedMs: 30,
        behind: [
          {
            kind: 'Secret',
            key: `default/${first!.metadata!.name}`,
            resourceVersion: first!.metadata!.resourceVersion,
            deleted: false,
          },
        ],
      },
      {
        time: 240,
        waitedMs: 30,
        behind: [
          {
            kind: 'Secret',
            key: `default/${second!.metadata!.name}`,
            resourceVersion: second!.metadata!.resourceVersion,
            deleted: false,
          },
        ],
      },
    ]);
  });
});
