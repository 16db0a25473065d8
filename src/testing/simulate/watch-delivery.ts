/**
 * How the controller's view delivers watch chunks under its faults: late (a delay line), held until the truth moves
 * on (a version gate), or merged per object.
 * @module
 */
import type { Subscription } from 'rxjs';
import type { VirtualCluster } from '../virtual/index.js';
import type { ControllerFaultState } from './controller-view.js';

/**
 * Deliveries of one watch, each `lag` ms after it arrived, never overtaking an earlier one; with no lag and nothing
 * waiting, delivered at once (the fault-free path costs nothing).
 */
export class DelayLine {
  private last = Number.NEGATIVE_INFINITY;
  private readonly waiting = new Set<Subscription>();

  constructor(
    private readonly scheduler: VirtualCluster['scheduler'],
    private readonly dead: () => boolean,
  ) {}

  send(lag: number, deliver: () => void): void {
    const now = this.scheduler.now();
    const at = Math.max(now + lag, this.last);
    if (at <= now && this.waiting.size === 0) {
      if (!this.dead()) deliver();
      return;
    }
    this.last = at;
    const action = this.scheduler.schedule(() => {
      this.waiting.delete(action);
      if (!this.dead()) deliver();
    }, at - now);
    this.waiting.add(action);
  }

  cancel(): void {
    for (const action of this.waiting) action.unsubscribe();
    this.waiting.clear();
  }
}

/**
 * Watch chunks held while the view lags by resourceVersions: each goes out, in order, once the truth is the lag
 * past the newest resourceVersion it carries, or once the view heals.
 */
export class VersionGate {
  private readonly held: { readonly version: number; readonly lines: readonly string[] }[] = [];
  private unwait: (() => void) | undefined;

  constructor(
    private readonly state: ControllerFaultState,
    private readonly send: (lines: readonly string[]) => void,
  ) {}

  holding(): boolean {
    return this.held.length > 0;
  }

  hold(lines: readonly string[]): void {
    this.held.push({ version: newestVersion(lines), lines });
    this.unwait ??= this.state.wait(() => this.release(false));
    this.release(false);
  }

  /** Sends what the truth has moved past (everything, when `all` or when the view no longer lags). */
  release(all: boolean): void {
    const behind = all ? 0 : this.state.versionsBehind();
    const truth = behind === 0 ? 0 : this.state.truth();
    while (this.held.length > 0 && (behind === 0 || this.held[0]!.version + behind <= truth))
      this.send(this.held.shift()!.lines);
    if (this.held.length === 0) this.cancel();
  }

  cancel(): void {
    this.held.length = 0;
    this.unwait?.();
    this.unwait = undefined;
  }
}

/** The newest resourceVersion of the objects in watch lines (0 when none carries one). */
function newestVersion(lines: readonly string[]): number {
  let newest = 0;
  for (const text of lines) {
    try {
      const version = Number((JSON.parse(text) as WatchLine).object?.metadata?.resourceVersion);
      if (version > newest) newest = version;
    } catch {
      // A bad line is no state of an object: it goes out with its neighbours.
    }
  }
  return newest;
}

/** A watch event line as far as merging needs it. */
interface WatchLine {
  readonly type: string;
  readonly object?: {
    readonly metadata?: { readonly namespace?: string; readonly name?: string; readonly resourceVersion?: string };
  };
}

/**
 * Watch lines held while events are merged: per object only the last state survives, as a slow consumer or a relist
 * sees it; an object added and deleted inside the window is never seen. Lines keep resourceVersion order.
 */
export class EventMerger {
  private readonly byObject = new Map<string, { first: string; last: string; text: string; order: number }>();
  private readonly others: { text: string; order: number }[] = [];
  private order = 0;

  add(lines: readonly string[]): void {
    for (const text of lines) {
      const order = this.order++;
      let parsed: WatchLine | undefined;
      try {
        parsed = JSON.parse(text) as WatchLine;
      } catch {
        parsed = undefined;
      }
      const metadata = parsed?.object?.metadata;
      const type = parsed?.type;
      if (metadata?.name === undefined || (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED')) {
        // Bookmarks, errors and bad lines pass in their place: they are not states of an object.
        this.others.push({ text, order });
        continue;
      }
      const key = `${metadata.namespace ?? ''}/${metadata.name}`;
      const held = this.byObject.get(key);
      // Re-inserted so that the map keeps the order of each object's last event.
      this.byObject.delete(key);
      this.byObject.set(key, { first: held?.first ?? type, last: type, text, order });
    }
  }

  take(): string[] {
    const kept: { text: string; order: number }[] = [...this.others];
    for (const { first, last, text, order } of this.byObject.values()) {
      if (first === 'ADDED' && last === 'DELETED') continue;
      const added = first === 'ADDED' && last === 'MODIFIED';
      kept.push({ text: added ? JSON.stringify({ ...(JSON.parse(text) as object), type: 'ADDED' }) : text, order });
    }
    this.byObject.clear();
    this.others.length = 0;
    return kept.sort((a, b) => a.order - b.order).map(({ text }) => text);
  }
}
