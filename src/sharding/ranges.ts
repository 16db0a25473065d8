/**
 * Hash ranges over the 64-bit FNV-1a space, in KEP-5866's bound form: `'0x'` and 16 lowercase hex digits, the
 * exclusive end of the whole space being `'0x10000000000000000'` (2^64).
 * @module
 */
import { fnv1a64 } from './hash.js';

/** What hashing reads of an object: its uid and namespace (any object, typed or a draft, fits). */
export interface ShardedObject {
  /** Its uid and namespace; either missing hashes as the empty string, as apimachinery's accessor gives it. */
  readonly metadata?: {
    /** What `object.metadata.uid` hashes. */
    readonly uid?: string;
    /** What `object.metadata.namespace` hashes. */
    readonly namespace?: string;
  };
}

/** The object fields a shard selector may hash: KEP-5866 serves exactly these two. */
export type ShardField = 'object.metadata.uid' | 'object.metadata.namespace';

/** One `shardRange(field, start, end)`: hashes `h` with `start <= h < end`. */
export interface ShardRange {
  /** The hashed field: `object.metadata.uid`, or `object.metadata.namespace` to keep a namespace on one shard. */
  readonly field: ShardField;
  /** Inclusive lower bound, `0x` + 16 lowercase hex digits. */
  readonly start: string;
  /** Exclusive upper bound, `0x` + 16 lowercase hex digits, or `0x10000000000000000` (2^64). */
  readonly end: string;
}

/** The exclusive upper bound of the hash space (2^64), the only 17-digit bound the server accepts. */
export const hashSpaceEnd = '0x10000000000000000';

/** apimachinery's `HexLess`: shorter is smaller, then lexical (bounds are lowercase and zero-padded). */
export function hexLess(a: string, b: string): boolean {
  if (a.length !== b.length) return a.length < b.length;
  return a < b;
}

/** The `0x`-prefixed hash of `obj`'s `field`, as the server compares it with range bounds. */
export function shardHash(obj: ShardedObject, field: ShardField = 'object.metadata.uid'): string {
  const value = field === 'object.metadata.uid' ? obj.metadata?.uid : obj.metadata?.namespace;
  return `0x${fnv1a64(value ?? '')}`;
}

/** Whether `hash` (from {@link shardHash}) lies in `range`. */
export function inRange(hash: string, range: ShardRange): boolean {
  return !hexLess(hash, range.start) && hexLess(hash, range.end);
}

/**
 * Whether `obj` lies in any of `ranges` (the `||` of them), with the server's semantics.
 *
 * # Guarantees
 * - An empty list matches everything, as an empty selector does on the server.
 * - A missing uid or namespace hashes as the empty string, as apimachinery's accessor returns it.
 */
export function matchesShard(ranges: readonly ShardRange[], obj: ShardedObject): boolean {
  if (ranges.length === 0) return true;
  const hash = shardHash(obj, ranges[0]!.field);
  return ranges.some((range) => inRange(hash, range));
}

function bound(value: bigint): string {
  return value === 1n << 64n ? hashSpaceEnd : `0x${value.toString(16).padStart(16, '0')}`;
}

/**
 * Cuts the hash space into `count` contiguous ranges of equal width (the last takes the remainder), in order.
 *
 * # Guarantees
 * - The ranges are disjoint and cover `[0x0000000000000000, 0x10000000000000000)` exactly: every hash lies in
 *   exactly one.
 *
 * # Caveats
 * - `count` must be an integer from 1 to 65536; anything else throws a `RangeError` naming it.
 */
export function splitHashSpace(count: number, field: ShardField = 'object.metadata.uid'): ShardRange[] {
  if (!Number.isInteger(count) || count < 1 || count > 65536)
    throw new RangeError(`shard range count must be an integer from 1 to 65536, got ${count}`);
  const space = 1n << 64n;
  const ranges: ShardRange[] = [];
  for (let i = 0; i < count; i++) {
    const start = (space * BigInt(i)) / BigInt(count);
    const end = (space * BigInt(i + 1)) / BigInt(count);
    ranges.push({ field, start: bound(start), end: bound(end) });
  }
  return ranges;
}
