/**
 * A TCP proxy that passes, stalls or resets connections: network faults for tests and the soak.
 * @packageDocumentation
 */
export { startTcpProxy } from './tcp-proxy.js';
export type { TcpProxy, TcpProxyMode, TcpProxyOptions, TcpProxyScope } from './tcp-proxy.js';
