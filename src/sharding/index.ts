/** KEP-5866 sharding: the FNV-1a hash, hash ranges and the `shardSelector` text of kube-apiserver 1.36. */
export { fnv1a64 } from './hash.js';
export { hashSpaceEnd, hexLess, inRange, matchesShard, shardHash, splitHashSpace } from './ranges.js';
export type { ShardField, ShardRange, ShardedObject } from './ranges.js';
export { formatShardSelector, parseShardSelector, ShardSelectorError } from './selector.js';
export * as sharding from './sharding-namespace.js';
