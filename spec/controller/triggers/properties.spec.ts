import { expect } from 'chai';
import fc from 'fast-check';
import { Subject } from 'rxjs';
import type { V1OwnerReference } from '@kubernetes/client-node';
import type { InformerEvent } from '../../../src/informer/index.js';
import type { ReconcileTrigger } from '../../../src/controller/index.js';
import { toKeys, toOwnerKeys } from '../../../src/controller/triggers/index.js';
import { added, deleted, obj, ownerRef, resync, updated } from '../predicates/fixtures.js';

function collect(operator: ReturnType<typeof toKeys>, events: InformerEvent[]): ReconcileTrigger[] {
  const source = new Subject<InformerEvent>();
  const out: ReconcileTrigger[] = [];
  source.pipe(operator).subscribe((t) => out.push(t));
  for (const event of events) source.next(event);
  return out;
}

const ref: fc.Arbitrary<V1OwnerReference> = fc
  .record({
    kind: fc.constantFrom('ReplicaSet', 'Job'),
    name: fc.constantFrom('r1', 'r2', 'r3'),
    controller: fc.constantFrom(true, false, undefined),
  })
  .map(({ kind, name, controller }) => ownerRef(kind, name, { controller }));

const child = fc
  .record({ name: fc.constantFrom('a', 'b'), refs: fc.array(ref, { maxLength: 4 }) })
  .map(({ name, refs }) => obj(name, { ownerReferences: refs }));

const event: fc.Arbitrary<InformerEvent> = fc.oneof(
  child.map(added),
  fc.tuple(child, child).map(([old, now]) => updated(old, obj(old.metadata!.name!, now.metadata))),
  fc.tuple(child, fc.boolean()).map(([o, unknown]) => deleted(o, unknown)),
  child.map(resync),
);

/** The model: owner names of matching references, in the order old then new, each once. */
function expectedOwners(e: InformerEvent, allOwners: boolean): string[] {
  const objects = e.type === 'updated' ? [e.old, e.object] : [e.object];
  const names = objects.flatMap((o) =>
    (o.metadata?.ownerReferences ?? [])
      .filter((r) => r.kind === 'ReplicaSet' && (allOwners || r.controller === true))
      .map((r) => `default/${r.name}`),
  );
  return [...new Set(names)];
}

describe('trigger properties', () => {
  it('toKeys emits exactly one trigger per event, keyed by the event key', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 20 }), (events) => {
        const out = collect(toKeys(), events);
        expect(out.map((t) => t.key)).to.deep.equal(events.map((e) => e.key));
        expect(out.every((t, i) => t.reason!.startsWith(events[i]!.type))).to.equal(true);
      }),
      { numRuns: 100 },
    );
  });

  it('toOwnerKeys emits each matching owner of old and new exactly once per event', () => {
    fc.assert(
      fc.property(event, fc.boolean(), (e, allOwners) => {
        const out = collect(toOwnerKeys({ kind: 'ReplicaSet', allOwners }), [e]);
        expect(out.map((t) => t.key)).to.deep.equal(expectedOwners(e, allOwners));
      }),
      { numRuns: 200 },
    );
  });
});
