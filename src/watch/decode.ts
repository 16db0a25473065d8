/**
 * Decoding of watch lines and mapping of transport errors to {@link WatchFailure}s.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { UnknownResourceError } from '../resources/index.js';
import { ApiError, parseJson, TransportError } from '../transport/index.js';
import type { StatusLike } from '../transport/index.js';
import type { WatchFailure } from './types.js';

/** The annotation on the bookmark that ends a streaming list's initial events. */
export const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

/** One watch line, classified. */
export type DecodedLine =
  | { readonly kind: 'blank' }
  | { readonly kind: 'malformed'; readonly message: string }
  | { readonly kind: 'object'; readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: KubernetesObject }
  | { readonly kind: 'bookmark'; readonly resourceVersion: string; readonly initialEventsEnd: boolean }
  | { readonly kind: 'error'; readonly status: StatusLike };

/**
 * Classifies one raw watch line. Never throws: anything that is not a well-formed watch event is `malformed`, with
 * a message that says why and quotes the start of the line.
 */
export function decodeWatchLine(line: string): DecodedLine {
  if (line.trim() === '') return { kind: 'blank' };
  let event: unknown;
  try {
    event = parseJson(line);
  } catch (err) {
    return malformed(`not JSON (${(err as Error).message})`, line);
  }
  if (!isRecord(event) || typeof event.type !== 'string' || !isRecord(event.object)) {
    return malformed('not a watch event ({type, object})', line);
  }
  const object = event.object;
  switch (event.type) {
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED':
      return { kind: 'object', type: event.type, object: object as KubernetesObject };
    case 'BOOKMARK': {
      const metadata = isRecord(object.metadata) ? object.metadata : {};
      if (typeof metadata.resourceVersion !== 'string' || metadata.resourceVersion === '') {
        return malformed('BOOKMARK without metadata.resourceVersion', line);
      }
      const annotations = isRecord(metadata.annotations) ? metadata.annotations : {};
      return {
        kind: 'bookmark',
        resourceVersion: metadata.resourceVersion,
        initialEventsEnd: annotations[INITIAL_EVENTS_END] === 'true',
      };
    }
    case 'ERROR':
      return { kind: 'error', status: object as StatusLike };
    default:
      return malformed(`unknown watch event type "${event.type}"`, line);
  }
}

/** Maps anything a transport can throw to a {@link WatchFailure}. */
export function toWatchFailure(err: unknown): WatchFailure {
  if (err instanceof ApiError) {
    return {
      reason: err.reason,
      message: err.message,
      code: err.code,
      ...(err.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: err.retryAfterSeconds }),
    };
  }
  if (err instanceof TransportError) return { reason: err.reason, message: err.message, ...errorCodeOf(err.cause) };
  if (err instanceof Error) return { reason: 'NetworkError', message: err.message, ...errorCodeOf(err) };
  return { reason: 'NetworkError', message: String(err) };
}

/** Whether a request failed with 410 Gone (an expired resourceVersion or continue token). */
export function isExpired(err: unknown): boolean {
  return err instanceof ApiError && err.code === 410;
}

/** An unknown kind is a 404 for `failFast`, and retried otherwise; any other discovery failure is retried. */
export function discoveryFailure(err: unknown): WatchFailure {
  if (err instanceof UnknownResourceError) {
    return { reason: 'UnknownResource', code: 404, message: `${err.message}; asking discovery again after backoff` };
  }
  return toWatchFailure(err);
}

/** A request that got no answer within its time limit. */
export function timeoutFailure(what: string, ms: number): WatchFailure {
  return {
    reason: 'ListTimeout',
    message: `no answer to the ${what} request within ${ms / 1000} s; retrying after backoff`,
  };
}

/** Maps an in-band watch ERROR `Status` to a {@link WatchFailure}. */
export function statusFailure(status: StatusLike): WatchFailure {
  const retryAfter = status.details?.retryAfterSeconds;
  return {
    reason: status.reason || 'WatchError',
    message: status.message || 'watch ERROR event without a message',
    ...(typeof status.code === 'number' ? { code: status.code } : {}),
    ...(typeof retryAfter === 'number' ? { retryAfterSeconds: retryAfter } : {}),
  };
}

/** `{ errorCode }` when `error` carries a Node.js error code (`ECONNREFUSED`, `ENOTFOUND`, a TLS code), else `{}`. */
function errorCodeOf(error: unknown): { errorCode?: string } {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code !== '' ? { errorCode: code } : {};
}

function malformed(why: string, line: string): DecodedLine {
  const quoted = line.length > 120 ? `${line.slice(0, 120)}…` : line;
  return { kind: 'malformed', message: `malformed watch line: ${why}: ${JSON.stringify(quoted)}` };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
