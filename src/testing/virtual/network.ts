/**
 * The network between a client and a virtual cluster: delays drawn per request, and the faults the server cannot
 * see (refused and stuck requests, lost answers, partitions).
 * @module
 */
import type {
  NetworkFaultOptions,
  NetworkFaults,
  PartitionOptions,
  VirtualDelay,
  VirtualRequestInfo,
  WarnNextOptions,
} from './types.js';

/** What the network does with one request, besides carrying it. */
export type NetworkFault = 'refuse' | 'hang' | 'loseAnswer';

function matches(options: NetworkFaultOptions, request: VirtualRequestInfo, pathAndQuery: string): boolean {
  if (options.method !== undefined && options.method.toUpperCase() !== request.method) return false;
  if (typeof options.path === 'string') return request.path.startsWith(options.path);
  if (options.path instanceof RegExp) return options.path.test(pathAndQuery);
  return true;
}

/**
 * Faults armed for the next matching requests, each for `count` of them.
 *
 * # Guarantees
 * - A `count` below 1 is a RangeError naming the fault, and nothing is armed.
 */
class Armed<T> {
  private armed: Array<{ readonly value: T; remaining: number; readonly options: NetworkFaultOptions }> = [];

  arm(value: T, name: string, options: NetworkFaultOptions | undefined): void {
    const count = options?.count ?? 1;
    if (!(count >= 1)) throw new RangeError(`${name}: count must be at least 1, got ${String(options?.count)}`);
    this.armed.push({ value, remaining: count, options: options ?? {} });
  }

  /** The values of the armed faults that match (the first only, when `first`), each consuming one count. */
  take(request: VirtualRequestInfo, pathAndQuery: string, first: boolean): T[] {
    const taken: T[] = [];
    for (const armed of this.armed) {
      if (!matches(armed.options, request, pathAndQuery)) continue;
      armed.remaining -= 1;
      taken.push(armed.value);
      if (first) break;
    }
    if (taken.length > 0) this.armed = this.armed.filter((armed) => armed.remaining > 0);
    return taken;
  }

  clear(): void {
    this.armed = [];
  }
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
  private readonly armed = new Armed<NetworkFault>();
  private partitioned: 'refuse' | 'hang' | undefined;

  refuseNext(options?: NetworkFaultOptions): void {
    this.armed.arm('refuse', 'refuseNext', options);
  }

  hangNext(options?: NetworkFaultOptions): void {
    this.armed.arm('hang', 'hangNext', options);
  }

  loseAnswerNext(options?: NetworkFaultOptions): void {
    this.armed.arm('loseAnswer', 'loseAnswerNext', options);
  }

  partition(options?: PartitionOptions): void {
    const mode = options?.mode ?? 'refuse';
    if (mode !== 'refuse' && mode !== 'hang')
      throw new RangeError(`partition: mode must be "refuse" or "hang", got ${String(mode)}`);
    this.partitioned = mode;
  }

  heal(): void {
    this.partitioned = undefined;
    this.armed.clear();
  }

  /** What the network does with `request` (sent now), consuming one count of an armed fault. */
  take(request: VirtualRequestInfo, pathAndQuery: string): NetworkFault | undefined {
    return this.partitioned ?? this.armed.take(request, pathAndQuery, true)[0];
  }
}

/**
 * The API warnings armed for the next answers (`warnNext`).
 *
 * # Guarantees
 * - `take` returns the texts of every armed warning that matches, in the order they were armed, each consuming one
 *   count; an empty text is a RangeError, and nothing is armed.
 */
export class WarningState {
  private readonly armed = new Armed<string>();

  warnNext(options: WarnNextOptions): void {
    if (typeof options?.text !== 'string' || options.text === '') {
      throw new RangeError(`warnNext: text must be a non-empty string, got ${JSON.stringify(options?.text)}`);
    }
    this.armed.arm(options.text, 'warnNext', options);
  }

  /** The texts the answer to `request` (sent now) carries. */
  take(request: VirtualRequestInfo, pathAndQuery: string): string[] {
    return this.armed.take(request, pathAndQuery, false);
  }

  clear(): void {
    this.armed.clear();
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
