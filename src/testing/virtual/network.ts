/**
 * The network between a client and a virtual cluster: delays drawn per request, and the faults the server cannot
 * see (refused and stuck requests, lost answers, partitions).
 * @module
 */
import type { NetworkFaultOptions, NetworkFaults, PartitionOptions, VirtualDelay, VirtualRequestInfo } from './types.js';

/** What the network does with one request, besides carrying it. */
export type NetworkFault = 'refuse' | 'hang' | 'loseAnswer';

interface ArmedFault {
  readonly fault: NetworkFault;
  remaining: number;
  readonly options: NetworkFaultOptions;
}

function matches(options: NetworkFaultOptions, request: VirtualRequestInfo, pathAndQuery: string): boolean {
  if (options.method !== undefined && options.method.toUpperCase() !== request.method) return false;
  if (typeof options.path === 'string') return request.path.startsWith(options.path);
  if (options.path instanceof RegExp) return options.path.test(pathAndQuery);
  return true;
}

function checkedCount(options: NetworkFaultOptions | undefined, fault: string): number {
  const count = options?.count ?? 1;
  if (!(count >= 1)) throw new RangeError(`${fault}: count must be at least 1, got ${String(options?.count)}`);
  return count;
}

/**
 * The network faults of one link (or of every link, for the cluster's own).
 *
 * # Guarantees
 * - `take` consumes one count of the first armed fault that matches, in the order they were armed; a partition
 *   takes every request and consumes nothing.
 * - A `count` below 1 or a `mode` other than `refuse` or `hang` is a RangeError, and nothing is armed.
 */
export class NetworkFaultState implements NetworkFaults {
  private armed: ArmedFault[] = [];
  private partitioned: 'refuse' | 'hang' | undefined;

  refuseNext(options?: NetworkFaultOptions): void {
    this.arm('refuse', 'refuseNext', options);
  }

  hangNext(options?: NetworkFaultOptions): void {
    this.arm('hang', 'hangNext', options);
  }

  loseAnswerNext(options?: NetworkFaultOptions): void {
    this.arm('loseAnswer', 'loseAnswerNext', options);
  }

  partition(options?: PartitionOptions): void {
    const mode = options?.mode ?? 'refuse';
    if (mode !== 'refuse' && mode !== 'hang') throw new RangeError(`partition: mode must be "refuse" or "hang", got ${String(mode)}`);
    this.partitioned = mode;
  }

  heal(): void {
    this.partitioned = undefined;
    this.armed = [];
  }

  /** What the network does with `request` (sent now), consuming one count of an armed fault. */
  take(request: VirtualRequestInfo, pathAndQuery: string): NetworkFault | undefined {
    if (this.partitioned !== undefined) return this.partitioned;
    const armed = this.armed.find((a) => matches(a.options, request, pathAndQuery));
    if (armed === undefined) return undefined;
    armed.remaining -= 1;
    if (armed.remaining <= 0) this.armed = this.armed.filter((a) => a !== armed);
    return armed.fault;
  }

  private arm(fault: NetworkFault, name: string, options: NetworkFaultOptions | undefined): void {
    this.armed.push({ fault, remaining: checkedCount(options, name), options: options ?? {} });
  }
}

/** `delay` for `request` in whole-or-fractional ms, never negative or non-finite. */
export function delayOf(delay: VirtualDelay | undefined, request: VirtualRequestInfo, random: () => number): number {
  if (delay === undefined) return 0;
  const ms = typeof delay === 'number' ? delay : delay(request, random);
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

/** Refuses a delay option that is neither a non-negative number nor a function, naming `where` it was given. */
export function checkDelay(delay: unknown, where: string): VirtualDelay | undefined {
  if (delay === undefined || typeof delay === 'function') return delay as VirtualDelay | undefined;
  if (typeof delay === 'number' && Number.isFinite(delay) && delay >= 0) return delay;
  throw new RangeError(`${where} must be a non-negative number of ms or a function, got ${String(delay)}`);
}
