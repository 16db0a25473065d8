/**
 * Pictures of runs: a simulation's trace, or a recording, as one self-contained HTML page.
 * @module
 */
export { traceHtml, type TraceHtmlOptions, type TraceSource } from './trace-html.js';
