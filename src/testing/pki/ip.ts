import { isIPv4, isIPv6 } from 'node:net';

/**
 * The network-order bytes of an IPv4 (4 bytes) or IPv6 (16 bytes) address, as X.509 `iPAddress` names carry them.
 *
 * Throws a `TypeError` naming the input when it is not a literal address (host names, CIDRs and zone ids are not
 * addresses).
 */
export function ipAddressBytes(address: string): Buffer {
  if (isIPv4(address)) return Buffer.from(address.split('.').map(Number));
  if (!isIPv6(address) || address.includes('%')) throw new TypeError(`not an IP address: ${JSON.stringify(address)}`);
  let text = address;
  const tail: number[] = [];
  // An embedded dotted IPv4 tail (::ffff:10.0.0.1) stands for the last two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = dotted[1]!.split('.').map(Number);
    tail.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
    text = text.slice(0, -dotted[1]!.length);
    if (text.endsWith(':') && !text.endsWith('::')) text = text.slice(0, -1);
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const groups = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const missing = 8 - left.length - right.length - tail.length;
  const all = [...left, ...Array<number>(rest === undefined ? 0 : missing).fill(0), ...right, ...tail];
  const bytes = Buffer.alloc(16);
  all.forEach((group, i) => bytes.writeUInt16BE(group, i * 2));
  return bytes;
}
