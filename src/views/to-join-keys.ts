/**
 * `toJoinKeys`: a join view's row changes to reconcile triggers for the left object, saying which right objects
 * joined or left.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Observable } from 'rxjs';
import type { ReconcileTrigger } from '../controller/index.js';
import { mapKeys, type KeyMapping, type TriggerOptions } from '../controller/triggers/index.js';
import type { InformerEvent } from '../informer/index.js';
import { diffStores, type StoreChange } from '../store/index.js';
import type { JoinRow } from './types.js';

/** Options of `views.toJoinKeys`. */
export interface ToJoinKeysOptions extends TriggerOptions {
  /**
   * - `'members'` (default): trigger when the set of right objects changes (one joins, one leaves), and when a row
   *   comes or goes. A right object that changes in place, or a change of the left object, triggers nothing.
   * - `'any'`: trigger on every change of a row: the above, right objects changing in place, and the left object's
   *   own changes.
   */
  readonly on?: 'members' | 'any';
}

/** The operator `views.toJoinKeys` returns: from a join view's `events$`, whatever its row types, to triggers. */
export interface JoinTriggerOperator {
  /** Maps each row event of `source` to triggers of the row's key. */
  <L extends KubernetesObject, R extends KubernetesObject>(
    source: Observable<InformerEvent<JoinRow<L, R>>>,
  ): Observable<ReconcileTrigger>;
}

/**
 * Triggers the left object of a join row when the set of its right objects changes: reconcile a Node when the set
 * of its Pods changes, an owner when a dependent comes or goes.
 *
 * ```ts
 * const triggers$ = podsByNode.events$.pipe(toJoinKeys()); // { key: 'node-1', reason: 'Pod default/web-1 joined Node node-1' }
 * ```
 *
 * # Guarantees
 * - Keys are the rows' keys, which are the left objects' keys: give the view itself as the reconcile `lookup`, and
 *   the run reads the row (the left object and its current right objects), or the left informer for the object
 *   alone.
 * - One trigger per kind of change, each with a reason that names it: `Pod default/a joined Node n1`,
 *   `Pod default/a and 2 more left Node n1`, with `'any'` also `Pod default/c changed on Node n1` and
 *   `updated Node n1`; `added Node n1` and `deleted Node n1` when the row comes or goes (the view's first snapshot
 *   and a late subscriber's replay are `added`). The reconcile operator coalesces them into one run, with every
 *   reason.
 * - Which right objects joined or left is read as the diff of the row's two `right` stores, so it costs what
 *   changed, not the size of the group.
 * - Malformed events are reported as `KeyMappingError`s to `options.onError` (default: `reportError`), as every
 *   trigger operator does; the stream never errors because of them.
 */
export function toJoinKeys(options: ToJoinKeysOptions = {}): JoinTriggerOperator {
  const on = options.on ?? 'members';
  if (on !== 'members' && on !== 'any')
    throw new TypeError(`toJoinKeys: on must be 'members' or 'any', got ${String(on)}`);
  const operator = mapKeys<JoinRow>(
    (event) => triggersOf(event, on),
    options.onError === undefined ? {} : { onError: options.onError },
  );
  // The mapper reads only what every JoinRow has, so it is sound for every row type.
  return operator as unknown as JoinTriggerOperator;
}

function triggersOf(event: InformerEvent<JoinRow>, on: 'members' | 'any'): KeyMapping {
  const { key } = event;
  const owner = describe(event.object.left, key);
  if (event.type !== 'updated') {
    if (event.type === 'resync' && on === 'members') return undefined;
    return { key, reason: `${event.type} ${owner}` };
  }
  const joined: StoreChange<KubernetesObject>[] = [];
  const left: StoreChange<KubernetesObject>[] = [];
  const changed: StoreChange<KubernetesObject>[] = [];
  for (const change of diffStores(event.old.right, event.object.right)) {
    (change.type === 'added' ? joined : change.type === 'deleted' ? left : changed).push(change);
  }
  const triggers: ReconcileTrigger[] = [];
  if (joined.length > 0) triggers.push({ key, reason: `${some(joined)} joined ${owner}` });
  if (left.length > 0) triggers.push({ key, reason: `${some(left)} left ${owner}` });
  if (on === 'any') {
    if (changed.length > 0) triggers.push({ key, reason: `${some(changed)} changed on ${owner}` });
    if (event.old.left !== event.object.left) triggers.push({ key, reason: `updated ${owner}` });
  }
  return triggers;
}

/** `Pod default/a`, or `Pod default/a and 2 more`. */
function some(changes: readonly StoreChange<KubernetesObject>[]): string {
  const first = changes[0]!;
  const more = changes.length > 1 ? ` and ${changes.length - 1} more` : '';
  return `${describe(first.object, first.key)}${more}`;
}

/** `Kind key`, or the key alone for an object without a kind. */
function describe(object: KubernetesObject | undefined, key: string): string {
  const kind = object?.kind;
  return typeof kind === 'string' && kind !== '' ? `${kind} ${key}` : key;
}
