/**
 * HTTP list and watch over a client-node KubeConfig: abortable, stateless, with typed errors.
 * @packageDocumentation
 */
export {
  ApiError,
  TransportError,
  apiErrorFromResponse,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isExpired,
  isForbidden,
  isInvalid,
  isNotFound,
  isServerError,
  isTooManyRequests,
  isUnauthorized,
  parseRetryAfter,
} from './errors.js';
export type { StatusCause, StatusDetails, StatusLike } from './errors.js';
export { applyConflicts } from './apply-conflicts.js';
export type { ApplyConflict } from './apply-conflicts.js';
export * as apiErrors from './api-errors-namespace.js';
export { expectBackslashKeys, parseJson } from './json.js';
export { LineSplitter } from './lines.js';
export { asKubeList, getJson, listPage, parseJsonBody, watchLineChunks, watchLines } from './http.js';
export { eachOf } from './batches.js';
export type { KubeList, QueryParams, RequestOptions, WatchRequestOptions } from './http.js';
export { kubeTransport, transportOf } from './transport.js';
export { requestBodyOf, responseOf, sendRequest } from './request.js';
export type { RequestMethod, TransportRequest, TransportResponse } from './request.js';
export type { KubeTransportOptions, Transport } from './transport.js';
export type { Connection } from './connection-type.js';
export { RXKUBE_VERSION, checkUserAgent, defaultUserAgent, programName } from './user-agent.js';
export {
  API_WARNING_CODE,
  checkWarningHandler,
  deduplicateWarnings,
  deliverWarnings,
  parseWarningHeaders,
  printWarningOnce,
  reportWarnings,
} from './warnings.js';
export type { ApiWarning, WarningHandler } from './warnings.js';
export { getWithWarnings, requestWithWarnings, warningsOfRequest } from './with-warnings.js';
export type { RequestWarnings } from './with-warnings.js';
