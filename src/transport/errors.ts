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
 * Parses a `Retry-After` header into seconds: delta-seconds as they are, an HTTP date relative to the response's own
 * `Date` header.
 *
 * # Guarantees
 * - Reads no clock: an HTTP date is measured against the server's `Date` header (the server's clock against itself),
 *   so neither clock skew nor virtual time can distort it. Delays are computed from the result by the caller, on
 *   its scheduler.
 *
 * # Caveats
 * - Returns `undefined` for anything unparseable rather than guessing, and for an HTTP date when the response had
 *   no usable `Date` header (the caller then uses its ordinary backoff). A date in the past gives 0.
 */
export function parseRetryAfter(header: string | undefined, serverDate?: string): number | undefined {
  if (header === undefined) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  const reference = serverDate === undefined ? Number.NaN : Date.parse(serverDate);
  if (Number.isNaN(at) || Number.isNaN(reference)) return undefined;
  return Math.max(0, Math.ceil((at - reference) / 1000));
}

/** What {@link apiErrorFromResponse} reads from an error response. */
export interface ErrorResponse {
  readonly statusCode: number;
  readonly statusMessage?: string | undefined;
  readonly body: string;
  /** The `Retry-After` header, if any. */
  readonly retryAfter?: string | undefined;
  /** The `Date` header, if any: the reference for an HTTP-date `Retry-After`. */
  readonly date?: string | undefined;
}

/**
 * Builds the {@link ApiError} for an error response, preferring the fields of a Kubernetes `Status` body and falling
 * back to the HTTP status line when the body is not one (proxies, load balancers).
 */
export function apiErrorFromResponse(response: ErrorResponse): ApiError {
  const { statusCode, statusMessage, body } = response;
  const status = tryParseStatus(body);
  const retryAfter =
    parseRetryAfter(response.retryAfter, response.date) ??
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
