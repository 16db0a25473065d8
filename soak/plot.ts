/**
 * The heap plot of SOAK.md: the readings and their fit (a line, with a step where the replica led), as a small SVG.
 * @module
 */
import type { HeapSample, HeapTrend } from './checks.js';

/** An SVG of `samples` (MiB against minutes) with the fit `trend`, drawn through `fitted` (default: `samples`). */
export function heapPlot(
  samples: readonly HeapSample[],
  trend: HeapTrend | undefined,
  fitted: readonly HeapSample[] = samples,
): string {
  const width = 640;
  const height = 320;
  const pad = 48;
  if (samples.length === 0)
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><text x="20" y="40">no heap readings</text></svg>\n`;
  const t0 = samples[0]!.at;
  const xs = samples.map((s) => (s.at - t0) / 60_000);
  const ys = samples.map((s) => s.bytes / 2 ** 20);
  const xMax = Math.max(...xs, 1e-9);
  const yMax = Math.max(...ys) * 1.1;
  const px = (x: number): number => pad + (x / xMax) * (width - 2 * pad);
  const py = (y: number): number => height - pad - (y / yMax) * (height - 2 * pad);
  const dots = xs.map((x, i) => `<circle cx="${px(x).toFixed(1)}" cy="${py(ys[i]!).toFixed(1)}" r="2" fill="#36c"/>`);
  let line = '';
  if (trend !== undefined && fitted.length > 0) {
    // The fit at each fitted reading: the line, raised by the leader step where the replica led.
    const mean = (f: (s: HeapSample) => number): number => fitted.reduce((a, s) => a + f(s), 0) / fitted.length;
    const mx = mean((s) => (s.at - t0) / 60_000);
    const ml = mean((s) => (s.leading === true ? 1 : 0));
    const points = fitted.map((s) => {
      const x = (s.at - t0) / 60_000;
      const y = trend.mean + trend.slopePerMinute * (x - mx) + trend.leaderStep * ((s.leading === true ? 1 : 0) - ml);
      return `${px(x).toFixed(1)},${py(y / 2 ** 20).toFixed(1)}`;
    });
    line = `<polyline points="${points.join(' ')}" fill="none" stroke="#c33" stroke-width="2"/>`;
  }
  const title =
    trend === undefined
      ? 'heap used (MiB) of the longest-lived replica'
      : `heap used (MiB) of the longest-lived replica; slope ${(trend.slopePerMinute / 1024).toFixed(1)} ± ${(trend.standardError / 1024).toFixed(1)} KiB/min` +
        (trend.leaderStep === 0 ? '' : `, leading +${(trend.leaderStep / 2 ** 20).toFixed(1)} MiB`);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${pad}" y="24">${title}</text>`,
    `<line x1="${pad}" y1="${height - pad}" x2="${width - pad}" y2="${height - pad}" stroke="black"/>`,
    `<line x1="${pad}" y1="${pad}" x2="${pad}" y2="${height - pad}" stroke="black"/>`,
    `<text x="${width - pad}" y="${height - pad + 20}" text-anchor="end">${xMax.toFixed(1)} min</text>`,
    `<text x="${pad - 4}" y="${pad}" text-anchor="end">${yMax.toFixed(0)}</text>`,
    `<text x="${pad - 4}" y="${height - pad}" text-anchor="end">0</text>`,
    ...dots,
    line,
    '</svg>',
    '',
  ].join('\n');
}
