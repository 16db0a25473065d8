/**
 * HTTP plumbing: bounded body reading, JSON/YAML decoding, and Status/JSON responses.
 * @module
 */
import type { IncomingMessage } from 'node:http';
import {
  ApiError,
  type ApiRequest,
  badRequest,
  type ResponseSink,
  tooLarge,
  unsupportedMediaType,
} from '../machinery/index.js';
import { loadYaml } from '@kubernetes/client-node';
import { prefersProtobuf, toJson } from '../representation/index.js';
import { decodeProtobuf, encodeProtobuf, protobufMediaType, ProtobufError } from '../protobuf/index.js';
import { parseJson } from '../../../transport/index.js';

/**
 * Reads a request body, refusing more than `limit` bytes (then `undefined`: the caller answers 413 and closes the
 * connection, so the rest of an oversized upload is never buffered).
 */
export function readBodyBytes(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? '0');
    if (declared > limit) {
      resolve(undefined);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        done = true;
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!done) {
        done = true;
        resolve(Buffer.concat(chunks));
      }
    });
    req.on('error', (error) => {
      if (!done) {
        done = true;
        reject(error);
      }
    });
  });
}

/** The request body, or 413 when the adapter refused it as too large. */
export function requestBody(req: ApiRequest, limit: number): Buffer {
  if (req.bodyTooLarge === true || req.body.length > limit) throw tooLarge(limit);
  return req.body;
}

/**
 * Decodes a create/update body by Content-Type: JSON (default), YAML, or protobuf for built-in kinds; 400 with
 * the decoder's reason otherwise, 415 for a type the resource does not take.
 */
export function decodeObjectBody(
  bytes: Buffer | string,
  contentType: string | undefined,
  kind: string,
  custom = false,
): unknown {
  const type = (contentType ?? 'application/json').split(';')[0]!.trim().toLowerCase();
  if (type === protobufMediaType && !custom) {
    try {
      return decodeProtobuf(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes, 'binary')).object;
    } catch (error) {
      if (error instanceof ProtobufError) throw badRequest(error.message);
      throw error;
    }
  }
  const raw = Buffer.isBuffer(bytes) ? bytes.toString('utf8') : bytes;
  if (raw.trim() === '') throw badRequest("Object 'Kind' is missing in ''");
  if (type === 'application/json' || type === '' || type === '*/*') {
    try {
      return parseJson(raw);
    } catch (error) {
      // The real wording around the parser's own message (which is JavaScript's here, Go's there).
      throw badRequest(
        `the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${(error as Error).message} (${raw.slice(0, 100)})`,
      );
    }
  }
  if (type === 'application/yaml') {
    try {
      return loadYaml(raw);
    } catch (error) {
      throw badRequest(`couldn't get version/kind; yaml parse error: ${(error as Error).message}`);
    }
  }
  const accepted = custom
    ? 'application/json, application/yaml'
    : `application/json, application/yaml, ${protobufMediaType}`;
  throw unsupportedMediaType(
    `the body of the request was in an unknown format - accepted media types include: ${accepted}`,
  );
}

/** Parses an optional JSON body (DELETE options): undefined when empty, 400 when malformed. */
export function decodeOptionalJson(raw: string): unknown {
  if (raw.trim() === '') return undefined;
  try {
    return parseJson(raw);
  } catch (error) {
    throw badRequest(`couldn't get version/kind; json parse error: ${(error as Error).message}`);
  }
}

/**
 * Writes a JSON response (no-op when the response already started, e.g. a watch). Stored objects in the body are
 * serialized once and their text reused (see `representation/serialize.ts`).
 */
export function sendJson(
  res: ResponseSink,
  code: number,
  body: unknown,
  headers: Record<string, string> = {},
  afterSent?: () => void,
): void {
  if (res.started) return;
  const text = toJson(body);
  res.respond(
    code,
    {
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(text)),
      'Cache-Control': 'no-cache, private',
      ...headers,
    },
    text,
    afterSent,
  );
}

/**
 * Writes an object response in the format the client prefers: protobuf when its Accept header puts
 * `application/vnd.kubernetes.protobuf` first and the kind has a protobuf message, JSON otherwise.
 */
export function sendObject(
  res: ResponseSink,
  code: number,
  body: unknown,
  accept: string | undefined,
  headers: Record<string, string> = {},
): void {
  if (prefersProtobuf(accept) && typeof body === 'object' && body !== null && !res.started) {
    const obj = body as Record<string, unknown>;
    const encoded =
      typeof obj['apiVersion'] === 'string' && typeof obj['kind'] === 'string'
        ? encodeProtobuf(obj, obj['apiVersion'], obj['kind'])
        : undefined;
    if (encoded !== undefined) {
      res.respond(
        code,
        {
          'Content-Type': protobufMediaType,
          'Content-Length': String(encoded.length),
          'Cache-Control': 'no-cache, private',
          ...headers,
        },
        encoded,
      );
      return;
    }
  }
  sendJson(res, code, body, headers);
}

/** Writes an `ApiError` as its Status body with its headers. */
export function sendError(res: ResponseSink, error: ApiError, extraHeaders: Record<string, string> = {}): void {
  sendJson(res, error.status, error.body, { ...error.headers, ...extraHeaders });
}

/** Writes a plain-text response (health endpoints, `404 page not found`). */
export function sendText(res: ResponseSink, code: number, text: string, headers: Record<string, string> = {}): void {
  res.respond(
    code,
    {
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(text)),
      'X-Content-Type-Options': 'nosniff',
      ...headers,
    },
    text,
  );
}

/** True when the error is an `ApiError` (a Status the client should see). */
export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}
