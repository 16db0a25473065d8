/**
 * The JSON-lines format of a recording: one line per WatchEvent or ReconcileEvent, with its time.
 * @module
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { messageOf } from '../../error-messages/index.js';
import { parseJson } from '../../transport/index.js';
import type { ReconcileEvent } from 'rxkube';
import type { WatchEvent } from 'rxkube/extend';

/**
 * A ReconcileEvent as recorded: its decision (type, key, attempt, reasons, delays, failure count) and the error's
 * message. Durations and queue waits are left out: they measure the machine, not the controller.
 */
export interface RecordedReconcileEvent {
  /** The event's type, as on the ReconcileEvent (a terminal failure is `failed` with `terminal: true`). */
  readonly type: ReconcileEvent['type'];
  /** The key the event is about; absent on `rejected` events, which belong to no key. */
  readonly key?: string;
  /** The attempt number of the run the event belongs to; absent on `rejected` events. */
  readonly attempt?: number;
  /** The run's coalesced trigger reasons, copied; absent on `rejected` events. */
  readonly reasons?: readonly string[];
  /**
   * The effective delay before the key runs again, ms, on `requeued` and `retrying` only. It was measured on the
   * recorder's scheduler (wall time by default), so a delay cut short by a fresh trigger shows as 0.
   */
  readonly delayMs?: number;
  /** Consecutive failures of the key, on `retrying` (so far) and `dropped` (the last one included) only. */
  readonly failures?: number;
  /** On `failed` only: whether the error was a `TerminalError` (the key is not retried). */
  readonly terminal?: boolean;
  /**
   * The error's message only (not its class, stack or cause), on `failed`, `retrying`, `dropped` and `rejected`:
   * a recording is JSON, and two errors with the same message read as the same.
   */
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
  | {
      /** When the event passed, ms since the recorder was created, on the recorder's scheduler (wall time by default). */
      readonly t: number;
      /** Discriminates the line: a reflector delta. */
      readonly kind: 'watch';
      /**
       * The stream the delta belongs to: `apiVersion/kind`, plus `/namespace` for a namespaced watch, when recorded by
       * `Recorder.source` (the name `replay` serves it under); whatever name was given to `Recorder.watchEvents`.
       */
      readonly stream: string;
      /** The delta, with its object whole (as the informer received it, after its `transform`). */
      readonly event: WatchEvent<KubernetesObject>;
    }
  | {
      /** When the event passed, ms since the recorder was created, on the recorder's scheduler (wall time by default). */
      readonly t: number;
      /** Discriminates the line: one of the controller's events. */
      readonly kind: 'reconcile';
      /** The event's decision, without durations or queue waits. */
      readonly event: RecordedReconcileEvent;
    };

/** The recorded form of a ReconcileEvent. */
export function recordReconcileEvent(event: ReconcileEvent): RecordedReconcileEvent {
  if (event.type === 'rejected') return { type: 'rejected', error: event.error.message };
  const base = { type: event.type, key: event.key, attempt: event.attempt, reasons: [...event.reasons] };
  switch (event.type) {
    case 'started':
    case 'succeeded':
    case 'released':
      return base;
    case 'requeued':
      return { ...base, delayMs: event.delayMs };
    case 'failed':
      return { ...base, terminal: event.terminal, error: messageOf(event.error) };
    case 'retrying':
      return { ...base, delayMs: event.delayMs, failures: event.failures, error: messageOf(event.error) };
    case 'dropped':
      return { ...base, failures: event.failures, error: messageOf(event.error) };
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
      value = parseJson(text);
    } catch (error) {
      throw new SyntaxError(`recording line ${index + 1} is not JSON: ${messageOf(error)}`);
    }
    const line = value as Partial<RecordLine> & { stream?: unknown };
    const valid =
      typeof line === 'object' &&
      line !== null &&
      typeof line.t === 'number' &&
      Number.isFinite(line.t) &&
      typeof line.event === 'object' &&
      line.event !== null &&
      typeof (line.event as { type?: unknown }).type === 'string' &&
      (line.kind === 'reconcile' || (line.kind === 'watch' && typeof line.stream === 'string'));
    if (!valid)
      throw new TypeError(`recording line ${index + 1} is not a watch or reconcile record: ${text.slice(0, 200)}`);
    records.push(line as RecordLine);
  });
  return records;
}
