/**
 * `traceHtml`: a simulation's trace, or a recording, as one self-contained HTML page: keys against virtual time, with
 * each reconcile run, write, workload step, fault and violation.
 * @module
 */
import { parseRecording } from '../record/index.js';

/** What {@link traceHtml} draws: a run's trace (as `simulate` reports it), or a `recorder` recording. */
export type TraceSource =
  | {
      /** Trace lines, `<ms> <text>`, as `SimulationReport.trace` or `SimulationFailure.trace`. */
      readonly trace: readonly string[];
      /** A failure of `simulate`, when there is one: its violations and shrunk steps are drawn and linked. */
      readonly failure?: {
        /** What the checks found wrong, each line naming the object it concerns. */
        readonly violations: readonly string[];
        /** The shrunk steps that led to the violations, in order. */
        readonly steps: readonly string[];
      };
      /** Violations of a run (`ScenarioRun.violations`), when there is no `failure`. */
      readonly violations?: readonly string[];
    }
  | {
      /** A `recorder` recording: its JSON lines, as one string or an array. */
      readonly recording: string | readonly string[];
    };

/** Options of {@link traceHtml}. */
export interface TraceHtmlOptions {
  /** The page's title (default `rxkube trace`). */
  readonly title?: string;
  /** The width of the timeline, px (default 1200). */
  readonly width?: number;
}

/** One thing drawn: a mark at `t` (or a bar to `end`) on the row of `row`. */
interface Mark {
  readonly t: number;
  end?: number;
  readonly row: string;
  readonly kind: 'run' | 'write' | 'step' | 'fault' | 'watch' | 'other';
  readonly text: string;
  readonly id: string;
  failed?: boolean;
}

const FAULT_ROW = 'faults';
const WORKLOAD_ROW = 'workload';

/**
 * Renders a run's trace, or a recording, as one HTML page with no outside resources: a row per key (and rows for the
 * workload and the faults), reconcile runs as bars from `started` to their outcome, writes, workload steps and
 * faults as marks at their virtual time, each with its trace line as a tooltip; under it, every violation with
 * links to the steps that led to it.
 *
 * # Guarantees
 * - Self-contained: inline CSS and SVG, and one inline script that only stamps what was laid out (`data-rendered`
 *   on `<body>`: the counts of runs, writes and faults drawn) for headless checks.
 * - Every text of the trace is escaped: an object name cannot inject markup.
 * - Deterministic: the same source gives the same page, byte for byte.
 *
 * # Caveats
 * - Made to be looked at, not read: a 2,000-step trace is a dense picture; hover a mark for its line.
 * - A write is drawn on the row of the run in flight when it was sent (the last one started), else on its own row.
 */
export function traceHtml(source: TraceSource, options: TraceHtmlOptions = {}): string {
  const marks = 'recording' in source ? recordingMarks(source.recording) : traceMarks(source.trace);
  const violations = 'recording' in source ? [] : (source.failure?.violations ?? source.violations ?? []);
  const width = options.width ?? 1200;
  const title = options.title ?? 'rxkube trace';
  const rows = rowsOf(marks);
  const last = Math.max(1, ...marks.map((mark) => mark.end ?? mark.t));
  const x = (t: number): number => 160 + (t / last) * (width - 170);
  const rowHeight = 18;
  const height = rows.length * rowHeight + 30;
  const y = (row: string): number => 20 + rows.indexOf(row) * rowHeight;
  const svg: string[] = [];
  rows.forEach((row) => {
    svg.push(`<text class="label" x="4" y="${y(row) + 12}">${escapeHtml(clip(row, 24))}</text>`);
    svg.push(`<line class="grid" x1="160" x2="${width}" y1="${y(row) + 16}" y2="${y(row) + 16}"/>`);
  });
  for (const mark of marks) {
    const top = y(mark.row);
    const tip = `<title>${escapeHtml(`${mark.t} ${mark.text}`)}</title>`;
    const attributes = `id="${mark.id}" class="${mark.kind}${mark.failed ? ' failed' : ''}" data-t="${mark.t}"`;
    if (mark.kind === 'run') {
      const w = Math.max(2, x(mark.end ?? mark.t) - x(mark.t));
      svg.push(
        `<rect ${attributes} x="${x(mark.t).toFixed(1)}" y="${top + 3}" width="${w.toFixed(1)}" height="11">${tip}</rect>`,
      );
    } else if (mark.kind === 'fault') {
      svg.push(
        `<g ${attributes}><line x1="${x(mark.t).toFixed(1)}" x2="${x(mark.t).toFixed(1)}" y1="14" y2="${height - 10}"/><circle cx="${x(mark.t).toFixed(1)}" cy="${top + 8}" r="5"/>${tip}</g>`,
      );
    } else {
      svg.push(`<circle ${attributes} cx="${x(mark.t).toFixed(1)}" cy="${top + 8}" r="3.5">${tip}</circle>`);
    }
  }
  const steps = marks.filter((mark) => mark.kind === 'step' || mark.kind === 'fault');
  const list = violations
    .map((violation) => {
      const led = steps.filter((step) => mentions(violation, step.text));
      const links = (led.length > 0 ? led : steps)
        .map((step) => `<li><a href="#${step.id}">${escapeHtml(`${step.t} ${step.text}`)}</a></li>`)
        .join('');
      return `<li class="violation">${escapeHtml(violation)}<ul>${links}</ul></li>`;
    })
    .join('');
  const counts = (kind: Mark['kind']): number => marks.filter((mark) => mark.kind === kind).length;
  return [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>`,
    `<body><h1>${escapeHtml(title)}</h1>`,
    `<p>${counts('run')} runs, ${counts('write')} writes, ${counts('step')} workload steps, ${counts('fault')} faults, ${violations.length} violations, ${last} ms</p>`,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${svg.join('')}</svg>`,
    violations.length > 0 ? `<h2>Violations</h2><ol>${list}</ol>` : '',
    `<script>${STAMP}</script>`,
    '</body></html>',
  ].join('\n');
}

/** The rows: the workload and the faults first, then every key in order of appearance. */
function rowsOf(marks: readonly Mark[]): string[] {
  const rows = [WORKLOAD_ROW, FAULT_ROW];
  for (const mark of marks) if (!rows.includes(mark.row)) rows.push(mark.row);
  return rows;
}

const LINE = /^(\d+) (.*)$/;

function traceMarks(trace: readonly string[]): Mark[] {
  const marks: Mark[] = [];
  const open = new Map<string, Mark>();
  let current: string | undefined;
  trace.forEach((line, index) => {
    const match = LINE.exec(line);
    if (match === null) return;
    const t = Number(match[1]);
    const text = match[2]!;
    const id = `m${index}`;
    const started = /^started (\S+)#\d+$/.exec(text);
    if (started) {
      const run: Mark = { t, row: started[1]!, kind: 'run', text, id };
      open.set(started[1]!, run);
      marks.push(run);
      current = started[1];
      return;
    }
    const ended = /^(succeeded|failed|requeued|retrying|dropped|released) (\S+?)(:| |$)/.exec(text);
    if (ended) {
      const run = open.get(ended[2]!);
      if (run !== undefined) {
        run.end = t;
        if (ended[1] === 'failed' || ended[1] === 'dropped') run.failed = true;
        open.delete(ended[2]!);
      }
      if (current === ended[2]) current = undefined;
      return;
    }
    if (text.startsWith('write ')) marks.push({ t, row: current ?? 'writes', kind: 'write', text, id });
    else if (/^(fault |controller crashed|controller restarted)/.test(text))
      marks.push({ t, row: FAULT_ROW, kind: 'fault', text, id });
    else if (/^(create|update|delete) /.test(text)) marks.push({ t, row: WORKLOAD_ROW, kind: 'step', text, id });
  });
  return marks;
}

function recordingMarks(recording: string | readonly string[]): Mark[] {
  const marks: Mark[] = [];
  const open = new Map<string, Mark>();
  parseRecording(recording).forEach((line, index) => {
    const id = `m${index}`;
    if (line.kind === 'watch') {
      const metadata = (line.event as { object?: { metadata?: { namespace?: string; name?: string } } }).object
        ?.metadata;
      const key =
        metadata?.name === undefined
          ? line.stream
          : `${metadata.namespace ? `${metadata.namespace}/` : ''}${metadata.name}`;
      marks.push({ t: line.t, row: key, kind: 'watch', text: `${line.stream} ${line.event.type}`, id });
      return;
    }
    const { event } = line;
    const key = event.key ?? 'rejected';
    if (event.type === 'started') {
      const run: Mark = { t: line.t, row: key, kind: 'run', text: `started ${key}#${event.attempt ?? 1}`, id };
      open.set(key, run);
      marks.push(run);
    } else {
      const run = open.get(key);
      if (run === undefined) return;
      run.end = line.t;
      if (event.type === 'failed' || event.type === 'dropped') run.failed = true;
      open.delete(key);
    }
  });
  return marks;
}

/** Whether a violation names what a step touches: a `create`/`update`/`delete`'s object, a fault's kind. */
function mentions(violation: string, step: string): boolean {
  const target = /^(?:create|update|delete) (?:[^/\s]+\/)?(\S+)/.exec(step)?.[1];
  return target !== undefined && new RegExp(`\\b${target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(violation);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function clip(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

const STYLE = [
  'body{font:13px system-ui,sans-serif;margin:16px;color:#222}',
  '.label{font:11px monospace;fill:#444}',
  '.grid{stroke:#eee}',
  '.run{fill:#4a90d9}.run.failed{fill:#d0021b}',
  '.write{fill:#f5a623}.step{fill:#7ed321}.watch{fill:#9b9b9b}',
  '.fault line{stroke:#bd10e0;stroke-dasharray:3 3;opacity:.5}.fault circle{fill:#bd10e0}',
  '.violation{color:#d0021b;margin-bottom:8px}.violation ul{color:#222}',
].join('');

/** Stamps what was laid out: a headless browser's check that the page rendered, not only parsed. */
const STAMP = [
  'const drawn=(s)=>[...document.querySelectorAll(s)].filter((e)=>e.getBBox().width>0).length;',
  "document.body.dataset.rendered=JSON.stringify({runs:drawn('.run'),writes:drawn('.write'),faults:drawn('.fault'),steps:drawn('.step')});",
].join('');
