/**
 * Summarizes a V8 CPU profile (`.cpuprofile`, as written by `node --cpu-prof` or the inspector's `Profiler.stop`)
 * into self time by function and by area, and renders a before/after table of two summaries.
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Self time of one function (or one V8 pseudo-frame such as `(garbage collector)`). */
export interface FunctionTime {
  readonly name: string;
  readonly area: string;
  readonly selfMs: number;
  readonly percent: number;
}

export interface ProfileSummary {
  /** What was profiled, e.g. `rxkube, 100,000 MODIFIED into a 100,000-object cache`. */
  readonly what: string;
  /** Sampled time, idle excluded. */
  readonly busyMs: number;
  readonly events: number;
  readonly functions: readonly FunctionTime[];
  readonly areas: readonly { readonly area: string; readonly selfMs: number; readonly percent: number }[];
}

/** Which part of the stack a frame belongs to, from its script URL. */
function areaOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === '') {
    if (functionName === '(garbage collector)') return 'GC (main thread)';
    if (functionName === '(program)') return 'V8/native (unattributed)';
    if (functionName === '(idle)') return 'idle';
    return 'built-ins (JSON.parse, …)';
  }
  const inRepo = /\/(src|bench)\/([^/]+)\//.exec(url);
  if (inRepo !== null && !url.includes('node_modules'))
    return inRepo[1] === 'bench' ? 'benchmark harness' : `rxkube ${inRepo[2]}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg !== null) return pkg[1]!;
  if (url.startsWith('node:')) {
    if (/node:(_http|http|net|stream|internal\/(streams|http|net|stream_base))/.test(url))
      return 'node: http, net, streams';
    return 'node: other';
  }
  return 'other';
}

function shortUrl(url: string): string {
  const inRepo = /\/((?:src|bench)\/.*)$/.exec(url);
  if (inRepo !== null && !url.includes('node_modules')) return inRepo[1]!;
  const pkg = /node_modules\/(.*)$/.exec(url);
  if (pkg !== null) return pkg[1]!;
  return url.replace(/^node:internal\//, 'node:');
}

/** Self time per function from the profile at `path`; `events` is how many events the profiled window processed. */
export function summarizeProfile(path: string, what: string, events: number, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const byFunction = new Map<string, { frame: CallFrame; us: number }>();
  for (let i = 0; i < profile.samples.length; i++) {
    const frame = frames.get(profile.samples[i]!)!;
    // The delta before sample i+1 is the time spent in sample i.
    const us = profile.timeDeltas[i + 1] ?? 0;
    // tsx's transpiled modules report line 0 for every function; a line number is only shown where it is real.
    const line = frame.lineNumber > 0 ? `:${frame.lineNumber + 1}` : '';
    const name =
      frame.url === '' ? frame.functionName : `${frame.functionName || '(anonymous)'} ${shortUrl(frame.url)}${line}`;
    const entry = byFunction.get(name);
    if (entry === undefined) byFunction.set(name, { frame, us });
    else entry.us += us;
  }
  const busy = [...byFunction.values()].filter((e) => areaOf(e.frame) !== 'idle');
  const busyUs = busy.reduce((sum, e) => sum + e.us, 0);
  const areas = new Map<string, number>();
  for (const e of busy) areas.set(areaOf(e.frame), (areas.get(areaOf(e.frame)) ?? 0) + e.us);
  const percent = (us: number): number => (100 * us) / busyUs;
  return {
    what,
    busyMs: busyUs / 1000,
    events,
    functions: [...byFunction.entries()]
      .filter(([, e]) => areaOf(e.frame) !== 'idle')
      .sort((a, b) => b[1].us - a[1].us)
      .slice(0, top)
      .map(([name, e]) => ({ name, area: areaOf(e.frame), selfMs: e.us / 1000, percent: percent(e.us) })),
    areas: [...areas.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([area, us]) => ({ area, selfMs: us / 1000, percent: percent(us) })),
  };
}

const usPerEvent = (ms: number, events: number): string => ((1000 * ms) / events).toFixed(2);

/** Markdown for one summary: by area, then the top functions by self time; times are µs per event. */
export function renderProfile(summary: ProfileSummary, title: string): string[] {
  const lines = [
    `**${title}**: ${summary.what}; ${summary.busyMs.toFixed(0)} ms sampled (idle excluded), ` +
      `${usPerEvent(summary.busyMs, summary.events)} µs per event.`,
    '',
    '| area | µs/event | % |',
    '|---|---:|---:|',
    ...summary.areas
      .filter((a) => a.percent >= 0.5)
      .map((a) => `| ${a.area} | ${usPerEvent(a.selfMs, summary.events)} | ${a.percent.toFixed(1)} |`),
    '',
    '| function (self time) | area | µs/event | % |',
    '|---|---|---:|---:|',
    ...summary.functions.map(
      (f) =>
        `| \`${f.name.replace(/\|/g, '\\|')}\` | ${f.area} | ${usPerEvent(f.selfMs, summary.events)} | ${f.percent.toFixed(1)} |`,
    ),
    '',
  ];
  return lines;
}
