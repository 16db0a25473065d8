/**
 * The virtual cluster: the in-memory API server served in process, in virtual time.
 * @module
 */
export { virtualCluster } from './cluster.js';
export type { ExchangeEvent } from './exchange.js';
export type {
  ConflictKeyOptions,
  NetworkFaultOptions,
  NetworkFaults,
  PartitionOptions,
  RawExchangeRequest,
  RawExchangeResponse,
  VirtualCluster,
  VirtualClusterOptions,
  VirtualDelay,
  VirtualFaults,
  VirtualLink,
  VirtualLinkOptions,
  VirtualNetworkOptions,
  VirtualRequestInfo,
  WarnNextOptions,
} from './types.js';
