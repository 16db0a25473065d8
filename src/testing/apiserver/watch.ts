/**
 * WATCH: newline-delimited JSON events over a chunked response, resumable from the bounded history, with
 * bookmarks, streaming initial events, selector transitions and the faults tests inject into open streams.
 * @module
 */
import type { ServerResponse } from 'node:http';
import { compileFilter, type ObjectFilter } from './filter.js';
import { represent, toTable, type Representation } from './negotiate.js';
import type { KubeObject } from './object.js';
import { boolParam, intParam, rvParam, validateListOptions } from './query.js';
import { groupVersion, storageKey, type ResourceInfo } from './resource.js';
import { expired, tooLargeResourceVersion } from './status.js';
import type { ObjectStore, StoredEvent } from './store.js';

/** What a watch request targets. */
export interface WatchTarget {
  readonly resource: ResourceInfo;
  readonly version: string;
  readonly namespace: string;
}

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** A write queue larger than this means the client stopped reading: the real server drops such watchers too. */
const slowConsumerBytes = 64 * 1024 * 1024;

/**
 * One open watch response.
 *
 * # Guarantees
 * - Events reach the client in resourceVersion order, each line flushed as written.
 * - Closing (any cause) removes the listener and clears every timer.
 */
class WatchStream {
  private readonly timers: NodeJS.Timeout[] = [];
  private unlisten: () => void = () => undefined;
  private buffered: string[] | undefined;
  private closed = false;
  readonly apiVersion: string;
  private readonly resourceKey: string;
  private tableHeaderSent = false;

  constructor(
    readonly res: ServerResponse,
    private readonly hub: WatchHub,
    private readonly target: WatchTarget,
    private readonly filter: ObjectFilter,
    private readonly representation: Representation,
  ) {
    this.apiVersion = groupVersion(target.resource.group, target.version);
    this.resourceKey = storageKey(target.resource);
    res.on('close', () => this.close('gone'));
    // Writes racing a socket teardown report errors here; the 'close' that follows ends the stream.
    res.on('error', () => this.close('gone'));
  }

  /** Arms bookmarks, the timeout and any stall in progress; `unlisten` detaches from the store on close. */
  start(unlisten: () => void, bookmarkMs: number | undefined, timeoutSeconds: number | undefined): void {
    this.unlisten = unlisten;
    if (bookmarkMs !== undefined) this.timers.push(setInterval(() => this.bookmark(false), bookmarkMs));
    if (timeoutSeconds !== undefined && timeoutSeconds > 0) this.timers.push(setTimeout(() => this.close('clean'), timeoutSeconds * 1000));
    if (this.hub.stalledUntil > Date.now()) this.stall(this.hub.stalledUntil - Date.now());
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

  /** A synthetic ADDED for an object of the initial state. */
  added(obj: KubeObject): void {
    if (this.inScope(obj)) this.write(this.hub.addedLine(obj, this.apiVersion, this.representation) ?? this.encode('ADDED', obj));
  }

  private line(event: StoredEvent, type: EventType, which: 'object' | 'prev'): string {
    if (this.representation === 'table') {
      return this.encode(type, which === 'prev' ? { ...event.prev!, metadata: { ...event.prev!.metadata, resourceVersion: event.object.metadata.resourceVersion } } : event.object);
    }
    const cacheKey = `${type}|${which}|${this.representation}|${this.apiVersion}`;
    let line = event.lines.get(cacheKey);
    if (line === undefined) {
      // Like the watch cache: a "stopped matching" DELETED carries the previous content at the event's RV.
      const obj = which === 'prev' ? { ...event.prev!, metadata: { ...event.prev!.metadata, resourceVersion: event.object.metadata.resourceVersion } } : event.object;
      line = this.encode(type, obj);
      event.lines.set(cacheKey, line);
    }
    return line;
  }

  /** One watch line for `obj` in this stream's representation. */
  encode(type: EventType, obj: KubeObject): string {
    if (this.representation === 'table' && type !== 'ERROR' && type !== 'BOOKMARK') {
      const table = toTable([obj], { resourceVersion: obj.metadata.resourceVersion }, !this.tableHeaderSent, this.target.resource.kind, this.target.resource.custom);
      this.tableHeaderSent = true;
      return `${JSON.stringify({ type, object: table })}\n`;
    }
    const shown = type === 'ERROR' ? obj : represent(obj, this.apiVersion, this.representation);
    return `${JSON.stringify({ type, object: shown })}\n`;
  }

  /** A BOOKMARK at the store's current resourceVersion; `initialEnd` adds the `k8s.io/initial-events-end` annotation. */
  bookmark(initialEnd: boolean): void {
    const metadata: Record<string, unknown> = { resourceVersion: String(this.hub.store.resourceVersion) };
    if (initialEnd) metadata['annotations'] = { 'k8s.io/initial-events-end': 'true' };
    const object = this.representation === 'metadata'
      ? { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata }
      : { kind: this.target.resource.kind, apiVersion: this.apiVersion, metadata };
    this.write(`${JSON.stringify({ type: 'BOOKMARK', object })}\n`);
  }

  /** Writes a raw line (also used to inject malformed lines). */
  write(line: string): void {
    if (this.closed) return;
    if (this.res.destroyed || this.res.writableEnded) {
      this.close('gone');
      return;
    }
    if (this.buffered !== undefined) {
      this.buffered.push(line);
      return;
    }
    this.res.write(line);
    if (this.res.writableLength > slowConsumerBytes) this.close('clean');
  }

  /** Holds every line for `ms`, then flushes them in order. */
  stall(ms: number): void {
    if (this.buffered === undefined) this.buffered = [];
    this.timers.push(setTimeout(() => {
      const lines = this.buffered ?? [];
      this.buffered = undefined;
      for (const line of lines) this.write(line);
    }, ms));
  }

  /** Ends the stream: `clean` finishes the chunked body, `abrupt` destroys the socket. */
  close(mode: 'clean' | 'abrupt' | 'gone'): void {
    if (this.closed) return;
    this.closed = true;
    this.unlisten();
    for (const t of this.timers) clearTimeout(t);
    this.hub.streams.delete(this);
    if (mode === 'clean') this.res.end();
    else if (mode === 'abrupt') this.res.socket?.destroy();
  }
}

/**
 * Every open watch, plus the fault hooks that act on all of them.
 *
 * # Guarantees
 * - Each history event is serialized once per (type, representation, version) and the same string goes to every
 *   watcher; initial-state lines are cached per stored object.
 */
export class WatchHub {
  readonly streams = new Set<WatchStream>();
  stalledUntil = 0;
  private readonly addedLines = new WeakMap<KubeObject, Map<string, string>>();

  constructor(readonly store: ObjectStore, private readonly bookmarkIntervalMs: number) {}

  /** Cached `ADDED` line for a stored object in one representation (not for tables). */
  addedLine(obj: KubeObject, apiVersion: string, representation: Representation): string | undefined {
    if (representation === 'table') return undefined;
    let lines = this.addedLines.get(obj);
    if (lines === undefined) {
      lines = new Map();
      this.addedLines.set(obj, lines);
    }
    const key = `${representation}|${apiVersion}`;
    let line = lines.get(key);
    if (line === undefined) {
      line = `${JSON.stringify({ type: 'ADDED', object: represent(obj, apiVersion, representation) })}\n`;
      lines.set(key, line);
    }
    return line;
  }

  /**
   * Serves a WATCH request on `res`. Validation errors throw before any byte is written (so they become a Status
   * response); an expired resourceVersion is a 200 with one 410 ERROR event, like the real server.
   */
  serve(res: ServerResponse, target: WatchTarget, query: URLSearchParams, representation: Representation): void {
    validateListOptions(query, true);
    const filter = compileFilter(target.resource, query.get('labelSelector') ?? undefined, query.get('fieldSelector') ?? undefined);
    const bookmarks = boolParam(query, 'allowWatchBookmarks');
    const initialEvents = boolParam(query, 'sendInitialEvents');
    // sendInitialEvents=false with no resourceVersion means "start at the most recent": no synthetic ADDED.
    const fromNow = query.has('sendInitialEvents') && !initialEvents && (query.get('resourceVersion') ?? '') === '';
    const timeoutSeconds = intParam(query, 'timeoutSeconds');
    const rv = rvParam(query);
    const current = this.store.resourceVersion;
    if (rv !== undefined && rv > current) throw tooLargeResourceVersion(rv, current);
    const key = storageKey(target.resource);
    const replay = rv === undefined || rv === 0 || initialEvents ? [] : this.store.eventsSince(key, rv);
    const synthetic = !fromNow && (rv === undefined || rv === 0 || initialEvents);

    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    const stream = new WatchStream(res, this, target, filter, representation);
    if (replay === undefined) {
      const error = expired(`too old resource version: ${rv} (${this.store.compacted})`);
      stream.write(stream.encode('ERROR', error.body as unknown as KubeObject));
      stream.close('clean');
      return;
    }
    this.streams.add(stream);
    // Snapshot and subscription happen in one synchronous block: no commit can fall between them.
    if (synthetic) {
      for (const obj of this.store.values(key)) stream.added(obj);
      // Without allowWatchBookmarks the real server streams the initial state but cannot mark its end.
      if (initialEvents && bookmarks) stream.bookmark(true);
    } else {
      for (const event of replay) stream.deliver(event);
    }
    const unlisten = this.store.listen((event) => stream.deliver(event));
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
    this.stalledUntil = Date.now() + ms;
    for (const s of this.streams) s.stall(ms);
  }

  /** Writes one bad line into every open stream. */
  inject(line: string): number {
    for (const s of this.streams) s.write(line);
    return this.streams.size;
  }
}
