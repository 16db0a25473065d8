/**
 * Typed failures of the HTTP transport, so the reflector can decide between relist, resume, backoff and fail-fast
 * without parsing messages.
 */
import { parseWarningHeaders } from './warnings.js';
import { parseJson } from './json.js';

/** One cause of a failure `Status`: which field and why (`details.causes` in Kubernetes). */
export interface StatusCause {
  /** A machine-readable reason, e.g. `FieldValueInvalid`, `FieldManagerConflict`. */
  readonly reason?: string;
  /** What is wrong with the field, for people. */
  readonly message?: string;
  /** The field path the cause is about, e.g. `metadata.labels`, `spec.containers[0].image`. */
  readonly field?: string;
}

/** The `details` of a failure `Status`: what it is about. */
export interface StatusDetails {
  /** The name of the object concerned, when there is one. */
  readonly name?: string;
  /** Its API group (`''` for the core group). */
  readonly group?: string;
  /** Its kind, or its resource (plural) for most reasons, as kube-apiserver writes it. */
  readonly kind?: string;
  /** Its uid, when known. */
  readonly uid?: string;
  /** The fields at fault and why. */
  readonly causes?: readonly StatusCause[];
  /** How long the server asks the client to wait before trying again. */
  readonly retryAfterSeconds?: number;
}

/**
 * An HTTP error status from the API server, decoded from the `Status` body when there was one. It is the one error
 * type of every read, watch and write; test it with `apiErrors.isConflict`, `apiErrors.isNotFound` and their siblings.
 *
 * # Guarantees
 * - `code` is always the HTTP status (or the `Status.code` of an in-band watch ERROR event).
 * - `reason` is the Kubernetes `Status.reason` when the server sent one (`Expired`, `Forbidden`, `NotFound`, ...),
 *   otherwise the HTTP reason phrase.
 * - `causes` are the `Status` causes (field paths and why), empty when there were none; `details` is the rest.
 * - `retryAfterSeconds` is set when a `Retry-After` header (seconds or HTTP date) or `Status.details
 *   .retryAfterSeconds` was present.
 */
export class ApiError extends Error {
  /** Always `'ApiError'`. */
  override readonly name = 'ApiError';
  constructor(
    /** The HTTP status code. */
    readonly code: number,
    /** The Kubernetes `Status.reason`, or the HTTP reason phrase. */
    readonly reason: string,
    message: string,
    /** Seconds the server asked the client to wait, when it said. */
    readonly retryAfterSeconds?: number,
    /** The decoded `Status` object, when the body was one. */
    readonly status?: unknown,
    /**
     * The API server's warnings on this answer (`Warning: 299` headers): a refused write can still say, for
     * instance, which unknown fields it would have dropped. Empty when it sent none.
     */
    readonly warnings: readonly string[] = [],
  ) {
    super(message);
  }

  /** `Status.details`, when the server sent them. */
  get details(): StatusDetails | undefined {
    const details = (this.status as { details?: unknown } | undefined)?.details;
    return typeof details === 'object' && details !== null ? (details as StatusDetails) : undefined;
  }

  /** `Status.details.causes`: which fields failed and why; empty when the server gave none. */
  get causes(): readonly StatusCause[] {
    const causes = this.details?.causes;
    return Array.isArray(causes) ? causes : [];
  }
}

/** A 404: the object (or the resource) does not exist. */
export function isNotFound(error: unknown): error is ApiError {
  return isApiError(error, 404, 'NotFound');
}

/** A 409 `Conflict`: a precondition or resourceVersion did not match (someone else wrote first), or an apply conflict. */
export function isConflict(error: unknown): error is ApiError {
  return error instanceof ApiError && error.code === 409 && error.reason === 'Conflict';
}

/** A 409 `AlreadyExists`: a create of a name that is taken. */
export function isAlreadyExists(error: unknown): error is ApiError {
  return error instanceof ApiError && error.code === 409 && error.reason === 'AlreadyExists';
}

/** A 422 `Invalid`: the object failed validation; `causes` name the fields. */
export function isInvalid(error: unknown): error is ApiError {
  return isApiError(error, 422, 'Invalid');
}

/** A 400 `BadRequest`: the request itself was malformed. */
export function isBadRequest(error: unknown): error is ApiError {
  return isApiError(error, 400, 'BadRequest');
}

/** A 401: the credentials were refused. */
export function isUnauthorized(error: unknown): error is ApiError {
  return isApiError(error, 401, 'Unauthorized');
}

/** A 403: authenticated, but not allowed (RBAC). */
export function isForbidden(error: unknown): error is ApiError {
  return isApiError(error, 403, 'Forbidden');
}

/** A 410: the resourceVersion asked for is too old (compacted). */
export function isExpired(error: unknown): error is ApiError {
  return error instanceof ApiError && (error.code === 410 || error.reason === 'Expired' || error.reason === 'Gone');
}

/** A 429: throttled; `retryAfterSeconds` says how long to wait when the server said. */
export function isTooManyRequests(error: unknown): error is ApiError {
  return isApiError(error, 429, 'TooManyRequests');
}

/** A 5xx: the server failed; usually worth retrying with backoff. */
export function isServerError(error: unknown): error is ApiError {
  return error instanceof ApiError && error.code >= 500 && error.code < 600;
}

/** The code, or the reason when the code is one a proxy could have rewritten. */
function isApiError(error: unknown, code: number, reason: string): error is ApiError {
  return error instanceof ApiError && (error.code === code || error.reason === reason);
}

/**
 * A failure with no HTTP status: connection refused or reset, a watch stream cut before its clean end, a body that
 * is not the JSON it should be, or a line longer than the transport accepts.
 *
 * `reason` is one of `NetworkError`, `ConnectionClosed`, `MalformedResponse`, `LineTooLong`, `NoCluster`.
 */
export class TransportError extends Error {
  /** Always `'TransportError'`. */
  override readonly name = 'TransportError';
  constructor(
    /** `NetworkError`, `ConnectionClosed`, `MalformedResponse`, `LineTooLong` or `NoCluster`. */
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
  /** The `Warning` header field values, one per header line, as received (see `parseWarningHeaders`). */
  readonly warningHeaders?: readonly string[];
}

/**
 * Builds the {@link ApiError} for an error response, preferring the fields of a Kubernetes `Status` body. When the
 * body is not one (kube-apiserver's text/plain `404 page not found` for a path no API serves, proxies, load
 * balancers), the message is the body's text without surrounding whitespace, and the reason the HTTP status line's.
 */
export function apiErrorFromResponse(response: ErrorResponse): ApiError {
  const { statusCode, statusMessage, body } = response;
  const status = tryParseStatus(body);
  const retryAfter =
    parseRetryAfter(response.retryAfter, response.date) ??
    (typeof status?.details?.retryAfterSeconds === 'number' ? status.details.retryAfterSeconds : undefined);
  const reason = status?.reason || statusMessage || `HTTP${statusCode}`;
  // A body that is not a Status (kube-apiserver's text/plain `404 page not found\n` for a path no API serves, a
  // proxy's page) is the message as it reads, without the line break.
  const message = status?.message || body.trim().slice(0, 512) || statusMessage || `HTTP ${statusCode}`;
  return new ApiError(
    statusCode,
    reason,
    message,
    retryAfter,
    status,
    parseWarningHeaders(response.warningHeaders ?? []),
  );
}

/** The subset of `metav1.Status` the transport reads. */
export interface StatusLike {
  kind?: string;
  code?: number;
  reason?: string;
  message?: string;
  details?: StatusDetails;
}

function tryParseStatus(body: string): StatusLike | undefined {
  try {
    const parsed: unknown = parseJson(body);
    return typeof parsed === 'object' && parsed !== null ? (parsed as StatusLike) : undefined;
  } catch {
    return undefined;
  }
}
