/**
 * The vocabulary every layer of the in-memory server speaks (as k8s.io/apimachinery is kube-apiserver's): the
 * untyped object shape, `Status` errors and `Warning` headers, the transport-agnostic exchange, and the runtime every
 * timestamp, timer, uid and random name comes from. It imports nothing else of the server.
 * @module
 */
export type { ApiRequest, ChunkSink, ResponseHeaders, ResponseSink } from './exchange.js';
export { cloneJson, deepFreeze, isPlainObject, jsonEqual, objectKey, setMember, timestamp } from './object.js';
export type { KubeObject, ObjectMeta } from './object.js';
export { realRuntime, seededRandom, seededRuntime } from './runtime.js';
export type { ServerRuntime } from './runtime.js';
export {
  alreadyExists,
  ApiError,
  badRequest,
  conflict,
  expired,
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  forbidden,
  internalError,
  invalid,
  methodNotAllowed,
  notAcceptable,
  notFound,
  PageNotFound,
  pageNotFound,
  preconditionFailed,
  reasonless,
  successStatus,
  tooLarge,
  tooLargeResourceVersion,
  unauthorized,
  unknownPatchType,
  unknownResource,
  unsupportedMediaType,
} from './status.js';
export type { FieldError, StatusBody, StatusCause, StatusDetails } from './status.js';
export { keepingWarnings, warningHeaders, withWarnings } from './warnings.js';
