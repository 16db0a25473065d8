/**
 * The transport-agnostic shape of one exchange with the server core: a request in, a whole response or a stream of
 * chunks out. The node:http adapter and the in-process virtual transport both speak it, so neither forks the
 * server's semantics.
 * @module
 */

/** One request as the core sees it. */
export interface ApiRequest {
  /** Upper-case HTTP method. */
  readonly method: string;
  /** The path as sent (percent-encoded), without the query. */
  readonly path: string;
  /** The query string with its `?`, or `''`. */
  readonly search: string;
  /** Request headers, lower-case names, first value only. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The whole body (empty when there was none). */
  readonly body: Buffer;
  /**
   * The adapter refused to buffer the body because it is larger than the server's limit: the core answers 413 at
   * the point it would have read the body (after authentication, faults and routing), as over HTTP.
   */
  readonly bodyTooLarge?: boolean;
  /**
   * How long the request waits before it is served, on top of the latency fault (a virtual cluster's `latency`
   * option; default 0). It is logged when it arrives and stored and answered when it is served.
   */
  readonly latencyMs?: number;
}

/** Response headers: names as written on the wire. */
export type ResponseHeaders = Readonly<Record<string, string>>;

/**
 * Where the core writes its answer.
 *
 * # Guarantees (every adapter keeps them)
 * - Exactly one of `respond` / `stream` takes effect per exchange; later calls are ignored.
 */
export interface ResponseSink {
  /** A whole response. `afterSent` runs once it has left (the `restart` fault cuts connections only then). */
  respond(status: number, headers: ResponseHeaders, body: string | Buffer, afterSent?: () => void): void;
  /** Starts a streamed (chunked) response: the headers leave now, the chunks as they are written. */
  stream(status: number, headers: ResponseHeaders): ChunkSink;
  /** True once `respond` or `stream` was called (or the client is gone). */
  readonly started: boolean;
}

/** The body of a streamed response (a watch). */
export interface ChunkSink {
  /** Sends a chunk; false when the consumer asks to wait for `onDrain` (back-pressure). */
  write(text: string): boolean;
  /** Calls `listener` once, when written chunks have drained. */
  onDrain(listener: () => void): void;
  /** Calls `listener` once, when the consumer went away or the connection broke. */
  onGone(listener: () => void): void;
  /** Bytes written and not yet taken by the consumer. */
  readonly pendingBytes: number;
  /** False once the stream ended or the consumer is gone. */
  readonly open: boolean;
  /** Ends the body cleanly. */
  end(): void;
  /** Cuts the connection (the consumer sees a broken stream). */
  abort(): void;
}
