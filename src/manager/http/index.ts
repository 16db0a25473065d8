/**
 * The manager's HTTP servers: metrics and probes.
 * @packageDocumentation
 */
export { serve, type RequestHandler } from './server.js';
export { metricsRoutes, probeRoutes, type ProbeChecks } from './routes.js';
