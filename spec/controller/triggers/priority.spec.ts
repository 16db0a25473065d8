import { expect } from 'chai';
import { Subject } from 'rxjs';
import type { InformerEvent } from '../../../src/informer/index.js';
import { HIGH_PRIORITY, LOW_PRIORITY, type ReconcileTrigger } from '../../../src/controller/index.js';
import { mapKeys, toKeys, toOwnerKeys, type TriggerOperator } from '../../../src/controller/triggers/index.js';
import { added, deleted, errorSink, obj, ownerRef, resync, updated } from '../predicates/fixtures.js';

function run(operator: TriggerOperator | ReturnType<typeof mapKeys>, events: InformerEvent[]): ReconcileTrigger[] {
  const source = new Subject<InformerEvent>();
  const out: ReconcileTrigger[] = [];
  source.pipe(operator as TriggerOperator).subscribe((t) => out.push(t));
  for (const event of events) source.next(event);
  return out;
}

/** The same event, as a list (the initial list, a relist, a late subscriber's replay) delivered it. */
const listed = (event: InformerEvent): InformerEvent => ({ ...event, fromList: true }) as InformerEvent;

describe('trigger priorities', () => {
  const a = obj('a');

  it("gives what a list delivered and a resync the low priority, and a live change none (the operator's normal)", () => {
    const out = run(toKeys(), [
      listed(added(a)),
      added(a),
      updated(a, a),
      listed(updated(a, a)),
      deleted(a),
      listed(deleted(a, true)),
      resync(a),
    ]);
    expect(out.map((t) => t.priority)).to.deep.equal([
      LOW_PRIORITY,
      undefined,
      undefined,
      LOW_PRIORITY,
      undefined,
      LOW_PRIORITY,
      LOW_PRIORITY,
    ]);
    expect(out[0]).to.deep.equal({ key: 'default/a', reason: 'added Pod default/a', priority: LOW_PRIORITY });
    expect(out[1]).to.deep.equal({ key: 'default/a', reason: 'added Pod default/a' });
  });

  it("gives an owner the priority of its child's event", () => {
    const child = obj('p', { ownerReferences: [ownerRef('ReplicaSet', 'rs')] });
    const out = run(toOwnerKeys({ kind: 'ReplicaSet' }), [listed(added(child)), added(child), resync(child)]);
    expect(out).to.deep.equal([
      { key: 'default/rs', reason: 'added Pod default/p', priority: LOW_PRIORITY },
      { key: 'default/rs', reason: 'added Pod default/p' },
      { key: 'default/rs', reason: 'resync Pod default/p', priority: LOW_PRIORITY },
    ]);
  });

  it("keeps a priority the mapping sets, and gives bare keys the event's", () => {
    const out = run(
      mapKeys(() => ['bare', { key: 'set', priority: HIGH_PRIORITY }, { key: 'raised', reason: 'mine', priority: 0 }]),
      [resync(a)],
    );
    expect(out).to.deep.equal([
      { key: 'bare', reason: 'resync Pod default/a', priority: LOW_PRIORITY },
      { key: 'set', reason: 'resync Pod default/a', priority: HIGH_PRIORITY },
      { key: 'raised', reason: 'mine', priority: 0 },
    ]);
  });

  it("reports a priority that is not a safe integer and uses the event's instead", () => {
    const sink = errorSink();
    const out = run(
      mapKeys(
        () => [
          { key: 'x', priority: 1.5 },
          { key: 'y', priority: '9' as never },
        ],
        { onError: sink.onError },
      ),
      [added(a)],
    );
    expect(out).to.deep.equal([
      { key: 'x', reason: 'added Pod default/a' },
      { key: 'y', reason: 'added Pod default/a' },
    ]);
    expect(sink.errors.map((e) => e.message)).to.have.length(2);
    expect(sink.errors[0]!.message).to.match(/priority is not a safe integer/);
  });
});
