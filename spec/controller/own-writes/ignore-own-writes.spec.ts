/**
 * `ignoreOwnWrites`: exactly the events that only echo a conditioned write of ours are dropped; everything else passes,
 * in order, and an event that races its write's answer waits for it.
 */
import { expect } from 'chai';
import type { KubernetesObject } from '@kubernetes/client-node';
import { Subject } from 'rxjs';
import { ignoreOwnWrites, ownWriteLedger } from '../../../src/controller/own-writes/index.js';
import type { InformerEvent } from '../../../src/informer/index.js';
import { Store } from '../../../src/store/index.js';
import { CONFIG_MAP, object, write } from './support.js';

const snapshot = Store.empty<KubernetesObject>();
const added = (item: KubernetesObject): InformerEvent => ({
  type: 'added',
  key: `default/${item.metadata!.name}`,
  object: item,
  snapshot,
});
const updated = (old: KubernetesObject, item: KubernetesObject): InformerEvent => ({
  type: 'updated',
  key: `default/${item.metadata!.name}`,
  old,
  object: item,
  snapshot,
});
const deleted = (item: KubernetesObject): InformerEvent => ({
  type: 'deleted',
  key: `default/${item.metadata!.name}`,
  object: item,
  stateUnknown: false,
  snapshot,
});
const describe$ = (event: InformerEvent): string =>
  `${event.type} ${event.object.metadata!.name}@${event.object.metadata!.resourceVersion}`;

/** Subscribes `ignoreOwnWrites` to a subject; `seen` lists what passed. */
function filtered(writes = ownWriteLedger()) {
  const events = new Subject<InformerEvent>();
  const seen: string[] = [];
  let completed = false;
  events
    .pipe(ignoreOwnWrites(writes, CONFIG_MAP))
    .subscribe({ next: (event) => seen.push(describe$(event)), complete: () => (completed = true) });
  return { writes, events, seen, completed: () => completed };
}

describe('ignoreOwnWrites: which events only echo our own writes', () => {
  it('drops the added echo of our create and the updated echo of our conditioned write', () => {
    const { writes, events, seen } = filtered();
    write(writes, object('a', '5'), { verb: 'create', base: null });
    events.next(added(object('a', '5')));
    write(writes, object('a', '6'), { verb: 'patch', base: '5' });
    events.next(updated(object('a', '5'), object('a', '6')));
    write(writes, object('a', '7'), { verb: 'patch', subresource: 'status', base: '6' });
    events.next(updated(object('a', '6'), object('a', '7')));
    expect(seen).to.deep.equal([]);
  });

  it("passes an update that may carry someone else's change: another version, a previous state that is not our base", () => {
    const { writes, events, seen } = filtered();
    write(writes, object('a', '6'), { base: '5' });
    // Someone wrote 7 after us: the event carries their change.
    events.next(updated(object('a', '6'), object('a', '7')));
    // A relist folded a write of someone else (4 → 5) into the event of ours (5 → 6): the cache still showed 4.
    events.next(updated(object('a', '4'), object('a', '6')));
    expect(seen).to.deep.equal(['updated a@7', 'updated a@6']);
  });

  it('passes the echoes of writes that were not conditioned, of deletes, and resyncs', () => {
    const { writes, events, seen } = filtered();
    write(writes, object('a', '6'), { verb: 'apply', base: undefined });
    events.next(updated(object('a', '5'), object('a', '6')));
    write(writes, object('b', '8'), { verb: 'delete' });
    events.next(deleted(object('b', '8')));
    events.next({ type: 'resync', key: 'default/a', object: object('a', '6'), snapshot });
    // An added event of an object our update brought into view (it was not created by us).
    write(writes, object('c', '9'), { verb: 'patch', base: '3' });
    events.next(added(object('c', '9')));
    expect(seen).to.deep.equal(['updated a@6', 'deleted b@8', 'resync a@6', 'added c@9']);
  });

  it('passes the echo of a write answered before it subscribed: a late subscriber is told everything', () => {
    const writes = ownWriteLedger();
    write(writes, object('a', '5'), { verb: 'create', base: null });
    const { events, seen } = filtered(writes);
    events.next(added(object('a', '5')));
    expect(seen).to.deep.equal(['added a@5']);
  });

  it('holds the events of an object while a write of it is in flight, and decides them in order when it settles', () => {
    const { writes, events, seen } = filtered();
    const pending = write(writes, undefined, { name: 'a', base: '5', settle: false });
    events.next(updated(object('a', '5'), object('a', '6')));
    events.next(added(object('other', '2')));
    events.next(updated(object('a', '6'), object('a', '7')));
    expect(seen, 'other objects pass at once').to.deep.equal(['added other@2']);
    // The answer arrives after its event, as kube-apiserver and the virtual cluster may deliver them.
    const outcome = writes.sending({
      resource: CONFIG_MAP,
      verb: 'patch',
      subresource: undefined,
      namespace: 'default',
      name: 'a',
      generateName: undefined,
      base: '5',
      signal: undefined,
    });
    outcome.answered?.(object('a', '6'));
    outcome.settled?.();
    expect(seen, 'still held: the first write has not settled').to.deep.equal(['added other@2']);
    pending.settle();
    expect(seen).to.deep.equal(['added other@2', 'updated a@7']);
  });

  it('holds the added events a create by generateName may have made until it settles', () => {
    const { writes, events, seen } = filtered();
    const outcome = writes.sending({
      resource: CONFIG_MAP,
      verb: 'create',
      subresource: undefined,
      namespace: 'default',
      name: undefined,
      generateName: 'web-',
      base: null,
      signal: undefined,
    });
    events.next(added(object('web-x1', '5')));
    events.next(added(object('db-1', '6')));
    expect(seen).to.deep.equal(['added db-1@6']);
    outcome.answered?.(object('web-x1', '5'));
    outcome.settled?.();
    expect(seen).to.deep.equal(['added db-1@6']);
  });

  it('decides and passes the events it holds when its source completes', () => {
    const { writes, events, seen, completed } = filtered();
    write(writes, undefined, { name: 'a', base: '5', settle: false });
    events.next(updated(object('a', '5'), object('a', '6')));
    events.complete();
    expect(seen).to.deep.equal(['updated a@6']);
    expect(completed()).to.equal(true);
  });
});
