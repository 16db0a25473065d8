/**
 * HTTP list and watch over a client-node KubeConfig: abortable, stateless, with typed errors.
 * @packageDocumentation
 */
export { ApiError, TransportError, apiErrorFromResponse, parseRetryAfter } from './errors.js';
export type { StatusLike } from './errors.js';
export { LineSplitter } from './lines.js';
export { asKubeList, getJson, listPage, watchLines } from './http.js';
export type { KubeList, QueryParams, RequestOptions, WatchRequestOptions } from './http.js';
export { kubeTransport } from './transport.js';
export type { Transport } from './transport.js';
