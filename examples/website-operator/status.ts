/**
 * Writing a Website's status: server-side apply on the status subresource, only when something changed, with an
 * Event for each condition that flipped.
 * @module
 */
import { isDeepStrictEqual } from 'node:util';
import { defer, of, tap, type Observable } from 'rxjs';
import { compareResourceVersions } from '../../src/extend.js';
import type { EventDetails, ResourceClient } from '../../src/index.js';
import { changedConditions, setConditions, type ConditionChange, type ConditionUpdate } from './conditions.js';
import { REASONS, type WebsiteEvents } from './events.js';
import type { WebsiteMemory } from './owned.js';
import { WEBSITE, type Website, type WebsiteId, type WebsiteStatus } from './website.js';

/** What a status write needs. */
export interface StatusContext {
  readonly client: ResourceClient<Website>;
  readonly cache: ResourceClient.StoreSource<Website>;
  readonly id: WebsiteId;
  readonly memory: WebsiteMemory;
  readonly events: WebsiteEvents;
  readonly signal: AbortSignal;
  /** The wall clock (`wallClockNow(scheduler)`), ms: the conditions' transition times. */
  readonly now: () => number;
}

/** The status fields besides the conditions and `observedGeneration`. */
export type StatusFields = Omit<WebsiteStatus, 'conditions' | 'observedGeneration'>;

/**
 * Writes the status: the newest status known (the cache's, or the operator's last write when the cache has not
 * caught up), with `fields` and `updates` on top, and `observedGeneration` the generation this run read.
 *
 * # Guarantees
 * - Sends nothing when the result equals the status known: a level-triggered reconcile that finds everything in
 *   line costs no status write.
 * - One server-side apply of the whole status (every field the operator owns, so none is dropped) with `force`:
 *   the status is the operator's alone.
 * - A condition's `lastTransitionTime` moves only when its status flips (rxkube's `setStatusCondition`).
 * - An Event per condition change: `Ready` True (Normal `Ready`) or back to False (Warning `NotReady`),
 *   `Progressing` True (Normal `RollingOut`), `Degraded` True or a new reason while True (Warning, with the
 *   reason), `Degraded` back to False (Normal `Recovered`).
 * - Emits the Website as written (or as known, when nothing was sent).
 */
export function writeStatus(
  context: StatusContext,
  fields: StatusFields,
  updates: readonly ConditionUpdate[],
): Observable<Website | undefined> {
  return defer(() => {
    const { client, cache, id, memory, signal } = context;
    const latest = newestWebsite(cache.current().get(id.key), memory.status);
    const previous = latest?.status ?? {};
    const conditions = setConditions(previous.conditions, updates, id.generation, context.now());
    const status = withoutUndefined({ ...previous, ...fields, observedGeneration: id.generation, conditions });
    if (isDeepStrictEqual(withoutUndefined({ ...previous }), status)) return of(latest);
    const body: Website = {
      apiVersion: WEBSITE.apiVersion,
      kind: WEBSITE.kind,
      metadata: { name: id.name, namespace: id.namespace },
      status,
    };
    return client.applyStatus(body, { force: true, signal }).pipe(
      tap((written) => {
        memory.status = written;
        for (const change of changedConditions(previous.conditions, conditions)) {
          const details = conditionEvent(change);
          if (details !== undefined) context.events.record(id, details);
        }
      }),
    );
  });
}

/** The newer of the cached Website and the operator's last status write (the write, when they do not compare). */
function newestWebsite(cached: Website | undefined, written: Website | undefined): Website | undefined {
  if (cached === undefined || written === undefined) return cached ?? written;
  const order = compareResourceVersions(cached.metadata?.resourceVersion, written.metadata?.resourceVersion);
  return order === 0 || order === 1 ? cached : written;
}

/** The Event a condition change is worth, if any. */
export function conditionEvent({ before, after }: ConditionChange): EventDetails | undefined {
  const action = 'Reconcile';
  const note = after.message;
  switch (after.type) {
    case 'Ready':
      if (after.status === 'True') return { type: 'Normal', reason: REASONS.ready, action, note };
      return before?.status === 'True' ? { type: 'Warning', reason: REASONS.notReady, action, note } : undefined;
    case 'Progressing':
      return after.status === 'True' && before?.status !== 'True'
        ? { type: 'Normal', reason: REASONS.rollingOut, action, note }
        : undefined;
    case 'Degraded':
      if (after.status === 'True') return { type: 'Warning', reason: after.reason, action, note };
      return before?.status === 'True'
        ? { type: 'Normal', reason: REASONS.recovered, action, note: 'every object is applied again' }
        : undefined;
    default:
      return undefined;
  }
}

function withoutUndefined<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}
