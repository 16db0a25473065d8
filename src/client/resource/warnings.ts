/**
 * Where the resource client sends the API server's warnings.
 */
import type { RequestMethod } from '../../transport/index.js';

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
