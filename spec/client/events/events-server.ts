/**
 * The events.k8s.io server of the recorder's marble specs: a virtual cluster, seen through the recorder's requests.
 * It answers after `latencyMs` (every request is served when it is answered), fails the next requests as a spec
 * asks (the failure armed on the cluster just before the request it is meant for), and records every call.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { defer, type Observable, type SchedulerLike } from 'rxjs';
import { ApiError, TransportError } from '../../../src/transport/index.js';
import type { Transport, TransportRequest, TransportResponse } from '../../../src/transport/index.js';
import { eventRecorder } from '../../../src/client/events/index.js';
import type {
  EventRecorder,
  EventRecorderOptions,
  EventReport,
  RecordedEvent,
} from '../../../src/client/events/index.js';
import { resourceClient } from '../../../src/client/index.js';
import type { ObjectLike } from '../../../src/objects/index.js';
import { virtualCluster, type VirtualCluster, type VirtualLink } from '../../../src/testing/index.js';

const EVENT = { apiVersion: 'events.k8s.io/v1', kind: 'Event' } as const;

/** One request the recorder made. */
export interface FakeCall {
  readonly at: number;
  readonly method: string;
  readonly path: string;
  readonly body: any;
}

/** What the next matching request meets instead of its plain answer. */
type Failure =
  | { readonly method?: string; readonly error: unknown }
  | { readonly method?: string; readonly hang: true };

/** The Events the cluster stores, by path; `set` and `clear` write them as another client would. */
export class StoredEvents {
  constructor(
    private readonly cluster: VirtualCluster,
    private readonly other: VirtualLink,
  ) {}

  private all(): Map<string, RecordedEvent> {
    return new Map(
      this.cluster
        .list(EVENT)
        .map((event) => [
          `/apis/events.k8s.io/v1/namespaces/${event.metadata!.namespace}/events/${event.metadata!.name}`,
          event as unknown as RecordedEvent,
        ]),
    );
  }

  get size(): number {
    return this.all().size;
  }

  keys(): IterableIterator<string> {
    return this.all().keys();
  }

  values(): IterableIterator<RecordedEvent> {
    return this.all().values();
  }

  /** Stores an Event at `path`: a valid one about pod `web`, with `fields` over it (another writer's, say). */
  set(path: string, fields: Partial<RecordedEvent>): void {
    const [namespace, name] = [path.split('/')[5]!, path.split('/')[7]!];
    this.cluster.seed([
      {
        ...EVENT,
        metadata: { name, namespace },
        eventTime: '1970-01-01T00:00:00.000000Z',
        reportingController: 'example.com/test',
        reportingInstance: 'test-0',
        action: 'Reconcile',
        reason: 'Synced',
        type: 'Normal',
        regarding: { apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'web', uid: 'uid-web' },
        ...fields,
      } as KubernetesObject,
    ]);
  }

  /** Deletes every Event. */
  clear(): void {
    const events = resourceClient<KubernetesObject>(this.other, EVENT);
    for (const event of this.cluster.list(EVENT))
      events.inNamespace(event.metadata!.namespace!).delete(event.metadata!.name!).subscribe();
  }
}

export class EventsServer implements Transport {
  readonly calls: FakeCall[] = [];
  readonly cluster: VirtualCluster;
  readonly objects: StoredEvents;
  latencyMs = 1;
  private readonly failures: Failure[] = [];
  private readonly link: VirtualLink;
  private warned: readonly string[] = [];

  constructor(private readonly scheduler: SchedulerLike) {
    this.cluster = virtualCluster({ scheduler });
    this.link = this.cluster.link({ latency: () => this.latencyMs });
    this.objects = new StoredEvents(this.cluster, this.cluster.link({ userAgent: 'kubectl' }));
  }

  /** The `Warning: 299` texts every answer from now on carries. */
  get warnings(): readonly string[] {
    return this.warned;
  }

  set warnings(texts: readonly string[]) {
    this.warned = texts;
    for (const text of texts) this.cluster.faults.warnNext({ text, count: Number.POSITIVE_INFINITY });
  }

  /** The next request (of `method`, if given) fails with `error`: an ApiError's status, or a TransportError's network fault. */
  failNext(error: unknown, method?: string): this {
    this.failures.push({ error, method });
    return this;
  }

  /** The next request (of `method`, if given) never answers. */
  hangNext(method?: string): this {
    this.failures.push({ hang: true, method });
    return this;
  }

  /** `METHOD name [#count]` per call, with its time: the request timeline. */
  get lines(): string[] {
    return this.calls.map((call) => {
      const name = call.method === 'POST' ? `${call.body.reason}` : decodeURIComponent(call.path.split('/').pop()!);
      const count = call.method === 'POST' ? call.body.series?.count : call.body?.series?.count;
      return `${call.at} ${call.method} ${name}${count === undefined ? '' : ` #${count}`}`;
    });
  }

  get(): Observable<unknown> {
    return defer(() => {
      throw new Error('the recorder never lists');
    });
  }

  watch(): Observable<string> {
    return defer(() => {
      throw new Error('the recorder never watches');
    });
  }

  request(request: TransportRequest): Observable<TransportResponse> {
    return defer(() => {
      this.calls.push({ at: this.scheduler.now(), method: request.method, path: request.path, body: request.body });
      const index = this.failures.findIndex((f) => f.method === undefined || f.method === request.method);
      if (index >= 0) this.arm(this.failures.splice(index, 1)[0]!, request.method);
      return this.link.request(request);
    });
  }

  /** Arms `failure` on the cluster for the request about to be sent. */
  private arm(failure: Failure, method: string): void {
    const { faults } = this.cluster;
    if ('hang' in failure) faults.hangNext({ method });
    else if (failure.error instanceof ApiError) {
      const { code, message, retryAfterSeconds, warnings } = failure.error;
      faults.failNext({
        status: code,
        method,
        message,
        ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
      });
      for (const text of warnings) faults.warnNext({ text, method });
    } else if (failure.error instanceof TransportError && failure.error.reason === 'ConnectionClosed')
      faults.loseAnswerNext({ method });
    else if (failure.error instanceof TransportError && failure.error.reason === 'NetworkError')
      faults.refuseNext({ method });
    else throw new TypeError(`the events server cannot fail with ${String(failure.error)}`);
  }
}

/** An ApiError as the transport would raise it for a Status body. */
export function apiError(code: number, reason: string, message = reason, retryAfterSeconds?: number): ApiError {
  return new ApiError(code, reason, message, retryAfterSeconds, { kind: 'Status', code, reason, message });
}

/** One line per report: `<time> <type> <reason>[ #count][ detail]`. */
export function reportLine(report: EventReport): string {
  if (report.type === 'rejected') return `${report.time} rejected ${(report.error as Error).message}`;
  const count = report.event.series === undefined ? '' : ` #${report.event.series.count}`;
  const head = `${report.time} ${report.type} ${report.event.reason}${count}`;
  switch (report.type) {
    case 'retrying':
      return `${head} +${report.delayMs}`;
    case 'failed':
      return `${head} after ${report.attempts}`;
    case 'dropped':
      return `${head} ${report.reason}`;
    default:
      return head;
  }
}

/** A recorder over a fresh {@link EventsServer}, with every report collected as a {@link reportLine}. */
export function setup(
  scheduler: SchedulerLike,
  options: Partial<EventRecorderOptions> = {},
): {
  server: EventsServer;
  recorder: EventRecorder;
  lines: string[];
  at(ms: number, work: () => void): void;
} {
  const server = new EventsServer(scheduler);
  const recorder = eventRecorder(server, {
    reportingController: 'example.com/test',
    reportingInstance: 'test-0',
    scheduler,
    random: () => 0,
    ...options,
  });
  const lines: string[] = [];
  recorder.reports$.subscribe({
    next: (report) => lines.push(reportLine(report)),
    complete: () => lines.push(`${scheduler.now()} complete`),
  });
  return { server, recorder, lines, at: (ms, work) => void scheduler.schedule(work, ms) };
}

/** A Pod to record events about. */
export function pod(name = 'web', extra: Record<string, string> = {}): ObjectLike {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: `uid-${name}`, ...extra } };
}
