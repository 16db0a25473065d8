/**
 * The reflector state machine behind {@link listWatch}: list, watch, resume, relist, back off.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Observable, Subscriber, Subscription } from 'rxjs';
import { collectionPath, resolveResource$, UnknownResourceError } from '../resources/index.js';
import type { ResolvedResource } from '../resources/index.js';
import { ApiError, TransportError, asKubeList } from '../transport/index.js';
import type { QueryParams, Transport } from '../transport/index.js';
import { BACKOFF_RESET_MS, exponentialBackoff } from './backoff.js';
import { hasName, objectKey } from '../objects/index.js';
import { decodeWatchLine, statusFailure, toWatchFailure } from './decode.js';
import type { ResolvedOptions } from './options.js';
import { FAIL_FAST_CODES, ListWatchError } from './errors.js';
import { RequestSlot, WatchTimers } from './plumbing.js';
import type { RequestHandlers } from './plumbing.js';
import type { ResourceRef, WatchEvent, WatchFailure, WatchStatus } from './types.js';

/** A clean close sooner than this, with no event at all, is treated as a failure so a bad server cannot spin us. */
const SHORT_WATCH_MS = 1_000;
/** Slack on top of the watch's own timeoutSeconds before a silent connection counts as dead. */
const DEAD_CONNECTION_SLACK_MS = 30_000;

type BadInput = 'MalformedLine' | 'MissingName' | 'TransformFailed';

/** Runs one listWatch subscription; `stop()` is its teardown. Internal to the watch folder. */
export class Reflector<T extends KubernetesObject> {
  private path = '';
  private rv: string | undefined;
  private attempt = 0;
  private expiredStreak = 0;
  private streaming: boolean;
  private stopped = false;
  private readonly request = new RequestSlot();
  private readonly timers: WatchTimers;
  private backoffTimer: Subscription | undefined;
  private watchStartedAt = 0;
  private sawEvent = false;
  /** Objects of a streaming list's initial phase; defined only during that phase. */
  private initial: Map<string, T> | undefined;
  private readonly counts: Record<BadInput, number> = { MalformedLine: 0, MissingName: 0, TransformFailed: 0 };

  constructor(
    private readonly out: Subscriber<WatchEvent<T>>,
    private readonly transport: Transport,
    private readonly resource: ResourceRef | ResolvedResource,
    private readonly opts: ResolvedOptions<T>,
  ) {
    this.streaming = opts.streamingList;
    this.timers = new WatchTimers(opts.scheduler);
  }

  start(): void {
    if (isResolved(this.resource)) {
      this.useResource(this.resource);
      return;
    }
    const ref = this.resource;
    this.send(resolveResource$(this.transport, ref), {
      next: (resolved) => this.useResource(resolved),
      error: (err) => {
        if (err instanceof UnknownResourceError || !(err instanceof ApiError || err instanceof TransportError)) {
          this.fatal({ reason: 'UnknownResource', message: (err as Error).message ?? String(err) });
        } else {
          this.fail(toWatchFailure(err), () => this.start());
        }
      },
    });
  }

  stop(): void {
    this.stopped = true;
    this.request.close();
    this.backoffTimer?.unsubscribe();
    this.timers.stop();
  }

  private useResource(resolved: ResolvedResource): void {
    try {
      this.path = collectionPath(resolved, this.opts.namespace);
    } catch (err) {
      this.fatal({ reason: 'InvalidOptions', message: (err as Error).message });
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
    if (this.stopped) return;
    this.status({ state: 'connecting' });
    this.listPage(1, undefined, paginate, []);
  }

  private listPage(page: number, token: string | undefined, paginate: boolean, pages: T[][]): void {
    this.status({ state: 'listing', page });
    const query: QueryParams = {
      limit: paginate ? this.opts.pageSize : undefined,
      continue: token,
      labelSelector: this.opts.labelSelector,
      fieldSelector: this.opts.fieldSelector,
    };
    this.send(this.transport.get(this.path, query, accept(this.opts.listAccept)), {
      next: (body) => {
        let list;
        try {
          list = asKubeList<T>(body, this.path);
        } catch (err) {
          this.fail(toWatchFailure(err), () => this.relist());
          return;
        }
        pages.push(this.acceptListed(list.items, page));
        const next = list.metadata.continue;
        if (paginate && next) this.listPage(page + 1, next, paginate, pages);
        else this.emitRelist(pages, list.metadata.resourceVersion ?? '', true);
      },
      error: (err) => {
        if (token !== undefined && isExpired(err)) {
          // The snapshot behind the continue token was compacted: one unpaginated list gets a consistent snapshot.
          this.status({ state: 'error', cause: toWatchFailure(err) });
          this.startList(false);
        } else {
          this.fail(toWatchFailure(err), () => this.relist());
        }
      },
    });
  }

  /** Validates and transforms one page; bad items are counted and reported once per page, then skipped. */
  private acceptListed(items: readonly unknown[], page: number): T[] {
    const accepted: T[] = [];
    let missing = 0;
    let failed = 0;
    let lastTransformError = '';
    for (const item of items) {
      if (!hasName(item)) {
        missing += 1;
        continue;
      }
      try {
        accepted.push(this.opts.transform(item as T));
      } catch (err) {
        failed += 1;
        lastTransformError = (err as Error)?.message ?? String(err);
      }
    }
    if (missing > 0) this.reportBadInput('MissingName', `${missing} listed object(s) without metadata.name on page ${page} skipped`, missing);
    if (failed > 0) this.reportBadInput('TransformFailed', `transform threw for ${failed} listed object(s) on page ${page}: ${lastTransformError}`, failed);
    return accepted;
  }

  /**
   * Emits a complete relist in one synchronous burst. Pages are held until the list is complete so that a failure
   * on page n never leaves a half relist in the stream (client-go buffers the same way before `Replace`).
   */
  private emitRelist(pages: Iterable<Iterable<T>>, resourceVersion: string, thenWatch: boolean): void {
    this.out.next({ type: 'relistStarted' });
    for (const page of pages) {
      for (const object of page) this.out.next({ type: 'listed', object });
    }
    this.out.next({ type: 'relistDone', resourceVersion });
    this.rv = resourceVersion;
    if (thenWatch) this.openWatch(false);
  }

  // ---- watch --------------------------------------------------------------------------------------------------

  private resume(): void {
    if (this.rv === undefined) this.relist();
    else this.openWatch(false);
  }

  private openWatch(streaming: boolean): void {
    if (this.stopped) return;
    const timeoutSeconds = Math.min(600, 300 + Math.floor(this.opts.random() * 301));
    this.status({ state: 'connecting' });
    this.status(streaming ? { state: 'listing', page: 1 } : { state: 'watching', resourceVersion: this.rv ?? '' });
    const query: QueryParams = {
      allowWatchBookmarks: true,
      timeoutSeconds,
      resourceVersion: this.rv,
      labelSelector: this.opts.labelSelector,
      fieldSelector: this.opts.fieldSelector,
      ...(streaming ? { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' } : {}),
    };
    this.initial = streaming ? new Map() : undefined;
    this.sawEvent = false;
    this.watchStartedAt = this.opts.scheduler.now();
    this.timers.start(timeoutSeconds * 1000 + DEAD_CONNECTION_SLACK_MS, (idleMs) => this.onDead(idleMs), BACKOFF_RESET_MS, () => {
      this.attempt = 0;
    });
    const watchOptions = { ...accept(this.opts.watchAccept), onActivity: () => this.timers.touch() };
    this.send(this.transport.watch(this.path, query, watchOptions), {
      next: (line) => {
        this.timers.touch();
        this.onLine(line);
      },
      error: (err) => {
        this.timers.stop();
        this.onWatchError(err);
      },
      complete: () => {
        this.timers.stop();
        this.onWatchClosed();
      },
    });
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
    const objectRv = raw.metadata?.resourceVersion;
    let object: T;
    try {
      object = this.opts.transform(raw as T);
    } catch (err) {
      // Skipping (reported) rather than resuming: the same object would come back and fail again forever.
      if (this.initial === undefined && objectRv) this.rv = objectRv;
      this.reportBadInput('TransformFailed', `transform threw for a ${type} event: ${(err as Error)?.message ?? String(err)}`, 1);
      return;
    }
    if (this.initial !== undefined) {
      if (type === 'DELETED') this.initial.delete(objectKey(raw));
      else this.initial.set(objectKey(raw), object);
      return;
    }
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
    } else if (this.initial !== undefined && err instanceof ApiError && err.code >= 400 && err.code < 500 && err.code !== 429) {
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
    this.status({ state: 'error', cause: failure });
    this.rv = undefined;
    this.expiredStreak += 1;
    if (this.expiredStreak === 1) this.relist();
    else this.fail(failure, () => this.relist(), true);
  }

  private streamingUnsupported(message: string): void {
    this.abortWatch();
    this.initial = undefined;
    this.streaming = false;
    this.status({ state: 'error', cause: { reason: 'StreamingListUnsupported', message: `${message}; falling back to list+watch` } });
    this.relist();
  }

  private badWatchInput(reason: BadInput, message: string): void {
    this.abortWatch();
    const count = (this.counts[reason] += 1);
    const from = this.rv === undefined ? 'relisting' : `resuming from resourceVersion ${this.rv}`;
    this.fail({ reason, message: `${message} (${count} so far); ${from}`, count }, () => this.resume());
  }

  private reportBadInput(reason: BadInput, message: string, n: number): void {
    const count = (this.counts[reason] += n);
    this.status({ state: 'error', cause: { reason, message: `${message} (${count} so far)`, count } });
  }

  // ---- failures, timers, plumbing -----------------------------------------------------------------------------

  private fail(cause: WatchFailure, retry: () => void, reported = false): void {
    if (this.stopped) return;
    if (!reported) this.status({ state: 'error', cause });
    if (this.opts.failFast && cause.code !== undefined && FAIL_FAST_CODES.has(cause.code)) {
      this.fatal(cause, true);
      return;
    }
    const delayMs =
      cause.code === 429 && cause.retryAfterSeconds !== undefined
        ? cause.retryAfterSeconds * 1000
        : exponentialBackoff(this.attempt, this.opts.random(), this.opts.backoff);
    this.attempt += 1;
    this.status({ state: 'backingOff', delayMs, attempt: this.attempt, cause });
    this.backoffTimer = this.opts.scheduler.schedule(() => {
      this.backoffTimer = undefined;
      retry();
    }, delayMs);
  }

  private fatal(cause: WatchFailure, reported = false): void {
    if (!reported) this.status({ state: 'error', cause });
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
    this.request.abort();
    this.timers.stop();
  }

  private send<V>(source: Observable<V>, handlers: RequestHandlers<V>): void {
    if (!this.stopped) this.request.run(source, handlers);
  }

  private status(status: WatchStatus): void {
    this.out.next({ type: 'status', status });
  }
}

function isResolved(resource: ResourceRef | ResolvedResource): resource is ResolvedResource {
  return 'plural' in resource && 'namespaced' in resource;
}

function describe(resource: ResourceRef | ResolvedResource): string {
  return isResolved(resource) ? resource.plural : `${resource.kind} (${resource.apiVersion})`;
}

function isExpired(err: unknown): boolean {
  return err instanceof ApiError && err.code === 410;
}


function accept(header: string | undefined): { accept?: string } {
  return header === undefined ? {} : { accept: header };
}
