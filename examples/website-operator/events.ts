/**
 * The Events the operator records about Websites, one per state change, and a printed line for each, so that a
 * person running the example sees what Kubernetes users see with `kubectl events`.
 * @module
 */
import { EMPTY, filter, ignoreElements, tap, type Observable } from 'rxjs';
import type { EventDetails, EventRecorder } from '../../src/index.js';
import type { EventReference, EventReport } from '../../src/extend.js';
import { messageOf } from '../shared/health.js';
import { WEBSITE, type WebsiteId } from './website.js';

/** Every `reason` the operator uses, besides the `Degraded` reasons (`ApplyFailed`, `InvalidDefaults`, …). */
export const REASONS = {
  /** An owned object was created or changed by the operator's apply. */
  created: 'Created',
  updated: 'Updated',
  /** Another manager owned fields the operator applies; the operator took them back. */
  fieldConflict: 'FieldConflict',
  /** The DNS record was written (created or changed). */
  recordWritten: 'RecordWritten',
  /** The Website is being deleted and its DNS record is gone. */
  cleanedUp: 'CleanedUp',
  /** Condition flips. */
  ready: 'Ready',
  notReady: 'NotReady',
  rollingOut: 'RollingOut',
  recovered: 'Recovered',
} as const;

/** How the reconciler records and prints. */
export interface WebsiteEvents {
  /** Records an Event about the Website (when there is a recorder) and prints its line. */
  record(id: WebsiteId, details: EventDetails): void;
  /** While subscribed, prints a line for each of these Events the recorder lost (refused, gave up, dropped). */
  readonly lost$: Observable<never>;
}

/** The Event's `regarding`: from {@link WEBSITE} and the Website's identity, which is what a run passes around. */
export function websiteReference(id: WebsiteId): EventReference {
  return { apiVersion: WEBSITE.apiVersion, kind: WEBSITE.kind, namespace: id.namespace, name: id.name, uid: id.uid };
}

/** `Normal Created website default/blog: created Deployment blog`. */
export function eventLine(id: WebsiteId, details: EventDetails): string {
  return `${details.type} ${details.reason} website ${id.key}: ${details.note ?? details.action}`;
}

/**
 * Events through `recorder` (the manager's, shared with other controllers), printed with `print`.
 *
 * # Guarantees
 * - Every call prints its line, with or without a recorder.
 * - A lost Event of the operator's prints `Event <reason> about website <key> not written: <why>` (or `dropped`,
 *   or `refused`) while `lost$` is subscribed: Events about Websites the recorder gave up on or dropped, and
 *   refusals of the operator's own calls (the recorder refuses synchronously, during the call).
 */
export function websiteEvents(recorder: EventRecorder | undefined, print: (line: string) => void): WebsiteEvents {
  let recording = false;
  const ours = (report: EventReport): boolean =>
    report.type === 'rejected'
      ? recording
      : report.event.regarding.kind === WEBSITE.kind && report.event.regarding.apiVersion === WEBSITE.apiVersion;
  return {
    record: (id, details) => {
      print(eventLine(id, details));
      if (recorder === undefined) return;
      recording = true;
      try {
        recorder.event(websiteReference(id), details);
      } finally {
        recording = false;
      }
    },
    lost$:
      recorder === undefined
        ? EMPTY
        : recorder.reports$.pipe(
            filter(ours),
            tap((report) => {
              if (report.type === 'rejected') print(`Event refused: ${messageOf(report.error)}`);
              else if (report.type === 'failed')
                print(
                  `Event ${report.event.reason} about website ${about(report)} not written: ${messageOf(report.error)}`,
                );
              else if (report.type === 'dropped')
                print(`Event ${report.event.reason} about website ${about(report)} dropped (${report.reason})`);
            }),
            ignoreElements(),
          ),
  };
}

function about(report: Extract<EventReport, { event: unknown }>): string {
  return `${report.event.regarding.namespace}/${report.event.regarding.name}`;
}
