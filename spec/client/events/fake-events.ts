/**
 * A tiny events.k8s.io server as a {@link Transport} in virtual time, for the recorder's marble specs: it stores
 * Events, answers POST/PATCH/GET after `latencyMs`, fails requests on demand and records every call.
 */
import { defer, NEVER, Observable, switchMap, throwError, timer } from 'rxjs';
import type { SchedulerLike } from 'rxjs';
import { ApiError } from '../../../src/transport/index.js';
import type { Transport, TransportRequest, TransportResponse } from '../../../src/transport/index.js';
import { eventRecorder } from '../../../src/client/events/index.js';
import type {
  EventObjectLike, EventRecorder, EventRecorderOptions, EventReport, RecordedEvent,
} from '../../../src/client/events/index.js';

/** One request the recorder made. */
export interface FakeCall {
  readonly at: number;
  readonly method: string;
  readonly path: string;
  readonly body: any;
}

/** What the next matching request gets instead of an answer. */
type Failure = { readonly method?: string; readonly error: unknown } | { readonly method?: string; readonly hang: true };

export class FakeEventsServer implements Transport {
  readonly calls: FakeCall[] = [];
  readonly objects = new Map<string, RecordedEvent>();
  latencyMs = 1;
  /** The `Warning: 299` texts every successful answer carries. */
  warnings: readonly string[] = [];
  private readonly failures: Failure[] = [];
  private version = 0;

  constructor(private readonly scheduler: SchedulerLike) {}

  /** The next request (of `method`, if given) fails with `error`. */
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
    return throwError(() => new Error('the recorder never lists'));
  }

  watch(): Observable<string> {
    return throwError(() => new Error('the recorder never watches'));
  }

  request(request: TransportRequest): Observable<TransportResponse> {
    return defer(() => {
      this.calls.push({ at: this.scheduler.now(), method: request.method, path: request.path, body: request.body });
      const index = this.failures.findIndex((f) => f.method === undefined || f.method === request.method);
      const failure = index < 0 ? undefined : this.failures.splice(index, 1)[0];
      if (failure !== undefined && 'hang' in failure) return NEVER;
      return timer(this.latencyMs, this.scheduler).pipe(
        switchMap(() => (failure !== undefined ? throwError(() => failure.error) : this.serve(request))),
      );
    });
  }

  private serve(request: TransportRequest): Observable<TransportResponse> {
    return new Observable<TransportResponse>((subscriber) => {
      try {
        subscriber.next(this.answer(request));
        subscriber.complete();
      } catch (error) {
        subscriber.error(error);
      }
    });
  }

  private answer(request: TransportRequest): TransportResponse {
    const body = request.body as any;
    if (request.method === 'POST') {
      const path = `${request.path}/${body.metadata.name}`;
      if (this.objects.has(path)) throw apiError(409, 'AlreadyExists', `events.events.k8s.io "${body.metadata.name}" already exists`);
      return this.store(path, body, 201);
    }
    const existing = this.objects.get(request.path);
    if (existing === undefined) throw apiError(404, 'NotFound', `events.events.k8s.io "${request.path.split('/').pop()}" not found`);
    if (request.method === 'GET') return { status: 200, body: existing, headers: {}, warnings: this.warnings };
    if (request.method === 'PATCH') return this.store(request.path, { ...existing, ...body }, 200);
    throw apiError(405, 'MethodNotAllowed', `${request.method} is not served here`);
  }

  private store(path: string, object: RecordedEvent, status: number): TransportResponse {
    const stored = { ...object, metadata: { ...object.metadata, resourceVersion: String(++this.version) } };
    this.objects.set(path, stored);
    return { status, body: stored, headers: {}, warnings: this.warnings };
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

/** A recorder over a fresh {@link FakeEventsServer}, with every report collected as a {@link reportLine}. */
export function setup(scheduler: SchedulerLike, options: Partial<EventRecorderOptions> = {}): {
  server: FakeEventsServer; recorder: EventRecorder; lines: string[]; at(ms: number, work: () => void): void;
} {
  const server = new FakeEventsServer(scheduler);
  const recorder = eventRecorder(server, {
    reportingController: 'example.com/test', reportingInstance: 'test-0', scheduler, random: () => 0, ...options,
  });
  const lines: string[] = [];
  recorder.reports$.subscribe({
    next: (report) => lines.push(reportLine(report)),
    complete: () => lines.push(`${scheduler.now()} complete`),
  });
  return { server, recorder, lines, at: (ms, work) => void scheduler.schedule(work, ms) };
}

/** A Pod to record events about. */
export function pod(name = 'web', extra: Record<string, string> = {}): EventObjectLike {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid: `uid-${name}`, ...extra } };
}
