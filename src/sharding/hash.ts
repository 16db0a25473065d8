/**
 * The 64-bit FNV-1a hash kube-apiserver shards by (KEP-5866, `k8s.io/apimachinery/pkg/sharding.HashField`).
 * @module
 */

const encoder = new TextEncoder();

/**
 * The FNV-1a 64-bit hash of `value`'s UTF-8 bytes, as 16 lowercase hex digits without a prefix.
 *
 * # Guarantees
 * - The same digits as apimachinery's `HashField` (Go's `hash/fnv` New64a over `[]byte(value)`, `%016x`).
 * - Pure and allocation-light: four 16-bit limbs in plain numbers, no BigInt.
 *
 * # Caveats
 * - FNV-1a mixes its last input byte poorly: values that differ only in their last character often land in the
 *   same range. UIDs spread well; short sequential namespace names less so.
 */
export function fnv1a64(value: string): string {
  const bytes = encoder.encode(value);
  // Offset basis 0xcbf29ce484222325, low limb first.
  let v0 = 0x2325;
  let v1 = 0x8422;
  let v2 = 0x9ce4;
  let v3 = 0xcbf2;
  for (const byte of bytes) {
    v0 ^= byte;
    // Multiply by the prime 2^40 + 0x1b3 modulo 2^64: h * 0x1b3 plus h << 40, carried limb by limb.
    const t0 = v0 * 0x1b3;
    const t1 = v1 * 0x1b3;
    let t2 = v2 * 0x1b3 + (v0 << 8);
    let t3 = v3 * 0x1b3 + (v1 << 8);
    const c1 = t1 + (t0 >>> 16);
    v0 = t0 & 0xffff;
    t2 += c1 >>> 16;
    v1 = c1 & 0xffff;
    t3 += t2 >>> 16;
    v2 = t2 & 0xffff;
    v3 = t3 & 0xffff;
  }
  return hex4(v3) + hex4(v2) + hex4(v1) + hex4(v0);
}

function hex4(limb: number): string {
  return limb.toString(16).padStart(4, '0');
}
