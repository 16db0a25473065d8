/**
 * The reflector state machine behind {@link listWatch}: list, watch, resume, relist, back off.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Observable, Subscription } from 'rxjs';
import { messageOf } from '../describe/index.js';
import { hasName, joinApiVersion, objectKey, splitApiVersion } from '../objects/index.js';
import { collectionPath, resolveResource$ } from '../resources/index.js';
import type { ResolvedResource } from '../resources/index.js';
import { ApiError, asKubeList, getWithWarnings, warningsOfRequest } from '../transport/index.js';
import type { QueryParams, Transport } from '../transport/index.js';
import { BACKOFF_RESET_MS, exponentialBackoff } from './backoff.js';
import { decodeWatchLine, discoveryFailure, isExpired, statusFailure, timeoutFailure, toWatchFailure } from './decode.js';
import { isTerminal, ListWatchError, TERMINAL_CODES } from './errors.js';
import { describeWatch, HealthReporter, isResolved } from './health.js';
import { ObjectPreparer, type TypeMeta } from './object-preparer.js';
import type { ResolvedOptions } from './options.js';
import type { BatchOutput } from './batch-output.js';
import { RequestSlot, type RequestHandlers } from './request-slot.js';
import { WatchTimers } from './watch-timers.js';
import type { ResourceRef, WatchFailure, WatchProblem, WatchProblemReason, WatchStatus } from './types.js';

/** A clean close sooner than this, with no event at all, is treated as a failure so a bad server cannot spin us. */
const SHORT_WATCH_MS = 1_000;
/** Slack on top of the watch's own timeoutSeconds before a silent connection counts as dead. */
const DEAD_CONNECTION_SLACK_MS = 30_000;

/**
 * Runs one listWatch subscription; `stop()` is its teardown. Internal to the watch folder.
 *
 * Every emission may run a consumer that unsubscribes synchronously, so nothing is scheduled or sent after an
 * emission without checking `stopped` first: a stopped reflector leaves no timer and no request behind.
 *
 * Output is batched: a relist leaves as one batch, and so do the events of the lines of one watch chunk (when the
 * transport reports chunks); everything else leaves at once. Inside a batch emissions are held, so `stopped`
 * cannot change there; the code after a batch checks it as after any emission.
 */
export class Reflector<T extends KubernetesObject> {
  private path = '';
  private typeMeta: TypeMeta = { apiVersion: '', kind: '' };
  private rv: string | undefined;
  private attempt = 0;
  private expiredStreak = 0;
  private streaming: boolean;
  private stopped = false;
  private readonly request: RequestSlot;
  private readonly timers: WatchTimers;
  private readonly objects: ObjectPreparer<T>;
  private readonly health: HealthReporter;
  private backoffTimer: Subscription | undefined;
  private watchStartedAt = 0;
  private sawEvent = false;
  /** Whether the open watch was accepted by the server (and announced). */
  private accepted = false;
  /** Objects of a streaming list's initial phase; defined only during that phase. */
  private initial: Map<string, T> | undefined;
  /** Counts watch connections opened or aborted, so that the rest of a chunk from an aborted one is ignored. */
  private connection = 0;

  constructor(
    private readonly out: BatchOutput<T>,
    private readonly transport: Transport,
    private readonly resource: ResourceRef | ResolvedResource,
    private readonly opts: ResolvedOptions<T>,
  ) {
    this.streaming = opts.streamingList;
    this.request = new RequestSlot(opts.scheduler);
    this.timers = new WatchTimers(opts.scheduler);
    this.objects = new ObjectPreparer(opts, (problem) => this.problem(problem));
    this.health = new HealthReporter(describeWatch(resource, opts), opts.onHealth);
  }

  start(): void {
    if (isResolved(this.resource)) {
      this.useResource(this.resource);
      return;
    }
    const ref = this.resource;
    try {
      splitApiVersion(ref.apiVersion);
    } catch (err) {
      this.fatal({ reason: 'InvalidOptions', message: messageOf(err) });
      return;
    }
    // An unknown kind (a CRD not installed yet) is retried like any failure, asking discovery again each time.
    this.send(resolveResource$(this.transport, ref, this.opts.onWarning), {
      next: (resolved) => this.useResource(resolved),
      error: (err) => this.fail(discoveryFailure(err), () => this.start()),
      timeout: () => this.fail(timeoutFailure('discovery', this.opts.listTimeout), () => this.start()),
    }, this.opts.listTimeout);
  }

  stop(): void {
    this.stopped = true;
    this.request.close();
    this.backoffTimer?.unsubscribe();
    this.backoffTimer = undefined;
    this.timers.dispose();
  }

  private useResource(resolved: ResolvedResource): void {
    try {
      this.path = collectionPath(resolved, this.opts.namespace);
      this.typeMeta = { apiVersion: joinApiVersion(resolved.group, resolved.version), kind: resolved.kind };
    } catch (err) {
      this.fatal({ reason: 'InvalidOptions', message: messageOf(err) });
      return;
    }
    this.relist();
  }

  // ---- list ---------------------------------------------------------------------------------------------------

  private relist(): void {
    // Whatever we had is superseded: a failure from here on must list again, never resume an expired version.
    this.rv = undefined;
    if (this.streaming) this.openWatch(true);
    else this.startList(true);
  }

  private startList(paginate: boolean): void {
    if (this.status({ state: 'connecting' })) this.listPage(1, undefined, paginate, []);
  }

  private listPage(page: number, token: string | undefined, paginate: boolean, pages: T[][]): void {
    if (!this.status({ state: 'listing', page })) return;
    const query: QueryParams = {
      limit: paginate ? this.opts.pageSize : undefined,
      continue: token,
      labelSelector: this.opts.labelSelector,
      fieldSelector: this.opts.fieldSelector,
    };
    this.send(getWithWarnings(this.transport, this.path, query, this.opts.onWarning, this.opts.listAccept), {
      next: (body) => {
        let list;
        try {
          list = asKubeList<T>(body, this.path);
        } catch (err) {
          this.fail(toWatchFailure(err), () => this.relist());
          return;
        }
        pages.push(this.objects.preparePage(list.items, page, this.typeMeta));
        if (this.stopped) return;
        const next = list.metadata.continue;
        if (paginate && next) this.listPage(page + 1, next, paginate, pages);
        else this.emitRelist(pages, list.metadata.resourceVersion ?? '', true);
      },
      error: (err) => {
        if (token !== undefined && isExpired(err)) {
          // The snapshot behind the continue token was compacted: one unpaginated list gets a consistent snapshot.
          if (this.status({ state: 'error', cause: toWatchFailure(err) })) this.startList(false);
        } else {
          this.fail(toWatchFailure(err), () => this.relist());
        }
      },
      timeout: () => this.fail(timeoutFailure(`list page ${page}`, this.opts.listTimeout), () => this.relist()),
    }, this.opts.listTimeout);
  }

  /**
   * Emits a complete relist in one synchronous burst. Pages are held until the list is complete so that a failure
   * on page n never leaves a half relist in the stream (client-go buffers the same way before `Replace`).
   */
  private emitRelist(pages: Iterable<Iterable<T>>, resourceVersion: string, thenWatch: boolean): void {
    this.out.batch(() => {
      this.out.next({ type: 'relistStarted' });
      for (const page of pages) {
        for (const object of page) this.out.next({ type: 'listed', object });
      }
      this.out.next({ type: 'relistDone', resourceVersion });
    });
    this.rv = resourceVersion;
    if (thenWatch) this.openWatch(false);
  }

  // ---- watch --------------------------------------------------------------------------------------------------

  private resume(): void {
    if (this.rv === undefined) this.relist();
    else this.openWatch(false);
  }

  private openWatch(streaming: boolean): void {
    if (!this.status({ state: 'connecting' })) return;
    const timeoutSeconds = Math.min(600, 300 + Math.floor(this.opts.random() * 301));
    const query: QueryParams = {
      allowWatchBookmarks: true,
      timeoutSeconds,
      resourceVersion: this.rv,
      labelSelector: this.opts.labelSelector,
      fieldSelector: this.opts.fieldSelector,
      ...(streaming ? { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' } : {}),
    };
    this.initial = streaming ? new Map() : undefined;
    const connection = (this.connection += 1);
    this.sawEvent = false;
    this.accepted = false;
    this.watchStartedAt = this.opts.scheduler.now();
    this.timers.start(timeoutSeconds * 1000 + DEAD_CONNECTION_SLACK_MS, (idleMs) => this.onDead(idleMs), BACKOFF_RESET_MS, () => {
      this.attempt = 0;
    });
    const warnings = warningsOfRequest(this.opts.onWarning, 'GET', this.path);
    const watchOptions = {
      ...accept(this.opts.watchAccept),
      onActivity: () => this.timers.touch(),
      onOpen: () => this.announceAccepted(),
      onWarnings: warnings.accepted,
    };
    const onLines = (lines: readonly string[]): void => {
      this.timers.touch();
      // A transport that cannot report acceptance still proves it with the first line.
      if (!this.announceAccepted()) return;
      this.out.batch(() => {
        for (let i = 0; i < lines.length && this.connection === connection && !this.stopped; i++) this.onLine(lines[i]!);
      });
    };
    const lines$ = this.transport.watchChunks?.(this.path, query, watchOptions);
    this.send<readonly string[] | string>(lines$ ?? this.transport.watch(this.path, query, watchOptions), {
      next: (lines) => onLines(typeof lines === 'string' ? [lines] : lines),
      error: (err) => {
        this.timers.stop();
        warnings.refused(err);
        this.onWatchError(err);
      },
      complete: () => {
        this.timers.stop();
        this.onWatchClosed();
      },
    });
  }

  /** Announces `watching` (or, for a streaming list, `listing`) once per connection; false once stopped. */
  private announceAccepted(): boolean {
    if (this.accepted) return !this.stopped;
    this.accepted = true;
    return this.status(this.initial !== undefined ? { state: 'listing', page: 1 } : { state: 'watching', resourceVersion: this.rv ?? '' });
  }

  private onLine(line: string): void {
    const decoded = decodeWatchLine(line);
    switch (decoded.kind) {
      case 'blank':
        return;
      case 'malformed':
        this.badWatchInput('MalformedLine', decoded.message);
        return;
      case 'error': {
        const failure = statusFailure(decoded.status);
        this.abortWatch();
        if (failure.code === 410) this.onExpired(failure);
        else this.fail(failure, () => this.resume());
        return;
      }
      case 'bookmark':
        this.sawEvent = true;
        this.expiredStreak = 0;
        if (this.initial !== undefined) {
          if (decoded.initialEventsEnd) this.endInitialPhase(decoded.resourceVersion);
          else this.streamingUnsupported('a bookmark arrived without the k8s.io/initial-events-end annotation');
          return;
        }
        this.rv = decoded.resourceVersion;
        this.out.next({ type: 'bookmark', resourceVersion: decoded.resourceVersion });
        return;
      case 'object':
        this.onObject(decoded.type, decoded.object);
        return;
    }
  }

  private onObject(type: 'ADDED' | 'MODIFIED' | 'DELETED', raw: KubernetesObject): void {
    if (!hasName(raw)) {
      this.badWatchInput('MissingName', `${type} event object has no metadata.name`);
      return;
    }
    this.sawEvent = true;
    this.expiredStreak = 0;
    // decodeWatchLine built `raw` with JSON.parse.
    const object = this.objects.prepare(raw as T, type, true);
    if (this.stopped) return;
    if (this.initial !== undefined) {
      if (type === 'DELETED') this.initial.delete(objectKey(raw));
      else this.initial.set(objectKey(raw), object);
      return;
    }
    const objectRv = raw.metadata?.resourceVersion;
    if (objectRv) this.rv = objectRv;
    const kind = type === 'ADDED' ? 'added' : type === 'MODIFIED' ? 'modified' : 'deleted';
    this.out.next({ type: kind, object });
  }

  private endInitialPhase(resourceVersion: string): void {
    const objects = this.initial!.values();
    this.initial = undefined;
    this.emitRelist([objects], resourceVersion, false);
    this.status({ state: 'watching', resourceVersion });
  }

  private onWatchError(err: unknown): void {
    if (isExpired(err)) {
      this.onExpired(toWatchFailure(err));
    } else if (this.initial !== undefined && err instanceof ApiError && TERMINAL_CODES.has(err.code)) {
      // How a server without streaming lists refuses the request (kube-apiserver: 422 on sendInitialEvents). A 401,
      // 403 or 404 says nothing about streaming: it is retried like any failure, streaming again.
      this.streamingUnsupported(`the server rejected the streaming list: ${err.code} ${err.reason}: ${err.message}`);
    } else {
      this.fail(toWatchFailure(err), () => this.resume());
    }
  }

  private onWatchClosed(): void {
    if (this.initial !== undefined) {
      this.streamingUnsupported('the watch closed before the k8s.io/initial-events-end bookmark');
    } else if (!this.sawEvent && this.opts.scheduler.now() - this.watchStartedAt < SHORT_WATCH_MS) {
      this.fail({ reason: 'WatchClosedEarly', message: 'the server closed the watch at once without any event' }, () => this.resume());
    } else {
      this.resume();
    }
  }

  /** The first 410 in a row relists at once (routine after a long disconnect); repeats back off. */
  private onExpired(failure: WatchFailure): void {
    if (!this.status({ state: 'error', cause: failure })) return;
    this.rv = undefined;
    this.expiredStreak += 1;
    if (this.expiredStreak === 1) this.relist();
    else this.fail(failure, () => this.relist(), true);
  }

  private streamingUnsupported(message: string): void {
    this.abortWatch();
    this.initial = undefined;
    this.streaming = false;
    const cause = { reason: 'StreamingListUnsupported', message: `${message}; falling back to list+watch` };
    if (this.status({ state: 'error', cause })) this.relist();
  }

  /**
   * A watch line we cannot apply: reported as a problem, then the watch is resumed from the last good
   * resourceVersion after backoff (a poison event replayed on every resume must not make us spin). The connection
   * is healthy, so no `error` status is reported; `backingOff` says why the watch reconnects.
   */
  private badWatchInput(reason: WatchProblemReason, message: string): void {
    this.abortWatch();
    const from = this.rv === undefined ? 'relisting' : `resuming from resourceVersion ${this.rv}`;
    const problem = this.objects.problem(reason, `${message}; ${from}`);
    this.problem(problem);
    this.fail({ reason, message: problem.message }, () => this.resume(), true);
  }

  // ---- failures, timers, requests ------------------------------------------------------------------------------

  private fail(cause: WatchFailure, retry: () => void, reported = false): void {
    if (this.stopped) return;
    if (isTerminal(cause, this.opts.failFast)) {
      this.fatal(cause);
      return;
    }
    if (!reported && !this.status({ state: 'error', cause })) return;
    const delayMs =
      cause.code === 429 && cause.retryAfterSeconds !== undefined
        ? cause.retryAfterSeconds * 1000
        : exponentialBackoff(this.attempt, this.opts.random(), this.opts.backoff);
    this.attempt += 1;
    if (!this.status({ state: 'backingOff', delayMs, attempt: this.attempt, cause })) return;
    this.backoffTimer = this.opts.scheduler.schedule(() => {
      this.backoffTimer = undefined;
      retry();
    }, delayMs);
  }

  /** Stops for good: the `failed` status, then the error. */
  private fatal(cause: WatchFailure): void {
    if (!this.status({ state: 'failed', cause })) return;
    this.stop();
    this.out.error(new ListWatchError(cause, this.path || describe(this.resource)));
  }

  private onDead(idleMs: number): void {
    this.abortWatch();
    this.fail(
      { reason: 'DeadConnection', message: `no bytes for ${Math.round(idleMs / 1000)} s (timeoutSeconds + 30 s); reconnecting` },
      () => this.resume(),
    );
  }

  private abortWatch(): void {
    this.connection += 1;
    this.request.abort();
    this.timers.stop();
  }

  private send<V>(source: Observable<V>, handlers: RequestHandlers<V>, timeoutMs?: number): void {
    if (!this.stopped) this.request.run(source, handlers, timeoutMs);
  }

  /**
   * Emits a status, then tells the health reporter (so a consumer has the status before the report of it); returns
   * false when the consumer unsubscribed meanwhile, so the caller goes no further.
   */
  private status(status: WatchStatus): boolean {
    if (this.stopped) return false;
    this.out.next({ type: 'status', status });
    this.health.observe(status);
    return !this.stopped;
  }

  private problem(problem: WatchProblem): void {
    if (!this.stopped) this.out.next({ type: 'problem', problem });
  }
}

function describe(resource: ResourceRef | ResolvedResource): string {
  return isResolved(resource) ? resource.plural : `${resource.kind} (${resource.apiVersion})`;
}

function accept(header: string | undefined): { accept?: string } {
  return header === undefined ? {} : { accept: header };
}
