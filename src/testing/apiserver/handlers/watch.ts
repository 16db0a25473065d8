/**
 * WATCH: newline-delimited JSON events over a chunked response, resumable from the bounded history, with
 * bookmarks, streaming initial events, selector transitions and the faults tests inject into open streams.
 * @module
 */
import {
  type ChunkSink,
  expired,
  type KubeObject,
  type ResponseSink,
  type ServerRuntime,
  tooLargeResourceVersion,
} from '../machinery/index.js';
import { compileFilter, type ObjectFilter } from './filter.js';
import { represent, type Representation, toJson, toTable } from '../representation/index.js';
import { boolParam, intParam, rvParam, validateListOptions } from './query.js';
import { groupVersion, type ResourceInfo, storageKey } from '../registry/index.js';
import type { ObjectStore, StoredEvent } from '../storage/index.js';

/** What a watch request targets. */
export interface WatchTarget {
  readonly resource: ResourceInfo;
  readonly version: string;
  readonly namespace: string;
}

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** A write queue larger than this means the client stopped reading: the real server drops such watchers too. */
const slowConsumerBytes = 64 * 1024 * 1024;

/** Initial-state lines are written in chunks of this many objects: one socket write each, not one per object. */
const initialChunkObjects = 256;

/** `{"type":T,"object":...}` plus the newline: the shell around an already serialized object. */
function eventLine(type: EventType, objectJson: string): string {
  return `{"type":"${type}","object":${objectJson}}\n`;
}

/**
 * One open watch response.
 *
 * # Guarantees
 * - Events reach the client in resourceVersion order (the adapter decides how writes leave: the node:http one
 *   corks the lines of one event-loop turn into one socket write).
 * - The initial state (synthetic ADDED) is paced by the consumer: the next chunk is written only after the
 *   previous one drained, so a watch of 100k objects never holds them all as pending output. Live events that
 *   commit meanwhile are held and follow the initial state, in order.
 * - Closing (any cause) removes the listener and clears every timer.
 */
class WatchStream {
  private readonly timers: (() => void)[] = [];
  private unlisten: () => void = () => undefined;
  /** Lines held back while `holds > 0` (a stall in progress, or the initial state still streaming). */
  private held: string[] = [];
  private holds = 0;
  private closed = false;
  readonly apiVersion: string;
  private readonly resourceKey: string;
  private tableHeaderSent = false;

  constructor(
    readonly res: ChunkSink,
    private readonly hub: WatchHub,
    private readonly target: WatchTarget,
    private readonly filter: ObjectFilter,
    private readonly representation: Representation,
  ) {
    this.apiVersion = groupVersion(target.resource.group, target.version);
    this.resourceKey = storageKey(target.resource);
    res.onGone(() => this.close('gone'));
  }

  /** Arms bookmarks, the timeout and any stall in progress; `unlisten` detaches from the store on close. */
  start(unlisten: () => void, bookmarkMs: number | undefined, timeoutSeconds: number | undefined): void {
    this.unlisten = unlisten;
    const { runtime } = this.hub;
    if (bookmarkMs !== undefined) this.timers.push(runtime.every(bookmarkMs, () => this.bookmark(false)));
    if (timeoutSeconds !== undefined && timeoutSeconds > 0)
      this.timers.push(runtime.after(timeoutSeconds * 1000, () => this.close('clean')));
    const now = runtime.now();
    if (this.hub.stalledUntil > now) this.stall(this.hub.stalledUntil - now);
  }

  private inScope(obj: KubeObject | undefined): boolean {
    if (obj === undefined) return false;
    if (this.target.namespace !== '' && obj.metadata.namespace !== this.target.namespace) return false;
    return this.filter.matches(obj);
  }

  /** Delivers a committed event, translated the way the watch cache does for selectors. */
  deliver(event: StoredEvent): void {
    if (event.resource !== this.resourceKey) return;
    const cur = event.type !== 'DELETED' && this.inScope(event.object);
    const old = event.prev !== undefined && this.inScope(event.prev);
    if (cur && !old) this.write(this.line(event, 'ADDED', 'object'));
    else if (cur && old) this.write(this.line(event, 'MODIFIED', 'object'));
    else if (!cur && old) this.write(this.line(event, 'DELETED', event.type === 'DELETED' ? 'object' : 'prev'));
  }

  /**
   * Streams synthetic ADDED events for `objects` (the state at `rv`, taken by the caller in the same synchronous
   * block as its store subscription), then, when `endBookmark`, the `k8s.io/initial-events-end` BOOKMARK at `rv`.
   */
  sendInitial(objects: readonly KubeObject[], rv: number, endBookmark: boolean): void {
    this.holds++;
    let next = 0;
    const pump = (): void => {
      while (!this.closed) {
        if (next >= objects.length) {
          if (endBookmark) this.emit(this.bookmarkLine(true, rv));
          this.release();
          return;
        }
        const end = Math.min(objects.length, next + initialChunkObjects);
        let chunk = '';
        for (; next < end; next++) {
          const obj = objects[next]!;
          // The object's JSON is cached with it (representation/serialize.ts): only the short event shell is built per watcher.
          if (this.inScope(obj)) chunk += this.encode('ADDED', obj);
        }
        if (chunk !== '' && !this.emit(chunk)) {
          this.res.onDrain(pump);
          return;
        }
      }
    };
    pump();
  }

  private line(event: StoredEvent, type: EventType, which: 'object' | 'prev'): string {
    if (this.representation === 'table') {
      return this.encode(
        type,
        which === 'prev'
          ? {
              ...event.prev!,
              metadata: { ...event.prev!.metadata, resourceVersion: event.object.metadata.resourceVersion },
            }
          : event.object,
      );
    }
    const cacheKey = `${type}|${which}|${this.representation}|${this.apiVersion}`;
    let line = event.lines.get(cacheKey);
    if (line === undefined) {
      // Like the watch cache: a "stopped matching" DELETED carries the previous content at the event's RV.
      const obj =
        which === 'prev'
          ? {
              ...event.prev!,
              metadata: { ...event.prev!.metadata, resourceVersion: event.object.metadata.resourceVersion },
            }
          : event.object;
      line = this.encode(type, obj);
      event.lines.set(cacheKey, line);
    }
    return line;
  }

  /** One watch line for `obj` in this stream's representation. */
  encode(type: EventType, obj: KubeObject): string {
    if (this.representation === 'table' && type !== 'ERROR' && type !== 'BOOKMARK') {
      const table = toTable(
        this.hub.runtime.now(),
        [obj],
        { resourceVersion: obj.metadata.resourceVersion },
        !this.tableHeaderSent,
        this.target.resource.kind,
        this.target.resource.custom,
      );
      this.tableHeaderSent = true;
      return eventLine(type, toJson(table));
    }
    const shown = type === 'ERROR' ? obj : represent(obj, this.apiVersion, this.representation);
    return eventLine(type, toJson(shown));
  }

  private bookmarkLine(initialEnd: boolean, rv: number): string {
    const metadata: Record<string, unknown> = { resourceVersion: String(rv) };
    if (initialEnd) metadata['annotations'] = { 'k8s.io/initial-events-end': 'true' };
    const object =
      this.representation === 'metadata'
        ? { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata }
        : { kind: this.target.resource.kind, apiVersion: this.apiVersion, metadata };
    return eventLine('BOOKMARK', JSON.stringify(object));
  }

  /** A BOOKMARK at the store's current resourceVersion (periodic; queued behind anything held). */
  bookmark(initialEnd: boolean): void {
    this.write(this.bookmarkLine(initialEnd, this.hub.store.resourceVersion));
  }

  /** Writes a raw line (also used to inject malformed lines), or holds it while a stall or the initial state runs. */
  write(line: string): void {
    if (this.closed) return;
    if (this.holds > 0) {
      this.held.push(line);
      return;
    }
    this.emit(line);
  }

  /** Writes to the consumer now; false when it asks to wait for a drain (or the stream is gone). */
  private emit(text: string): boolean {
    if (this.closed) return false;
    if (!this.res.open) {
      this.close('gone');
      return false;
    }
    const ok = this.res.write(text);
    if (this.res.pendingBytes > slowConsumerBytes) {
      this.close('clean');
      return false;
    }
    return ok;
  }

  /** Ends one hold; the last one out flushes what was held, in order. */
  private release(): void {
    this.holds--;
    if (this.holds > 0 || this.closed) return;
    const lines = this.held;
    this.held = [];
    if (lines.length > 0) this.emit(lines.join(''));
  }

  /** Holds every live line for `ms`, then flushes them in order. */
  stall(ms: number): void {
    this.holds++;
    this.timers.push(this.hub.runtime.after(ms, () => this.release()));
  }

  /** Ends the stream: `clean` finishes the chunked body, `abrupt` destroys the socket. */
  close(mode: 'clean' | 'abrupt' | 'gone'): void {
    if (this.closed) return;
    this.closed = true;
    this.held = [];
    this.unlisten();
    for (const cancel of this.timers) cancel();
    this.hub.streams.delete(this);
    if (mode === 'clean') this.res.end();
    else if (mode === 'abrupt') this.res.abort();
  }
}

/**
 * Every open watch, plus the fault hooks that act on all of them.
 *
 * # Guarantees
 * - Each history event is serialized once per (type, representation, version) and the same string goes to every
 *   watcher; initial-state lines reuse each stored object's cached JSON (see `representation/serialize.ts`).
 */
export class WatchHub {
  readonly streams = new Set<WatchStream>();
  stalledUntil = 0;

  constructor(
    readonly store: ObjectStore,
    private readonly bookmarkIntervalMs: number,
    readonly runtime: ServerRuntime,
  ) {}

  /**
   * Serves a WATCH request on `res`. Validation errors throw before any byte is written (so they become a Status
   * response); an expired resourceVersion is a 200 with one 410 ERROR event, like the real server.
   */
  serve(res: ResponseSink, target: WatchTarget, query: URLSearchParams, representation: Representation): void {
    validateListOptions(query, true);
    const filter = compileFilter(
      target.resource,
      query.get('labelSelector') ?? undefined,
      query.get('fieldSelector') ?? undefined,
    );
    const bookmarks = boolParam(query, 'allowWatchBookmarks');
    const initialEvents = boolParam(query, 'sendInitialEvents');
    // sendInitialEvents=false with no resourceVersion means "start at the most recent": no synthetic ADDED.
    const fromNow = query.has('sendInitialEvents') && !initialEvents && (query.get('resourceVersion') ?? '') === '';
    const timeoutSeconds = intParam(query, 'timeoutSeconds');
    const rv = rvParam(query);
    const current = this.store.resourceVersion;
    // A plain watch from a resourceVersion the server has not reached is accepted and silent until it gets there,
    // as kube-apiserver does; a streaming list from the future is refused like a list.
    const ahead = rv !== undefined && rv > current;
    if (ahead && initialEvents) throw tooLargeResourceVersion(rv, current);
    const key = storageKey(target.resource);
    const replay = rv === undefined || rv === 0 || initialEvents ? [] : this.store.eventsSince(key, rv);
    const synthetic = !fromNow && (rv === undefined || rv === 0 || initialEvents);

    const body = res.stream(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
      'Transfer-Encoding': 'chunked',
    });
    const stream = new WatchStream(body, this, target, filter, representation);
    if (replay === undefined) {
      const error = expired(`too old resource version: ${rv} (${this.store.compacted})`);
      stream.write(stream.encode('ERROR', error.body as unknown as KubeObject));
      stream.close('clean');
      return;
    }
    this.streams.add(stream);
    // Snapshot and subscription happen in one synchronous block: no commit can fall between them. Stored objects
    // are frozen, so the array of them is a consistent snapshot however long the initial state takes to send.
    if (synthetic) {
      // Without allowWatchBookmarks the real server streams the initial state but cannot mark its end.
      stream.sendInitial([...this.store.values(key)], current, initialEvents && bookmarks);
    } else {
      for (const event of replay) stream.deliver(event);
    }
    const unlisten = ahead
      ? this.store.listen((event) => event.rv > rv && stream.deliver(event))
      : this.store.listen((event) => stream.deliver(event));
    stream.start(unlisten, bookmarks ? this.bookmarkIntervalMs : undefined, timeoutSeconds);
  }

  /** Ends every open watch. */
  dropAll(mode: 'clean' | 'abrupt'): number {
    const streams = [...this.streams];
    for (const s of streams) s.close(mode);
    return streams.length;
  }

  /** Open streams buffer everything for `ms`, then flush (watches opened meanwhile stall for the rest). */
  stall(ms: number): void {
    this.stalledUntil = this.runtime.now() + ms;
    for (const s of this.streams) s.stall(ms);
  }

  /** Writes one bad line into every open stream. */
  inject(line: string): number {
    for (const s of this.streams) s.write(line);
    return this.streams.size;
  }
}
