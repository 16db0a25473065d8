/**
 * The oracles of the controller faults: eventually stable, idempotent, crash safe, and no destructive action on a
 * stale read. They read the controller's own writes, as its view ({@link controllerView}) records them.
 * @module
 */
import { Observable } from 'rxjs';
import type { TransportResponse } from '../../transport/index.js';
import type { ControllerWrite } from './controller-view.js';
import type { Invariants } from './types.js';

/** A write of the controller and whether the server carried it out (undefined: no answer yet, or none arrived). */
export interface RecordedWrite extends ControllerWrite {
  ok?: boolean;
}

/**
 * Records every write of the controller in `writes`, and its outcome once it is answered; each write is a trace
 * line too (`write DELETE /api/v1/...`, with `stale` when the controller's view lagged), so that checks and
 * pictures see them.
 */
export function writeRecorder(
  writes: RecordedWrite[],
  log: (line: string) => void,
): (write: ControllerWrite, outcome: Observable<TransportResponse>) => Observable<TransportResponse> {
  return (write, outcome) => {
    const recorded: RecordedWrite = { ...write };
    writes.push(recorded);
    log(`write ${write.method} ${write.path}${write.stale ? ' stale' : ''}`);
    return new Observable<TransportResponse>((subscriber) =>
      outcome.subscribe({
        next: (response) => {
          recorded.ok = true;
          subscriber.next(response);
        },
        error: (error: unknown) => {
          recorded.ok = false;
          subscriber.error(error);
        },
        complete: () => subscriber.complete(),
      }),
    );
  };
}

/** The violations of the write oracles of `invariants` at `now`, over the run's writes. */
export function writeViolations(invariants: Invariants, writes: readonly RecordedWrite[], now: number): string[] {
  const violations: string[] = [];
  if (invariants.stableFor !== undefined) {
    const late = writes.filter((write) => write.at > now - invariants.stableFor!);
    if (late.length > 0)
      violations.push(
        `eventually stable does not hold: ${late.length} write(s) in the last ${invariants.stableFor} ms, the last ${describe(late.at(-1)!)}`,
      );
  }
  return violations;
}

/**
 * The deletes that break "no destructive action on stale reads": carried out while the controller's view lagged,
 * without a resourceVersion precondition, of an object that the same run with a true view (`honest`, the deletes of
 * the twin run without stale views and merged events) never deleted, and that `invariants.noStaleDeletes` does not
 * allow.
 */
export function staleDeleteViolations(
  invariants: Invariants,
  writes: readonly RecordedWrite[],
  honest: ReadonlySet<string>,
): string[] {
  const allow = invariants.noStaleDeletes;
  if (allow === undefined || allow === false) return [];
  return writes
    .filter((write) => write.method === 'DELETE' && write.stale && !write.preconditioned && write.ok === true)
    .filter((write) => !honest.has(write.path) && !(typeof allow === 'function' && allow(write.path)))
    .map(
      (write) =>
        `no destructive action on stale reads does not hold: ${describe(write)} while the controller's view lagged, without a resourceVersion precondition; with a true view it was never deleted`,
    );
}

/** The paths the run deleted, carried out. */
export function deletedPaths(writes: readonly RecordedWrite[]): Set<string> {
  return new Set(writes.filter((write) => write.method === 'DELETE' && write.ok === true).map((write) => write.path));
}

/** The violation of idempotence: writes of a fresh controller over a converged state, or none. */
export function idempotenceViolation(writes: readonly RecordedWrite[], within: number): string[] {
  if (writes.length === 0) return [];
  return [
    `idempotence does not hold: a fresh controller over the final state wrote ${writes.length} time(s) within ${within} ms, the first ${describe(writes[0]!)}`,
  ];
}

function describe(write: ControllerWrite): string {
  return `${write.method} ${write.path} at ${write.at} ms`;
}
