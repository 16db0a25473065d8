/**
 * Typed failures of the HTTP transport, so the reflector can decide between relist, resume, backoff and fail-fast
 * without parsing messages.
 */

/**
 * An HTTP error status from the API server, decoded from the `Status` body when there was one.
 *
 * # Guarantees
 * - `code` is always the HTTP status (or the `Status.code` of an in-band watch ERROR event).
 * - `reason` is the Kubernetes `Status.reason` when the server sent one (`Expired`, `Forbidden`, `NotFound`, ...),
 *   otherwise the HTTP reason phrase.
 * - `retryAfterSeconds` is set when a `Retry-After` header (seconds or HTTP date) or `Status.details
 *   .retryAfterSeconds` was present.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly retryAfterSeconds?: number,
    /** The decoded `Status` object, when the body was one. */
    readonly status?: unknown,
  ) {
    super(message);
  }
}

/**
 * A failure with no HTTP status: connection refused or reset, a watch stream cut before its clean end, a body that
 * is not the JSON it should be, or a line longer than the transport accepts.
 *
 * `reason` is one of `NetworkError`, `ConnectionClosed`, `MalformedResponse`, `LineTooLong`, `NoCluster`.
 */
export class TransportError extends Error {
  override readonly name = 'TransportError';
  constructor(
    readonly reason: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Parses a `Retry-After` header: delta-seconds or an HTTP date (relative to `now`).
 *
 * # Caveats
 * Returns `undefined` for anything unparseable rather than guessing; a date in the past gives 0.
 */
export function parseRetryAfter(header: string | undefined, now: number = Date.now()): number | undefined {
  if (header === undefined) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * Builds the {@link ApiError} for an error response, preferring the fields of a Kubernetes `Status` body and falling
 * back to the HTTP status line when the body is not one (proxies, load balancers).
 */
export function apiErrorFromResponse(
  statusCode: number,
  statusMessage: string | undefined,
  body: string,
  retryAfterHeader: string | undefined,
): ApiError {
  const status = tryParseStatus(body);
  const retryAfter =
    parseRetryAfter(retryAfterHeader) ??
    (typeof status?.details?.retryAfterSeconds === 'number' ? status.details.retryAfterSeconds : undefined);
  const reason = status?.reason || statusMessage || `HTTP${statusCode}`;
  const message = status?.message || body.slice(0, 512) || statusMessage || `HTTP ${statusCode}`;
  return new ApiError(statusCode, reason, message, retryAfter, status);
}

/** The subset of `metav1.Status` the transport reads. */
export interface StatusLike {
  kind?: string;
  code?: number;
  reason?: string;
  message?: string;
  details?: { retryAfterSeconds?: number };
}

function tryParseStatus(body: string): StatusLike | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null ? (parsed as StatusLike) : undefined;
  } catch {
    return undefined;
  }
}
