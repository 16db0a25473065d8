/**
 * A minimal DER (ASN.1 Distinguished Encoding Rules) encoder and TLV reader: just enough to write X.509 v3
 * certificates and to pull raw fields back out of one.
 *
 * Internal to `testing/pki`; not part of the public API.
 * @module
 */

/** ASN.1 universal tags used by X.509. */
export const Tag = {
  Boolean: 0x01,
  Integer: 0x02,
  BitString: 0x03,
  OctetString: 0x04,
  Null: 0x05,
  ObjectIdentifier: 0x06,
  Utf8String: 0x0c,
  PrintableString: 0x13,
  Ia5String: 0x16,
  UtcTime: 0x17,
  GeneralizedTime: 0x18,
  Sequence: 0x30,
  Set: 0x31,
} as const;

/** Encodes a DER length: short form below 128, long form (minimal big-endian bytes) above. */
export function encodeLength(length: number): Buffer {
  if (!Number.isSafeInteger(length) || length < 0)
    throw new RangeError(`DER length must be a non-negative integer, got ${length}`);
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One tag-length-value element. `tag` is the full identifier octet (class, constructed bit and number). */
export function tlv(tag: number, ...contents: readonly Uint8Array[]): Buffer {
  const body = Buffer.concat(contents);
  return Buffer.concat([Buffer.from([tag]), encodeLength(body.length), body]);
}

export const sequence = (...items: readonly Uint8Array[]): Buffer => tlv(Tag.Sequence, ...items);
export const set = (...items: readonly Uint8Array[]): Buffer => tlv(Tag.Set, ...items);
export const octetString = (bytes: Uint8Array): Buffer => tlv(Tag.OctetString, bytes);
export const utf8String = (text: string): Buffer => tlv(Tag.Utf8String, Buffer.from(text, 'utf8'));
export const ia5String = (text: string): Buffer => tlv(Tag.Ia5String, Buffer.from(text, 'ascii'));
export const boolean = (value: boolean): Buffer => tlv(Tag.Boolean, Buffer.from([value ? 0xff : 0x00]));
export const nullValue = (): Buffer => tlv(Tag.Null);

/** `[n] EXPLICIT`: a constructed context-specific wrapper around a complete element. */
export const explicit = (n: number, inner: Uint8Array): Buffer => tlv(0xa0 | n, inner);

/** `[n] IMPLICIT` on a primitive type: the universal tag is replaced, the content octets kept. */
export const implicitPrimitive = (n: number, content: Uint8Array): Buffer => tlv(0x80 | n, content);

/**
 * A DER INTEGER from an unsigned big-endian magnitude: leading zero bytes are stripped and a 0x00 is prepended
 * when the high bit would otherwise make the value negative.
 */
export function unsignedInteger(magnitude: Uint8Array | number): Buffer {
  let bytes = typeof magnitude === 'number' ? bigEndian(magnitude) : Buffer.from(magnitude);
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  bytes = bytes.subarray(start);
  if (bytes.length === 0) bytes = Buffer.from([0]);
  if ((bytes[0]! & 0x80) !== 0) bytes = Buffer.concat([Buffer.from([0]), bytes]);
  return tlv(Tag.Integer, bytes);
}

function bigEndian(value: number): Buffer {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`DER integer must be a non-negative safe integer, got ${value}`);
  const bytes: number[] = [];
  for (let rest = value; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from(bytes.length ? bytes : [0]);
}

/** An OBJECT IDENTIFIER from dotted form, e.g. `2.5.29.19`. */
export function objectIdentifier(dotted: string): Buffer {
  const arcs = dotted.split('.').map((arc) => {
    if (!/^\d+$/.test(arc)) throw new RangeError(`invalid OID ${JSON.stringify(dotted)}`);
    return Number(arc);
  });
  if (arcs.length < 2 || arcs[0]! > 2 || (arcs[0]! < 2 && arcs[1]! >= 40))
    throw new RangeError(`invalid OID ${JSON.stringify(dotted)}`);
  const bytes: number[] = [];
  const encodeArc = (arc: number): void => {
    const base128: number[] = [arc % 128];
    for (let rest = Math.floor(arc / 128); rest > 0; rest = Math.floor(rest / 128))
      base128.unshift(0x80 | (rest % 128));
    bytes.push(...base128);
  };
  encodeArc(arcs[0]! * 40 + arcs[1]!);
  for (const arc of arcs.slice(2)) encodeArc(arc);
  return tlv(Tag.ObjectIdentifier, Buffer.from(bytes));
}

/** A BIT STRING holding whole bytes (zero unused bits), as used for keys and signatures. */
export const bitStringBytes = (bytes: Uint8Array): Buffer => tlv(Tag.BitString, Buffer.from([0]), bytes);

/**
 * A named-bit BIT STRING (e.g. keyUsage): bit 0 is the most significant bit of the first byte, and DER requires
 * trailing zero bits to be dropped.
 */
export function namedBits(bits: readonly number[]): Buffer {
  if (bits.length === 0) return tlv(Tag.BitString, Buffer.from([0]));
  const highest = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(highest / 8) + 1);
  for (const bit of bits) bytes[Math.floor(bit / 8)]! |= 0x80 >> (bit % 8);
  const unused = 7 - (highest % 8);
  return tlv(Tag.BitString, Buffer.from([unused]), bytes);
}

/** X.509 `Time`: UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280 §4.1.2.5). */
export function time(date: Date): Buffer {
  const iso = date.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = iso.slice(0, 19).replace(/[-T:]/g, '');
  const year = date.getUTCFullYear();
  if (year < 1950 || year > 9999) throw new RangeError(`certificate time out of range: ${iso}`);
  if (year < 2050) return tlv(Tag.UtcTime, Buffer.from(`${digits.slice(2)}Z`, 'ascii'));
  return tlv(Tag.GeneralizedTime, Buffer.from(`${digits}Z`, 'ascii'));
}

/** One element read back from DER: its tag, its content octets, and the whole encoding. */
export interface Element {
  readonly tag: number;
  readonly content: Buffer;
  readonly raw: Buffer;
}

/**
 * Reads the element at `offset`.
 *
 * # Guarantees
 * Throws a `RangeError` naming the offset on truncated input, indefinite lengths or oversize lengths, never
 * reads past the buffer.
 */
export function readElement(der: Buffer, offset = 0): Element {
  const fail = (why: string): never => {
    throw new RangeError(`malformed DER at offset ${offset}: ${why}`);
  };
  if (offset + 2 > der.length) fail('truncated header');
  const tag = der[offset]!;
  if ((tag & 0x1f) === 0x1f) fail('multi-byte tags are not supported');
  let length = der[offset + 1]!;
  let headerLength = 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0) fail('indefinite length is not DER');
    if (count > 4) fail('length too large');
    if (offset + 2 + count > der.length) fail('truncated length');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + der[offset + 2 + i]!;
    headerLength += count;
  }
  const end = offset + headerLength + length;
  if (end > der.length) fail(`content of ${length} bytes runs past the end`);
  return { tag, content: der.subarray(offset + headerLength, end), raw: der.subarray(offset, end) };
}

/** Reads every element inside a constructed element's content. */
export function readChildren(content: Buffer): Element[] {
  const children: Element[] = [];
  for (let offset = 0; offset < content.length; ) {
    const child = readElement(content, offset);
    children.push(child);
    offset += child.raw.length;
  }
  return children;
}

/** Wraps DER bytes as PEM with 64-character lines. */
export function toPem(label: string, der: Uint8Array): string {
  const base64 = Buffer.from(der).toString('base64');
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** Extracts the DER bytes of the first PEM block with `label`; throws a clear error when there is none. */
export function fromPem(label: string, pem: string): Buffer {
  const match = new RegExp(`-----BEGIN ${label}-----([A-Za-z0-9+/=\\s]+)-----END ${label}-----`).exec(pem);
  if (!match) throw new TypeError(`expected a PEM block labelled ${label}`);
  return Buffer.from(match[1]!.replace(/\s+/g, ''), 'base64');
}
