/**
 * The JSON-lines format of a recording: one line per WatchEvent or ReconcileEvent, with its time.
 * @module
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ReconcileEvent } from '../../controller/index.js';
import { messageOf } from '../../describe/index.js';
import type { WatchEvent } from '../../watch/index.js';

/**
 * A ReconcileEvent as recorded: its decision (type, key, attempt, reasons, delays, failure count) and the error's
 * message. Durations and queue waits are left out: they measure the machine, not the controller.
 */
export interface RecordedReconcileEvent {
  readonly type: ReconcileEvent['type'];
  readonly key?: string;
  readonly attempt?: number;
  readonly reasons?: readonly string[];
  readonly delayMs?: number;
  readonly failures?: number;
  readonly terminal?: boolean;
  readonly error?: string;
}

/**
 * One line of a recording.
 * - `watch`: a reflector delta of stream `stream` (by default `apiVersion/kind`, plus `/namespace` when the watch
 *   was namespaced).
 * - `reconcile`: one of the controller's events.
 *
 * `t` is milliseconds since the recorder was created, on its scheduler.
 */
export type RecordLine =
  | { readonly t: number; readonly kind: 'watch'; readonly stream: string; readonly event: WatchEvent<KubernetesObject> }
  | { readonly t: number; readonly kind: 'reconcile'; readonly event: RecordedReconcileEvent };

/** The recorded form of a ReconcileEvent. */
export function recordReconcileEvent(event: ReconcileEvent): RecordedReconcileEvent {
  if (event.type === 'rejected') return { type: 'rejected', error: event.error.message };
  const base = { type: event.type, key: event.key, attempt: event.attempt, reasons: [...event.reasons] };
  switch (event.type) {
    case 'started': case 'succeeded': return base;
    case 'requeued': return { ...base, delayMs: event.delayMs };
    case 'failed': return { ...base, terminal: event.terminal, error: messageOf(event.error) };
    case 'retrying': return { ...base, delayMs: event.delayMs, failures: event.failures, error: messageOf(event.error) };
    case 'dropped': return { ...base, failures: event.failures, error: messageOf(event.error) };
  }
}

/**
 * Reads a recording: a JSON-lines text, or its lines. Blank lines are skipped.
 *
 * # Guarantees
 * - A line that is not JSON, or not a record of this format, throws a `SyntaxError`/`TypeError` naming its line
 *   number; nothing is skipped silently.
 */
export function parseRecording(recording: string | readonly string[]): RecordLine[] {
  const lines = typeof recording === 'string' ? recording.split('\n') : recording;
  const records: RecordLine[] = [];
  lines.forEach((text, index) => {
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new SyntaxError(`recording line ${index + 1} is not JSON: ${messageOf(error)}`);
    }
    const line = value as Partial<RecordLine> & { stream?: unknown };
    const valid = typeof line === 'object' && line !== null && typeof line.t === 'number' && Number.isFinite(line.t)
      && typeof line.event === 'object' && line.event !== null && typeof (line.event as { type?: unknown }).type === 'string'
      && (line.kind === 'reconcile' || (line.kind === 'watch' && typeof line.stream === 'string'));
    if (!valid) throw new TypeError(`recording line ${index + 1} is not a watch or reconcile record: ${text.slice(0, 200)}`);
    records.push(line as RecordLine);
  });
  return records;
}
