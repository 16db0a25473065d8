/**
 * Hash sharding as kube-apiserver 1.36 serves it (KEP-5866, feature gate `ShardedListAndWatch`): the 64-bit FNV-1a
 * hash of `metadata.uid` or `metadata.namespace` (`sharding.fnv1a64`, `sharding.shardHash`), hash ranges
 * (`sharding.splitHashSpace`, `sharding.matchesShard`), and the `shardSelector` text lists and watches take
 * (`sharding.parseShardSelector`, `sharding.formatShardSelector`), with the server's errors
 * (`sharding.ShardSelectorError`).
 * @packageDocumentation
 */
export { fnv1a64 } from './hash.js';
export { hashSpaceEnd, matchesShard, shardHash, splitHashSpace } from './ranges.js';
export type { ShardField, ShardRange, ShardedObject } from './ranges.js';
export { formatShardSelector, parseShardSelector, ShardSelectorError } from './selector.js';
