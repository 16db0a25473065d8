/**
 * Lease-fenced sharding: a controller's hash ranges split among its live replicas, each range held through a Lease
 * with leader election's protocol, and the per-key gate that lets a replica run only the keys of its ranges.
 * @packageDocumentation
 */
export { DEFAULT_SHARD_RANGES, shardLeases } from './shard-leases.js';
export { fairShare, surplus } from './fair-share.js';
export { memberLeaseName, rangeLeaseName } from './names.js';
export type { ShardEvent, ShardLeasesOptions, ShardState } from './types.js';
export { DELETED_KEYS_REMEMBERED, KeyRanges, rangeIndex, type PrimaryCache } from './key-ranges.js';
export { RangeGate } from './range-gate.js';
export { rangeSelectedInformer } from './selected-informer.js';
