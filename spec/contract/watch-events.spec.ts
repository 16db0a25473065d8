/** Contract: what individual watch events carry — initial state, deletions, finalizer deletes, single-object watches. */
import { expect } from 'chai';
import { contractTargets, isNamed, suffix, useConfigMapWatches, useContractSession } from './support/index.js';

for (const target of contractTargets()) {
  describe(`contract (${target.name}): watch events`, () => {
    const session = useContractSession(target, 'contract-wev');
    const { path: configMaps, watch, create, currentRv } = useConfigMapWatches(session);

    it('starts a watch without a resourceVersion with ADDED events for the current state', async () => {
      const set = suffix();
      const names = [`i1-${set}`, `i2-${set}`];
      for (const name of names) await create(name, { labels: { set } });
      const stream = await watch(`labelSelector=set%3D${set}`);
      await stream.next(isNamed(names[1]!));
      await stream.next(isNamed(names[0]!));
      expect(stream.events.map((e) => e.type)).to.deep.equal(['ADDED', 'ADDED']);
    });

    it('sends DELETED with the last object state and the deletion resourceVersion', async () => {
      const made = await create(`d-${suffix()}`);
      const stream = await watch(`resourceVersion=${made.metadata.resourceVersion}`);
      const deleted = await session().raw('DELETE', `${configMaps()}/${made.metadata.name}`);
      expect(deleted.status).to.equal(200);
      const event = await stream.next(isNamed(made.metadata.name));
      expect(event.type).to.equal('DELETED');
      expect(event.object.data).to.deep.equal({ v: '0' });
      expect(event.object.metadata.uid).to.equal(made.metadata.uid);
      expect(BigInt(event.object.metadata.resourceVersion) > BigInt(made.metadata.resourceVersion)).to.equal(true);
      expect(BigInt(event.object.metadata.resourceVersion) <= BigInt(await currentRv())).to.equal(true);
    });

    it('sends MODIFIED with a deletionTimestamp, then one DELETED when the last finalizer goes', async () => {
      const made = await create(`f-${suffix()}`, { finalizers: ['example.com/hold'] });
      const stream = await watch(`resourceVersion=${made.metadata.resourceVersion}`);
      const path = `${configMaps()}/${made.metadata.name}`;
      const deleting = (await session().raw('DELETE', path)).json;
      const marked = await stream.next(isNamed(made.metadata.name));
      expect(marked.type).to.equal('MODIFIED');
      expect(marked.object.metadata.deletionTimestamp).to.equal(deleting.metadata.deletionTimestamp);

      const released = await session().raw('PUT', path, {
        body: { ...deleting, metadata: { ...deleting.metadata, finalizers: [] } },
      });
      expect(released.status, released.text).to.equal(200);
      const gone = await stream.next((e) => e.type === 'DELETED');
      // The update that empties the finalizers becomes a delete of the stored object, so the event still carries
      // the finalizer it had; only the resourceVersion is the deletion's.
      expect(gone.object.metadata.finalizers).to.deep.equal(['example.com/hold']);
      expect(BigInt(gone.object.metadata.resourceVersion) > BigInt(marked.object.metadata.resourceVersion)).to.equal(
        true,
      );
      // The PUT is answered with the object as submitted (no finalizers) at the resourceVersion it was read at: the
      // write became a delete, so no object exists at the deletion's resourceVersion.
      expect(released.json.metadata.finalizers ?? []).to.deep.equal([]);
      expect(released.json.metadata.resourceVersion).to.equal(marked.object.metadata.resourceVersion);
      expect(stream.events.map((e) => e.type)).to.deep.equal(['MODIFIED', 'DELETED']);
    });

    it('watches one object with a metadata.name field selector and ignores its neighbours', async () => {
      const mine = await create(`one-${suffix()}`);
      const stream = await watch(
        `resourceVersion=${mine.metadata.resourceVersion}&fieldSelector=metadata.name%3D${mine.metadata.name}`,
      );
      await create(`other-${suffix()}`);
      const updated = await session().raw('PUT', `${configMaps()}/${mine.metadata.name}`, {
        body: { ...mine, data: { v: '1' } },
      });
      const event = await stream.next(isNamed(mine.metadata.name));
      expect(event.type).to.equal('MODIFIED');
      expect(event.object.metadata.resourceVersion).to.equal(updated.json.metadata.resourceVersion);
      expect(stream.events).to.have.length(1);
    });

    it("delivers a write's watch event before the write's response, sometimes on kube-apiserver and always in memory", async function () {
      this.timeout(120_000);
      // kube-apiserver sends the event first in 15 to 80 % of writes (its watch cache and the response race); the
      // in-memory server promises it every time, so a controller that creates an object and then reads its informer
      // never finds it missing more often than against a real cluster. On the real server the scenario stops at the
      // first write whose event came first (60 writes all losing the race would be a change worth hearing of).
      const set = suffix();
      const stream = await watch(`labelSelector=set%3D${set}`);
      const writes = target.inMemoryCore ? 20 : 60;
      let eventFirst = 0;
      let written = 0;
      while (written < writes && (target.inMemoryCore || eventFirst === 0)) {
        const made = await create(`order-${written++}-${set}`, { labels: { set } });
        if (stream.events.some(isNamed(made.metadata.name))) eventFirst++;
        await stream.next(isNamed(made.metadata.name));
      }
      expect(eventFirst).to.equal(target.inMemoryCore ? writes : 1);
    });
  });
}
