/**
 * The driver of the reflector behind {@link listWatch}: it turns what the server, the timers and the consumer do into
 * inputs of `reflectorStep`, and carries out the effects the step returns (requests, timers, emissions).
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Observable, Subscription } from 'rxjs';
import { messageOf } from '../error-messages/index.js';
import { hasName, joinApiVersion, splitApiVersion } from '../objects/index.js';
import { collectionPath, resolveResource$ } from '../resources/index.js';
import type { ResolvedResource } from '../resources/index.js';
import { asKubeList, deliverWarnings, getWithWarnings, warningsOfRequest } from '../transport/index.js';
import type { KubeList, QueryParams, Transport } from '../transport/index.js';
import { BACKOFF_RESET_MS, exponentialBackoff } from './backoff.js';
import type { BatchOutput } from './batch-output.js';
import { decodeWatchLine, discoveryFailure, statusFailure, timeoutFailure, toWatchFailure } from './decode.js';
import { ListWatchError } from './errors.js';
import { describeWatch, HealthReporter, isResolved } from './health.js';
import { ObjectPreparer, type TypeMeta } from './object-preparer.js';
import { SERVER_WATCH_TIMEOUT_BOUND_S, watchTimeoutSeconds, type ResolvedOptions } from './options.js';
import type { ProblemReport, ReflectorEffect, ReflectorInput, ReflectorState } from './reflector-state.js';
import { initialState, reflectorStep, type StepConfig } from './reflector-step.js';
import { RequestSlot, type RequestHandlers } from './request-slot.js';
import type { ResourceRef, WatchEvent } from './types.js';
import { WatchTimers } from './watch-timers.js';

/** Slack on top of the watch's own timeoutSeconds before a silent connection counts as dead. */
const DEAD_CONNECTION_SLACK_MS = 30_000;

const ACCEPTED: ReflectorInput<never> = { type: 'accepted' };
const RETRY: ReflectorInput<never> = { type: 'retry' };
const NO_REPORTS: readonly ProblemReport[] = [];

/**
 * Runs one listWatch subscription; `stop()` is its teardown. Internal to the watch folder.
 *
 * Every decision is `reflectorStep`'s; the driver owns what the step must not touch: the transport, the scheduler
 * (timers and the clock), the random source (backoff jitter and watch timeouts, drawn when the effect is carried
 * out) and the user's `transform` (objects are prepared before the step sees them).
 *
 * Every emission may run a consumer that unsubscribes synchronously, so the driver checks `stopped` before each
 * effect: a stopped reflector leaves no timer and no request behind.
 *
 * Output is batched: a relist leaves as one batch, and so do the events of the lines of one watch chunk (when the
 * transport reports chunks); everything else leaves at once. Inside a batch emissions are held, so `stopped`
 * cannot change there; the code after a batch checks it as after any emission.
 */
export class Reflector<T extends KubernetesObject> {
  private state: ReflectorState<T>;
  private stopped = false;
  private path = '';
  private typeMeta: TypeMeta = { apiVersion: '', kind: '' };
  /** Counts watch connections opened or aborted, so that the rest of a chunk, or the late acceptance, of an aborted one is ignored. */
  private connection = 0;
  private watchOpenedAt = 0;
  private backoffTimer: Subscription | undefined;
  /** Bad objects the preparer found, handed to the step with the input they came in. */
  private reports: ProblemReport[] = [];
  /** Whether this subscription already looked for `shardInfo` on a sharded list (see `noticeShardInfo`). */
  private shardNoticed = false;
  /**
   * Whether the watch in flight got a bookmark that is not a streaming list's end: kube-apiserver then sends it one
   * about every minute until it ends, so a silence of `idleTimeout` means a dead connection (see
   * `ListWatchOptions.idleTimeout`).
   */
  private watchHadBookmark = false;
  private readonly config: StepConfig;
  private readonly request: RequestSlot;
  private readonly timers: WatchTimers;
  private readonly objects: ObjectPreparer<T>;
  private readonly health: HealthReporter;

  constructor(
    private readonly out: BatchOutput<T>,
    private readonly transport: Transport,
    private readonly resource: ResourceRef | ResolvedResource,
    private readonly opts: ResolvedOptions<T>,
  ) {
    this.state = initialState(opts.streamingList);
    this.config = { failFast: opts.failFast };
    this.request = new RequestSlot(opts.scheduler);
    this.timers = new WatchTimers(opts.scheduler);
    this.objects = new ObjectPreparer(opts, (report) => this.reports.push(report));
    this.health = new HealthReporter(describeWatch(resource, opts), opts.onHealth);
  }

  start(): void {
    if (isResolved(this.resource)) {
      this.useResource(this.resource, { type: 'start', discover: false });
      return;
    }
    try {
      splitApiVersion(this.resource.apiVersion);
    } catch (err) {
      this.dispatch({ type: 'invalid', message: messageOf(err) });
      return;
    }
    this.dispatch({ type: 'start', discover: true });
  }

  stop(): void {
    this.stopped = true;
    this.request.close();
    this.backoffTimer?.unsubscribe();
    this.backoffTimer = undefined;
    this.timers.dispose();
  }

  /** Steps the machine, then carries out its effects in order, as long as the consumer is still there. */
  private dispatch(input: ReflectorInput<T>): void {
    if (this.stopped) return;
    const { state, effects } = reflectorStep(this.state, input, this.config);
    this.state = state;
    for (const effect of effects) {
      if (this.stopped) return;
      this.carryOut(effect);
    }
  }

  private carryOut(effect: ReflectorEffect<T>): void {
    switch (effect.type) {
      case 'emit':
        this.emit(effect.event);
        return;
      case 'emitRelist':
        this.out.batch(() => {
          this.out.next({ type: 'relistStarted' });
          // One delta for the whole listing: `listWatch` expands it, the informer's store reads the pages directly.
          const pages = effect.pages.filter((page) => page.length > 0);
          if (pages.length > 0) this.out.next({ type: 'listedPages', pages });
          this.out.next({ type: 'relistDone', resourceVersion: effect.resourceVersion });
        });
        return;
      case 'resolve':
        this.resolve(this.resource as ResourceRef);
        return;
      case 'list':
        this.list(effect.page, effect.continueToken, effect.paginate);
        return;
      case 'watch':
        this.watch(effect.resourceVersion, effect.streaming);
        return;
      case 'abortWatch':
        this.connection += 1;
        this.request.abort();
        this.timers.stop();
        return;
      case 'backOff': {
        const { cause, attempt } = effect;
        // The n-th failure in a row waits up to base · factor^(n-1); a 429 waits what it asked, drawing nothing.
        const delayMs =
          cause.code === 429 && cause.retryAfterSeconds !== undefined
            ? cause.retryAfterSeconds * 1000
            : exponentialBackoff(attempt - 1, this.opts.random(), this.opts.backoff);
        this.emit({ type: 'status', status: { state: 'backingOff', delayMs, attempt, cause } });
        if (this.stopped) return;
        this.backoffTimer = this.opts.scheduler.schedule(() => {
          this.backoffTimer = undefined;
          this.dispatch(RETRY);
        }, delayMs);
        return;
      }
      case 'stop':
        this.stop();
        this.out.error(new ListWatchError(effect.cause, this.path || describe(this.resource)));
        return;
    }
  }

  /** Emits an event; a status also goes to the health reporter, after the consumer has it. */
  private emit(event: WatchEvent<T>): void {
    this.out.next(event);
    if (event.type === 'status') this.health.observe(event.status);
  }

  // ---- requests ---------------------------------------------------------------------------------------------------

  private resolve(ref: ResourceRef): void {
    this.send(
      resolveResource$(this.transport, ref, this.opts.onWarning),
      {
        next: (resolved) => this.useResource(resolved, { type: 'resolved' }),
        error: (err) => this.dispatch({ type: 'requestFailed', failure: discoveryFailure(err) }),
        timeout: () =>
          this.dispatch({ type: 'requestFailed', failure: timeoutFailure('discovery', this.opts.listTimeout) }),
      },
      this.opts.listTimeout,
    );
  }

  /** Learns the collection path of `resolved`, then goes on with `next`; a path that cannot be built is fatal. */
  private useResource(resolved: ResolvedResource, next: ReflectorInput<T>): void {
    try {
      this.path = collectionPath(resolved, this.opts.namespace);
      this.typeMeta = { apiVersion: joinApiVersion(resolved.group, resolved.version), kind: resolved.kind };
    } catch (err) {
      this.dispatch({ type: 'invalid', message: messageOf(err) });
      return;
    }
    this.dispatch(next);
  }

  private list(page: number, continueToken: string | undefined, paginate: boolean): void {
    const query: QueryParams = {
      limit: paginate ? this.opts.pageSize : undefined,
      continue: continueToken,
      labelSelector: this.opts.labelSelector,
      fieldSelector: this.opts.fieldSelector,
      shardSelector: this.opts.shard?.selector,
    };
    this.send(
      getWithWarnings(this.transport, this.path, query, this.opts.onWarning, this.opts.listAccept),
      {
        next: (body) => {
          let list: KubeList<T>;
          try {
            list = asKubeList<T>(body, this.path);
          } catch (err) {
            this.dispatch({ type: 'requestFailed', failure: toWatchFailure(err) });
            return;
          }
          this.noticeShardInfo(list);
          const objects = this.objects.preparePage(list.items, page, this.typeMeta);
          const { continue: next, resourceVersion = '' } = list.metadata;
          this.dispatch({
            type: 'listed',
            objects,
            continueToken: next,
            resourceVersion,
            problems: this.takeReports(),
          });
        },
        error: (err) => this.dispatch({ type: 'requestFailed', failure: toWatchFailure(err) }),
        timeout: () =>
          this.dispatch({ type: 'requestFailed', failure: timeoutFailure(`list page ${page}`, this.opts.listTimeout) }),
      },
      this.opts.listTimeout,
    );
  }

  private watch(resourceVersion: string | undefined, streaming: boolean): void {
    const timeoutSeconds = watchTimeoutSeconds(this.opts.minWatchTimeout, this.opts.random());
    const query: QueryParams = {
      allowWatchBookmarks: true,
      timeoutSeconds,
      resourceVersion,
      labelSelector: this.opts.labelSelector,
      fieldSelector: this.opts.fieldSelector,
      shardSelector: this.opts.shard?.selector,
      ...(streaming ? { sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan' } : {}),
    };
    const connection = (this.connection += 1);
    this.watchOpenedAt = this.opts.scheduler.now();
    this.watchHadBookmark = false;
    const timeoutBound = (timeoutSeconds ?? SERVER_WATCH_TIMEOUT_BOUND_S) * 1000 + DEAD_CONNECTION_SLACK_MS;
    this.timers.start(
      timeoutBound,
      (idleMs) => {
        const { idleTimeout } = this.opts;
        const held = this.watchHadBookmark && idleTimeout !== undefined && idleTimeout < timeoutBound;
        this.dispatch({ type: 'dead', idleMs, bound: held ? 'idleTimeout' : 'timeoutSeconds' });
      },
      BACKOFF_RESET_MS,
      () => this.dispatch({ type: 'healthy' }),
    );
    const warnings = warningsOfRequest(this.opts.onWarning, 'GET', this.path);
    const watchOptions = {
      ...accept(this.opts.watchAccept),
      onActivity: () => this.timers.touch(),
      // A transport may say a watch was accepted after it was aborted (a line of it had the reflector abort it while
      // it was being subscribed): that says nothing of the watch now in flight.
      onOpen: () => {
        if (this.connection === connection) this.dispatch(ACCEPTED);
      },
      onWarnings: warnings.accepted,
    };
    const onLines = (lines: readonly string[]): void => {
      this.timers.touch();
      // A transport that cannot report acceptance still proves it with the first line.
      this.dispatch(ACCEPTED);
      if (this.stopped) return;
      this.out.batch(() => {
        for (let i = 0; i < lines.length && this.connection === connection && !this.stopped; i++)
          this.onLine(lines[i]!);
      });
    };
    const lines$ = this.transport.watchChunks?.(this.path, query, watchOptions);
    this.send<readonly string[] | string>(lines$ ?? this.transport.watch(this.path, query, watchOptions), {
      next: (lines) => onLines(typeof lines === 'string' ? [lines] : lines),
      error: (err) => {
        this.timers.stop();
        warnings.refused(err);
        this.dispatch({ type: 'requestFailed', failure: toWatchFailure(err) });
      },
      complete: () => {
        this.timers.stop();
        this.dispatch({ type: 'closed', openMs: this.opts.scheduler.now() - this.watchOpenedAt });
      },
    });
  }

  /** Decodes one watch line into an input; an object is prepared first (its transform may fail, and is reported). */
  private onLine(line: string): void {
    const decoded = decodeWatchLine(line);
    switch (decoded.kind) {
      case 'blank':
        return;
      case 'malformed':
        this.dispatch({ type: 'badLine', reason: 'MalformedLine', message: decoded.message });
        return;
      case 'error':
        this.dispatch({ type: 'errorEvent', failure: statusFailure(decoded.status) });
        return;
      case 'bookmark':
        if (!decoded.initialEventsEnd && !this.watchHadBookmark) {
          this.watchHadBookmark = true;
          if (this.opts.idleTimeout !== undefined) this.timers.limitDeadAfter(this.opts.idleTimeout);
        }
        this.dispatch({
          type: 'bookmark',
          resourceVersion: decoded.resourceVersion,
          initialEventsEnd: decoded.initialEventsEnd,
        });
        return;
      case 'object': {
        const raw = decoded.object;
        if (!hasName(raw)) {
          this.dispatch({
            type: 'badLine',
            reason: 'MissingName',
            message: `${decoded.type} event object has no metadata.name`,
          });
          return;
        }
        // Outside the shard: a server without shardSelector sent it; it is not ours, in any event type.
        if (!this.objects.inShard(raw)) return;
        // decodeWatchLine built `raw` with JSON.parse.
        const object = this.objects.prepare(raw as T, decoded.type, true);
        this.dispatch({ type: 'object', event: decoded.type, raw, object, problems: this.takeReports() });
        return;
      }
    }
  }

  /** Says once per subscription that the server ignored `shardSelector` (no `shardInfo` on a sharded list). */
  private noticeShardInfo(list: KubeList<T>): void {
    const shard = this.opts.shard;
    if (shard === undefined || this.shardNoticed) return;
    this.shardNoticed = true;
    if ((list.metadata as { shardInfo?: unknown }).shardInfo !== undefined) return;
    const text =
      'rxkube: shardSelector not served (the list has no metadata.shardInfo: kube-apiserver 1.36+ needs ' +
      '--feature-gates=ShardedListAndWatch=true; custom resources never echo it): the shard is filtered ' +
      'client-side, so every object is still transferred and decoded';
    deliverWarnings(this.opts.onWarning, 'GET', this.path, [text]);
  }

  private takeReports(): readonly ProblemReport[] {
    if (this.reports.length === 0) return NO_REPORTS;
    const reports = this.reports;
    this.reports = [];
    return reports;
  }

  private send<V>(source: Observable<V>, handlers: RequestHandlers<V>, timeoutMs?: number): void {
    if (!this.stopped) this.request.run(source, handlers, timeoutMs);
  }
}

function describe(resource: ResourceRef | ResolvedResource): string {
  return isResolved(resource) ? resource.plural : `${resource.kind} (${resource.apiVersion})`;
}

function accept(header: string | undefined): { accept?: string } {
  return header === undefined ? {} : { accept: header };
}
