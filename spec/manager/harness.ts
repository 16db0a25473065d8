/**
 * A manager in virtual time for the marble specs: informers fed by cold marbles, the Lease and the Events served by
 * the virtual cluster of a VirtualLeaseServer, signals from a hot marble, and a timeline of what the manager emitted
 * and logged.
 */
import { Observable, tap, type Subscription } from 'rxjs';
import type { RunHelpers, TestScheduler } from 'rxjs/testing';
import type { DeltaSource } from '../../src/informer/index.js';
import type { ControllerDefinition } from '../../src/controller/context/index.js';
import { manager, type ManagerOptions } from '../../src/manager/index.js';
import type { Transport, TransportRequest } from '../../src/transport/index.js';
import type { WatchEvent } from '../../src/watch/index.js';
import { recordingLogger, subscribeTimeline, virtualManagerOptions } from '../../examples/shared/virtual-time.js';
import { VirtualLeaseServer } from '../leader/lease-server.js';
import { pod } from '../store/fixtures.js';

/** A list of `names` in `default`, then `watching`, over frames 0–3: synced at frame 2. */
export const LISTED = 'a-(bc)d';

/** The values of {@link LISTED} for pods `names`. */
export function listed(...names: string[]): Record<string, WatchEvent | WatchEvent[]> {
  return {
    a: { type: 'status', status: { state: 'listing', page: 1 } },
    b: [
      { type: 'relistStarted' },
      ...names.map((name, i) => ({ type: 'listed', object: pod(name, String(i + 1)) }) as WatchEvent),
    ],
    c: { type: 'relistDone', resourceVersion: String(names.length + 1) },
    d: { type: 'status', status: { state: 'watching', resourceVersion: String(names.length + 1) } },
  };
}

/** A delta source whose every watch plays `marble` (array values are emitted one by one in their frame). */
export function scriptedSource(
  helpers: Pick<RunHelpers, 'cold'>,
  marble: string,
  values: Record<string, WatchEvent | WatchEvent[]>,
): DeltaSource {
  return (() =>
    new Observable<WatchEvent>((subscriber) =>
      helpers.cold(marble, values).subscribe({
        next: (value) => (Array.isArray(value) ? value : [value]).forEach((event) => subscriber.next(event)),
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      }),
    )) as DeltaSource;
}

/**
 * The connection of the virtual manager: the cluster of `server` as candidate `me` (10 ms a request); its Event
 * writes recorded in `eventWrites` when answered.
 */
export function virtualConnection(
  scheduler: TestScheduler,
  server: VirtualLeaseServer,
  eventWrites: string[],
): Transport {
  const me = server.transport('me');
  return {
    get: (path, query, options) => me.get(path, query, options),
    watch: (path, query, options) => me.watch(path, query, options),
    request: (request: TransportRequest) => {
      if (!request.path.startsWith('/apis/events.k8s.io/')) return me.request(request);
      return me.request(request).pipe(
        tap(() => {
          eventWrites.push(
            `${scheduler.now()} ${request.method} ${(request.body as { reason?: string } | undefined)?.reason ?? ''}`,
          );
        }),
      );
    },
  };
}

/** A virtual manager's handles: its timeline, logs, Event writes, exits, the Lease server and the subscription. */
export interface VirtualManager {
  readonly timeline: string[];
  readonly logger: ReturnType<typeof recordingLogger>;
  readonly eventWrites: string[];
  readonly exits: string[];
  readonly server: VirtualLeaseServer;
  subscription: Subscription | undefined;
}

export { recordingLogger, subscribeTimeline, virtualManagerOptions } from '../../examples/shared/virtual-time.js';

/** Subscribes a manager at frame 0 with the virtual connection, no servers, and `overrides`. */
export function startVirtualManager(
  scheduler: TestScheduler,
  controllers: readonly ControllerDefinition[],
  overrides: Partial<ManagerOptions>,
  server = new VirtualLeaseServer(scheduler),
): VirtualManager {
  const eventWrites: string[] = [];
  const exits: string[] = [];
  const timeline: string[] = [];
  const logger = recordingLogger(scheduler);
  const handle: VirtualManager = { timeline, logger, eventWrites, exits, server, subscription: undefined };
  const manager$ = manager({
    connection: virtualConnection(scheduler, server, eventWrites),
    controllers,
    ...virtualManagerOptions(scheduler, logger, exits),
    ...overrides,
  });
  handle.subscription = subscribeTimeline(manager$, scheduler, timeline);
  return handle;
}
