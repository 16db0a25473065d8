/**
 * Where the resource client sends the API server's warnings.
 */
import { tap } from 'rxjs';
import type { Observable } from 'rxjs';
import { ApiError } from '../../transport/index.js';
import type { RequestMethod, Transport, TransportRequest, TransportResponse } from '../../transport/index.js';

/** One API warning (a `Warning: 299` header), with the request it answered. */
export interface ApiWarning {
  /** The text, as the server wrote it: e.g. `unknown field "spec.colour"`, or an API deprecation notice. */
  readonly text: string;
  /** The method of the request that received it. */
  readonly method: RequestMethod;
  /** The path of that request. */
  readonly path: string;
}

/** Receives each warning a client's requests receive, successful or refused. */
export type WarningHandler = (warning: ApiWarning) => void;

/** Distinct texts the default handler has printed; bounded, so a stream of unique texts cannot grow it forever. */
const printed = new Set<string>();
const PRINTED_MAX = 1024;

/**
 * The default {@link WarningHandler}, as controller-runtime's: each distinct text once per process, as a process
 * warning of type `KubernetesWarning` (printed on stderr; `process.on('warning')` receives it).
 *
 * # Caveats
 * - Deduplicates by text across every client of the process; after 1024 distinct texts it starts over, so a text
 *   may then be printed again.
 */
export const printWarningOnce: WarningHandler = (warning) => {
  if (printed.has(warning.text)) return;
  if (printed.size >= PRINTED_MAX) printed.clear();
  printed.add(warning.text);
  process.emitWarning(warning.text, { type: 'KubernetesWarning', detail: `${warning.method} ${warning.path}` });
};

/** Hands `texts` to `handler`; a handler that throws is reported as a process warning, and the rest still go. */
export function deliverWarnings(handler: WarningHandler, method: RequestMethod, path: string, texts: readonly string[] | undefined): void {
  for (const text of texts ?? []) {
    try {
      handler({ text, method, path });
    } catch (error) {
      process.emitWarning(error instanceof Error ? error : new Error(String(error)), { type: 'KubernetesWarningHandlerError' });
    }
  }
}

/**
 * `transport.request(request)`, with the warnings of its answer handed to `handler` (through `deliverWarnings`)
 * before the answer, or the `ApiError` of a refusal, reaches the subscriber. Every writer of the client layer sends
 * through it, so no warning is dropped on the way.
 */
export function requestWithWarnings(transport: Transport, request: TransportRequest, handler: WarningHandler): Observable<TransportResponse> {
  const warn = (texts: readonly string[] | undefined): void => deliverWarnings(handler, request.method, request.path, texts);
  return transport.request(request).pipe(
    tap({ next: (response) => warn(response.warnings), error: (error: unknown) => warn(error instanceof ApiError ? error.warnings : []) }),
  );
}
