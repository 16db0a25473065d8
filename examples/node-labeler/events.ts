/**
 * Where the node labeler's Events go, and who says when one is lost: its own recorder (standalone), a recorder the
 * caller gave it, or the manager's.
 * @module
 */
import { EMPTY, filter, ignoreElements, tap, type Observable } from 'rxjs';
import type { EventRecorder } from '../../src/index.js';
import type { EventReport } from '../../src/extend.js';
import { messageOf } from '../shared/health.js';
import { LABEL_ACTION, LABEL_FAILED_REASON, LABELED_REASON } from './handle-node.js';

/** How the labeler records its Events over one run. */
export interface LabelerEvents {
  /** What runs record with; `undefined` records nothing. */
  readonly recorder: EventRecorder | undefined;
  /** The labeler's Events that were lost (given up, dropped, refused), printed while the labeler runs. */
  readonly lost$: Observable<EventReport>;
  /** Subscribed after the drain, before the labeler completes: the Events still queued are written. */
  readonly flush$: Observable<never>;
  /** Called when the labeler is unsubscribed without a drain. */
  readonly abandon: () => void;
}

/**
 * A recorder of the labeler's own: every report of its is the labeler's; it is closed (flushed) after a drain, and
 * what it still holds is given up at once on an unsubscription.
 */
export function ownEvents(recorder: EventRecorder, print: (line: string) => void): LabelerEvents {
  return {
    recorder,
    lost$: recorder.reports$,
    flush$: recorder.close().pipe(
      tap((result) => {
        if (!result.complete) print(`Gave up writing ${result.pending} Event(s) at shutdown`);
      }),
      ignoreElements(),
    ),
    // Closing twice is harmless: after a drain this finds the recorder closed already.
    abandon: () => void recorder.close({ timeoutMs: 0 }).subscribe(),
  };
}

/** A recorder the caller gave: theirs to close, and theirs to watch. */
export function callerEvents(recorder: EventRecorder): LabelerEvents {
  return { recorder, lost$: EMPTY, flush$: EMPTY, abandon: () => undefined };
}

/**
 * The manager's recorder, shared with its other controllers: the manager flushes it on its graceful stop (and logs
 * how that went) but says nothing about a single lost Event, so the labeler watches its own. Those are the Events
 * it records (a Node, action `AddLabel`), and the refusals of its own `event()` calls, told apart from other
 * controllers' by happening during them (the recorder refuses synchronously).
 */
export function managerEvents(shared: EventRecorder): LabelerEvents {
  let recording = false;
  const recorder: EventRecorder = {
    reportingController: shared.reportingController,
    reportingInstance: shared.reportingInstance,
    reports$: shared.reports$,
    counts: () => shared.counts(),
    flush: (options) => shared.flush(options),
    close: (options) => shared.close(options),
    event: (regarding, details) => {
      recording = true;
      try {
        shared.event(regarding, details);
      } finally {
        recording = false;
      }
    },
  };
  const ours = (report: EventReport): boolean =>
    report.type === 'rejected' ? recording : isLabelerEvent(report.event);
  return { recorder, lost$: shared.reports$.pipe(filter(ours)), flush$: EMPTY, abandon: () => undefined };
}

/** No recorder (a manager with `events: false`): nothing is recorded, which the labeler says once. */
export const NO_EVENTS: LabelerEvents = { recorder: undefined, lost$: EMPTY, flush$: EMPTY, abandon: () => undefined };

function isLabelerEvent(event: {
  readonly action?: string;
  readonly reason?: string;
  readonly regarding?: { readonly kind?: string };
}): boolean {
  return (
    event.regarding?.kind === 'Node' &&
    event.action === LABEL_ACTION &&
    (event.reason === LABELED_REASON || event.reason === LABEL_FAILED_REASON)
  );
}

/** Prints a line for an Event that was lost: given up, dropped or refused. Other reports print nothing. */
export function printLostEvent(report: EventReport, print: (line: string) => void): void {
  if (report.type === 'rejected') print(`Event refused: ${messageOf(report.error)}`);
  else if (report.type === 'failed')
    print(
      `Event ${report.event.reason} for node ${report.event.regarding.name} not written: ${messageOf(report.error)}`,
    );
  else if (report.type === 'dropped')
    print(`Event ${report.event.reason} for node ${report.event.regarding.name} dropped (${report.reason})`);
}
