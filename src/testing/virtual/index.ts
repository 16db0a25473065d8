/**
 * The virtual cluster: the in-memory API server served in process, in virtual time.
 * @module
 */
export { virtualCluster } from './cluster.js';
export type { ExchangeEvent } from './exchange.js';
export type {
  ConflictKeyOptions, RawExchangeRequest, RawExchangeResponse, VirtualCluster, VirtualClusterOptions, VirtualFaults,
} from './types.js';
