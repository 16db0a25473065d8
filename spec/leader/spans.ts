/**
 * The one check every leader-election spec ends with, in virtual time, on the in-memory server and across
 * processes: no two candidates ever led at the same time.
 */
import { expect } from 'chai';

/** A span `[start, end)` in which `who` led; `end` is `Infinity` while it still leads. */
export interface LeadSpan {
  readonly who: string;
  readonly start: number;
  readonly end: number;
}

/** Fails, naming both candidates, when two spans overlap. */
export function expectDisjoint(spans: readonly LeadSpan[]): void {
  const ordered = [...spans].sort((x, y) => x.start - y.start);
  for (let i = 1; i < ordered.length; i++) {
    const before = ordered[i - 1]!;
    const after = ordered[i]!;
    expect(
      after.start,
      `${after.who} led from ${after.start} while ${before.who} led until ${before.end}`,
    ).to.be.at.least(before.end);
  }
}

/** The spans of candidates that each know their own `[start, end)` list. */
export function spansOf(
  candidates: ReadonlyArray<{ readonly identity: string; spans(): ReadonlyArray<readonly [number, number]> }>,
): LeadSpan[] {
  return candidates.flatMap((c) => c.spans().map(([start, end]) => ({ who: c.identity, start, end })));
}

/** A moment a candidate started (`true`) or stopped (`false`) leading. */
export interface LeadMark {
  readonly at: number;
  readonly leading: boolean;
}

/**
 * `[start, end)` spans from marks in time order: `true` opens a span unless one is open, `false` closes the open
 * one; a span still open when the candidate exited (`exitedAt`) ends there, else at `Infinity`.
 */
export function spansFromMarks(marks: Iterable<LeadMark>, exitedAt: number | undefined): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const { at, leading } of marks) {
    const open = spans.at(-1);
    if (leading && (open === undefined || open[1] !== Infinity)) spans.push([at, Infinity]);
    if (!leading && open !== undefined && open[1] === Infinity) open[1] = at;
  }
  const open = spans.at(-1);
  if (open !== undefined && open[1] === Infinity && exitedAt !== undefined) open[1] = exitedAt;
  return spans;
}
