/**
 * `ownWrites.ledger`: the ledger of what a controller wrote, fed by its clients (a `WriteObserver`), read by
 * `readYourWrites` (what the next run of a key waits for) and `ignoreOwnWrites` (which watch events only echo a
 * write).
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { SchedulerLike } from 'rxjs';
import type { ClientWrite, ClientWriteOutcome, WriteObserver } from 'rxkube/extend';
import { monotonicScheduler } from '../../clock/index.js';
import { groupOfApiVersion, keyFor } from '../../objects/index.js';
import type { ResourceRef } from '../../resources/index.js';
import type { OwnWrite, OwnWritesOptions } from './types.js';

/** Default `retain`: one minute. */
export const DEFAULT_OWN_WRITES_RETAIN_MS = 60_000;

/** The latest writes remembered per object; older ones can no longer be echoed by a watch that has caught up. */
const PER_OBJECT = 8;

const kinds = new WeakMap<ResourceRef, string>();

/** `group/Kind`: resourceVersions order the objects of a resource, whatever version they are read at. */
export function kindOf(resource: ResourceRef): string {
  let kind = kinds.get(resource);
  if (kind === undefined) kinds.set(resource, (kind = `${groupOfApiVersion(resource.apiVersion)}/${resource.kind}`));
  return kind;
}

function idOf(kind: string, key: string): string {
  return `${kind} ${key}`;
}

/**
 * What a controller wrote, object by object and run by run. Give it to the controller's clients as their
 * `writeObserver` (a controller context does: `context.writes`), and tell it which run sent what with
 * `charge`.
 *
 * # Guarantees
 * - Every answered write of its clients is remembered for `retain` ms (the last 8 per object): its kind, key,
 *   answered resourceVersion, the version it was conditioned on, uid, labels, and the key of the run that sent it.
 * - A write sent with a run's `signal` (as every call of a reconcile should be) is charged to that run's key.
 * - Writes in flight are known by object (and, for a create by `generateName`, by name prefix) until they settle.
 * - Memory is bounded by the writes of the last `retain` ms: older ones are swept as new ones come, each time as
 *   many entries have been added as the last sweep kept (at least 1,024). A write is an entry under its object,
 *   and another under its run while charged; the entries held never exceed twice the most written in any `retain`
 *   ms, plus 1,024 (property-tested).
 *
 * # Caveats
 * - Only the clients given it as `writeObserver` are heard: a client built with `resourceClient` directly, without
 *   it, writes unseen.
 */
export class OwnWrites implements WriteObserver {
  /** The clock writes are stamped with. */
  readonly scheduler: SchedulerLike;
  /** How long a write is remembered, ms. */
  readonly retain: number;
  private readonly runs = new WeakMap<AbortSignal, string>();
  private readonly objects = new Map<string, OwnWrite[]>();
  private readonly charges = new Map<string, OwnWrite[]>();
  private readonly inFlightIds = new Map<string, number>();
  /** Creates by `generateName` in flight: `kind namespace` → prefix → count. */
  private readonly inFlightPrefixes = new Map<string, Map<string, number>>();
  private readonly settledListeners = new Set<() => void>();
  private last = 0;
  private entries = 0;
  /** What the last sweep kept: the next sweep comes once as many entries have been added (at least 1,024). */
  private keptBySweep = 0;
  private sinceSweep = 0;

  constructor(options: OwnWritesOptions = {}) {
    const retain = options.retain ?? DEFAULT_OWN_WRITES_RETAIN_MS;
    if (typeof retain !== 'number' || !(retain > 0))
      throw new RangeError(`ownWrites: retain must be a number of ms > 0, got ${String(retain)}`);
    this.retain = retain;
    this.scheduler = options.scheduler ?? monotonicScheduler;
  }

  /** The `seq` of the last answered write (0 before any): writes answered later have a greater one. */
  get sequence(): number {
    return this.last;
  }

  /** Charges the writes sent with `signal` from now on to the runs of `key`. */
  charge(signal: AbortSignal, key: string): void {
    this.runs.set(signal, key);
  }

  /** The writes charged to `key`'s runs and not yet discharged, oldest first. */
  chargedTo(key: string): readonly OwnWrite[] {
    return this.charges.get(key) ?? [];
  }

  /** Forgets what was charged to `key` (its next run starts: it has been waited for). */
  discharge(key: string): void {
    const charged = this.charges.get(key);
    if (charged === undefined) return;
    this.entries -= charged.length;
    this.charges.delete(key);
  }

  /** The remembered writes of the object `key` of `resource`'s kind, oldest first. */
  writesTo(resource: ResourceRef, key: string): readonly OwnWrite[] {
    return this.objects.get(idOf(kindOf(resource), key)) ?? [];
  }

  /** Whether a write of the object (or a create that may turn out to be it) is in flight. */
  inFlight(resource: ResourceRef, key: string, namespace: string | undefined, name: string | undefined): boolean {
    if (this.inFlightIds.size === 0 && this.inFlightPrefixes.size === 0) return false;
    const kind = kindOf(resource);
    if ((this.inFlightIds.get(idOf(kind, key)) ?? 0) > 0) return true;
    const prefixes = this.inFlightPrefixes.get(`${kind} ${namespace ?? ''}`);
    if (prefixes === undefined || name === undefined) return false;
    for (const prefix of prefixes.keys()) if (name.startsWith(prefix)) return true;
    return false;
  }

  /** Calls `listener` each time a write settles; returns the function that stops it. */
  onSettled(listener: () => void): () => void {
    this.settledListeners.add(listener);
    return () => this.settledListeners.delete(listener);
  }

  /** A client is about to send `write`: it is in flight until it settles, and remembered once answered. */
  sending(write: ClientWrite): ClientWriteOutcome {
    const kind = kindOf(write.resource);
    const inFlight =
      write.name !== undefined
        ? { map: this.inFlightIds, key: idOf(kind, keyFor(write.name, write.namespace)) }
        : write.generateName !== undefined
          ? { map: this.prefixesOf(`${kind} ${write.namespace ?? ''}`), key: write.generateName }
          : undefined;
    if (inFlight !== undefined) inFlight.map.set(inFlight.key, (inFlight.map.get(inFlight.key) ?? 0) + 1);
    return {
      answered: (answer) => this.record(write, answer),
      settled: () => {
        if (inFlight !== undefined) {
          const count = (inFlight.map.get(inFlight.key) ?? 1) - 1;
          if (count > 0) inFlight.map.set(inFlight.key, count);
          else inFlight.map.delete(inFlight.key);
          if (inFlight.map !== this.inFlightIds && inFlight.map.size === 0) this.dropEmptyPrefixes();
        }
        for (const listener of [...this.settledListeners]) listener();
      },
    };
  }

  private prefixesOf(scope: string): Map<string, number> {
    let prefixes = this.inFlightPrefixes.get(scope);
    if (prefixes === undefined) this.inFlightPrefixes.set(scope, (prefixes = new Map()));
    return prefixes;
  }

  private dropEmptyPrefixes(): void {
    for (const [scope, prefixes] of this.inFlightPrefixes) if (prefixes.size === 0) this.inFlightPrefixes.delete(scope);
  }

  private record(write: ClientWrite, answer: KubernetesObject): void {
    const status = answer?.kind === 'Status' && answer.apiVersion === 'v1';
    const metadata = status ? undefined : answer?.metadata;
    const name = metadata?.name ?? write.name;
    if (typeof name !== 'string' || name === '') return;
    const namespace = write.namespace;
    const version = metadata?.resourceVersion;
    const uid = status ? (answer as { details?: { uid?: unknown } }).details?.uid : metadata?.uid;
    const deleted = write.verb === 'delete';
    const own: OwnWrite = {
      resource: write.resource,
      key: keyFor(name, namespace),
      namespace,
      resourceVersion: typeof version === 'string' && version !== '' ? version : undefined,
      base: write.base,
      uid: typeof uid === 'string' && uid !== '' ? uid : undefined,
      deleted,
      deleting: deleted && metadata?.deletionTimestamp != null,
      labels: metadata?.labels,
      runKey: write.signal === undefined ? undefined : this.runs.get(write.signal),
      at: this.scheduler.now(),
      seq: ++this.last,
    };
    const id = idOf(kindOf(write.resource), own.key);
    const entriesBefore = this.entries;
    const list = this.objects.get(id);
    if (list === undefined) {
      this.objects.set(id, [own]);
      this.entries += 1;
    } else {
      list.push(own);
      if (list.length > PER_OBJECT) list.shift();
      else this.entries += 1;
    }
    if (own.runKey !== undefined) {
      const charged = this.charges.get(own.runKey);
      if (charged === undefined) this.charges.set(own.runKey, [own]);
      else charged.push(own);
      this.entries += 1;
    }
    this.sinceSweep += this.entries - entriesBefore;
    // Measured against what the last sweep kept, not against `entries`: that grows with each of these writes too,
    // so with writes to ever new objects the entries since the last sweep would never catch up with it.
    if (this.sinceSweep >= Math.max(1024, this.keptBySweep)) this.sweep(own.at);
  }

  /** Drops what is older than `retain`; amortised over the entries added since the last sweep. */
  private sweep(now: number): void {
    this.sinceSweep = 0;
    const oldest = now - this.retain;
    let entries = 0;
    for (const table of [this.objects, this.charges]) {
      for (const [id, list] of table) {
        const kept = list.filter((write) => write.at >= oldest);
        if (kept.length === 0) table.delete(id);
        else if (kept.length !== list.length) table.set(id, kept);
        entries += kept.length;
      }
    }
    this.entries = entries;
    this.keptBySweep = entries;
  }
}

/**
 * A ledger of the writes of the clients it is given to, and of the runs that sent them; see `OwnWrites`.
 * A controller context has one (`context.writes`), which its `client()` feeds. Public as `ownWrites.ledger`.
 */
export function ownWriteLedger(options?: OwnWritesOptions): OwnWrites {
  return new OwnWrites(options);
}
