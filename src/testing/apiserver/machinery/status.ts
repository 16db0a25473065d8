/**
 * Kubernetes `Status` bodies and the errors that carry them, with kube-apiserver's exact reasons and messages.
 * @module
 */
import type { apiErrors } from 'rxkube';

/** The causes and details of a failure `Status`: the same types the client decodes them into. */
export type { StatusCause, StatusDetails } from '../../../transport/index.js';

/** A `meta/v1 Status` object as kube-apiserver serializes it. */
export interface StatusBody {
  /** Always `Status`. */
  readonly kind: 'Status';
  /** Always `v1`. */
  readonly apiVersion: 'v1';
  /** List metadata, empty for a failure. */
  readonly metadata: {
    /** Unused for failures; part of the shape. */
    readonly continue?: string;
  };
  /** `Failure` for every error. */
  readonly status: 'Failure' | 'Success';
  /** What happened, for people, in kube-apiserver's wording. */
  readonly message?: string;
  /** The machine-readable reason, e.g. `NotFound`, `Conflict`, `Expired`. */
  readonly reason?: string;
  /** What the failure is about. */
  readonly details?: apiErrors.StatusDetails;
  /** The HTTP status code. */
  readonly code: number;
}

/**
 * An error that becomes a failure `Status` response.
 *
 * # Guarantees
 * - `status` is the HTTP code and equals `body.code`.
 * - `headers` (e.g. `Retry-After`) are written with the response.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly body: StatusBody;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: number,
    reason: string,
    message: string,
    details?: apiErrors.StatusDetails,
    headers: Record<string, string> = {},
    metadata: { continue?: string } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = code;
    this.headers = headers;
    // An empty reason is StatusReasonUnknown, which the real server leaves out of the body.
    const body: { -readonly [K in keyof StatusBody]: StatusBody[K] } = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata,
      status: 'Failure',
      message,
      ...(reason === '' ? {} : { reason }),
      code,
    };
    if (details !== undefined) body.details = pruneUndefined(details);
    this.body = body;
  }
}

function pruneUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== '')) as T;
}

/** The group/resource pair the real server uses to qualify names in messages (`deployments.apps`). */
export interface QualifiedResource {
  readonly group: string;
  readonly plural: string;
}

/** `pods` for the core group, `deployments.apps` otherwise, as in `schema.GroupResource.String()`. */
export function qualified(gr: QualifiedResource): string {
  return gr.group === '' ? gr.plural : `${gr.plural}.${gr.group}`;
}

/** `Pod` for the core group, `Deployment.apps` otherwise, as in `schema.GroupKind.String()`. */
export function qualifiedKind(group: string, kind: string): string {
  return group === '' ? kind : `${kind}.${group}`;
}

function details(gr: QualifiedResource, name: string): apiErrors.StatusDetails {
  return { name, group: gr.group, kind: gr.plural };
}

/** 404 NotFound: `pods "x" not found`. */
export function notFound(gr: QualifiedResource, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualified(gr)} "${name}" not found`, details(gr, name));
}

/** 409 AlreadyExists: `pods "x" already exists`. */
export function alreadyExists(gr: QualifiedResource, name: string): ApiError {
  return new ApiError(409, 'AlreadyExists', `${qualified(gr)} "${name}" already exists`, details(gr, name));
}

/** 409 Conflict with the optimistic-concurrency message, or a custom one (preconditions). */
export function conflict(
  gr: QualifiedResource,
  name: string,
  why = 'the object has been modified; please apply your changes to the latest version and try again',
): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(gr)} "${name}": ${why}`,
    details(gr, name),
  );
}

/**
 * 409 Conflict for a failed storage precondition (uid or resourceVersion), which the real server words against
 * the kind: `Operation cannot be fulfilled on ConfigMap "x": the UID in the precondition (a) does not match the
 * UID in record (b). The object might have been deleted and then recreated`.
 */
export function preconditionFailed(
  group: string,
  kind: string,
  name: string,
  field: 'UID' | 'ResourceVersion',
  wanted: string,
  actual: string,
): ApiError {
  const tail =
    field === 'UID' ? 'The object might have been deleted and then recreated' : 'The object might have been modified';
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedKind(group, kind)} "${name}": the ${field} in the precondition (${wanted}) does not match the ${field} in record (${actual}). ${tail}`,
    { name, group, kind },
  );
}

/** 422 Invalid: `Pod "x" is invalid: <field>: <message>` with one cause per field error. */
export function invalid(group: string, kind: string, name: string, causes: readonly FieldError[]): ApiError {
  const text = causes.map((c) => `${c.field}: ${c.message}`);
  const summary = text.length === 1 ? text[0] : `[${text.join(', ')}]`;
  return new ApiError(422, 'Invalid', `${qualifiedKind(group, kind)} "${name}" is invalid: ${summary}`, {
    name,
    group,
    kind,
    causes: causes.map((c) => ({ reason: c.reason, message: c.message, field: c.field })),
  });
}

/** A field validation error, like apimachinery's `field.Error`. `message` already includes the type prefix. */
export interface FieldError {
  readonly field: string;
  readonly reason:
    | 'FieldValueInvalid'
    | 'FieldValueRequired'
    | 'FieldValueForbidden'
    | 'FieldValueNotSupported'
    | 'FieldValueDuplicate'
    | 'FieldValueTooLong';
  readonly message: string;
}

/** `Invalid value: "x": why`, as `field.Invalid` renders it. */
export function fieldInvalid(field: string, value: unknown, why: string): FieldError {
  return { field, reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: ${why}` };
}

/** `Required value: why`, as `field.Required` renders it. */
export function fieldRequired(field: string, why = ''): FieldError {
  return { field, reason: 'FieldValueRequired', message: why === '' ? 'Required value' : `Required value: ${why}` };
}

/** `Forbidden: why`, as `field.Forbidden` renders it. */
export function fieldForbidden(field: string, why: string): FieldError {
  return { field, reason: 'FieldValueForbidden', message: `Forbidden: ${why}` };
}

/** 400 BadRequest. */
export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

/** 403 Forbidden with the real `<resource> "<name>" is forbidden: <why>` shape. */
export function forbidden(
  gr: QualifiedResource,
  name: string,
  why: string,
  causes?: readonly apiErrors.StatusCause[],
): ApiError {
  const subject = name === '' ? qualified(gr) : `${qualified(gr)} "${name}"`;
  return new ApiError(403, 'Forbidden', `${subject} is forbidden: ${why}`, {
    ...details(gr, name),
    ...(causes !== undefined ? { causes } : {}),
  });
}

/** 404 for a path that names no resource: `the server could not find the requested resource`. */
export function unknownResource(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

/**
 * kube-apiserver's answer for a path that no API handler serves: not a Status but its HTTP mux's `404 page not
 * found` in text/plain. That is the answer for an unknown group, and, in a group only custom resources serve, for a
 * version that is not served, a resource no CRD defines, or a path of the wrong scope. Thrown like an
 * {@link ApiError}; the request entry point writes it as text.
 */
export class PageNotFound extends Error {
  /** Always 404. */
  readonly status = 404;
  /** The body, byte for byte (with its newline). */
  readonly text = '404 page not found\n';

  constructor() {
    super('404 page not found');
    this.name = 'PageNotFound';
  }
}

/** The text/plain `404 page not found` (see {@link PageNotFound}). */
export function pageNotFound(): PageNotFound {
  return new PageNotFound();
}

/** 405 MethodNotAllowed. */
export function methodNotAllowed(): ApiError {
  return new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

/** 406 NotAcceptable, with the real server's message (which lists what it could have served). */
export function notAcceptable(): ApiError {
  return new ApiError(
    406,
    'NotAcceptable',
    '406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch',
    {},
  );
}

/** 410 Expired. */
export function expired(message: string, metadata: { continue?: string } = {}): ApiError {
  return new ApiError(410, 'Expired', message, undefined, {}, metadata);
}

/** 413 RequestEntityTooLarge. */
export function tooLarge(limit: number): ApiError {
  return new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`);
}

/** 415 for a PATCH content type the server does not know, worded like the real generic response. */
export function unknownPatchType(): ApiError {
  return new ApiError(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {});
}

/** 415 UnsupportedMediaType. */
export function unsupportedMediaType(message: string): ApiError {
  return new ApiError(415, 'UnsupportedMediaType', message);
}

/**
 * 500 with no reason: what the real server answers for a plain (non-Status) error, e.g. a create that carries a
 * resourceVersion (`ErrorToAPIStatus` of a bare error).
 */
export function reasonless(message: string): ApiError {
  return new ApiError(500, '', message);
}

/** 401 Unauthorized, exactly as the real authentication filter answers. */
export function unauthorized(): ApiError {
  return new ApiError(401, 'Unauthorized', 'Unauthorized');
}

/** 500 InternalError: `Internal error occurred: <why>`. */
export function internalError(why: string): ApiError {
  return new ApiError(500, 'InternalError', `Internal error occurred: ${why}`, { causes: [{ message: why }] });
}

/** 504 Timeout used for a resourceVersion from the future. */
export function tooLargeResourceVersion(requested: number, current: number): ApiError {
  return new ApiError(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds: 1,
  });
}

/**
 * A success `Status`, as returned by DELETE for types that do not return the deleted object. Like the generic
 * registry's `finalizeDelete`, it has no `code`.
 */
export function successStatus(details: apiErrors.StatusDetails): Omit<StatusBody, 'code'> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: pruneUndefined(details) };
}
