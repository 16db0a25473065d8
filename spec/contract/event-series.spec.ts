/**
 * Contract: the event recorder's writes (create, series merge patch) as both servers take them: a series reaching
 * count 3 in one Event, visible through both Event APIs; a note cut to the API's limit; a cluster-scoped object's
 * events in `default`.
 */
import { expect } from 'chai';
import { lastValueFrom } from 'rxjs';
import { eventRecorder } from '../../src/client/events/index.js';
import type { EventRecorder, EventReport } from '../../src/client/events/index.js';
import { contractTargets, expectStatus, suffix, useContractSession } from './support/index.js';

for (const target of contractTargets()) {
  describe(`contract (${target.name}): event series`, () => {
    const session = useContractSession(target, 'contract-event-series');
    let recorder: EventRecorder | undefined;
    let reports: EventReport[] = [];

    afterEach(async () => {
      if (recorder !== undefined) await lastValueFrom(recorder.close({ timeoutMs: 10_000 }));
      recorder = undefined;
    });

    const start = (): EventRecorder => {
      recorder = eventRecorder(session().connection, {
        reportingController: 'rxkube.io/contract',
        reportingInstance: `contract-${suffix()}`,
      });
      reports = [];
      recorder.reports$.subscribe((report) => reports.push(report));
      return recorder;
    };
    const flushed = async (events: EventRecorder): Promise<void> => {
      expect(await lastValueFrom(events.flush({ timeoutMs: 10_000 }))).to.deep.equal({ complete: true, pending: 0 });
      expect(
        reports.filter((r) => r.type !== 'created' && r.type !== 'updated'),
        'reports other than writes',
      ).to.deep.equal([]);
    };
    const eventsAbout = async (namespace: string, name: string, api = '/apis/events.k8s.io/v1'): Promise<any[]> => {
      const field = api === '/api/v1' ? 'involvedObject.name' : 'regarding.name';
      const list = await session().raw(
        'GET',
        `${api}/namespaces/${namespace}/events?fieldSelector=${encodeURIComponent(`${field}=${name}`)}`,
      );
      expectStatus(list, 200);
      return list.json.items;
    };

    it('an event series reaching count 3 is one Event whose series counts every occurrence', async () => {
      const { namespace, core } = session();
      const name = `settings-${suffix()}`;
      const configMap = await core.createNamespacedConfigMap({
        namespace,
        body: { metadata: { name }, data: { mode: 'a' } },
      });
      const events = start();
      const record = () =>
        events.event(configMap, { type: 'Normal', reason: 'Synced', action: 'Reconcile', note: 'settings applied' });

      record();
      await flushed(events);
      const [first, ...noOthers] = await eventsAbout(namespace, name);
      expect(noOthers).to.deep.equal([]);
      expect(first.series).to.equal(undefined);
      expect(first.regarding).to.deep.equal({
        kind: 'ConfigMap',
        namespace,
        name,
        uid: configMap.metadata!.uid,
        apiVersion: 'v1',
        resourceVersion: configMap.metadata!.resourceVersion,
      });
      expect(first).to.deep.include({
        reportingController: 'rxkube.io/contract',
        type: 'Normal',
        reason: 'Synced',
        action: 'Reconcile',
        note: 'settings applied',
      });
      expect(first.eventTime).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

      record();
      await flushed(events);
      const [second] = await eventsAbout(namespace, name);
      expect(second.series.count).to.equal(2);

      record();
      await flushed(events);
      const [third, ...stillNoOthers] = await eventsAbout(namespace, name);
      expect(stillNoOthers).to.deep.equal([]);
      expect(third.metadata.name).to.equal(first.metadata.name);
      expect(third.eventTime).to.equal(first.eventTime);
      expect(third.series.count).to.equal(3);
      expect(third.series.lastObservedTime >= second.series.lastObservedTime).to.equal(true);
      expect(third.series.lastObservedTime >= third.eventTime).to.equal(true);

      const [asCore] = await eventsAbout(namespace, name, '/api/v1');
      expect(asCore.series).to.deep.equal(third.series);
      expect(asCore.reportingComponent).to.equal('rxkube.io/contract');
      expect(reports.map((r) => r.type)).to.deep.equal(['created', 'updated', 'updated']);
    });

    it("a note over 1 KiB is cut to the API's limit and the Event is accepted", async () => {
      const { namespace } = session();
      const name = `noted-${suffix()}`;
      const events = start();
      events.event(
        { apiVersion: 'v1', kind: 'ConfigMap', namespace, name },
        { type: 'Warning', reason: 'Invalid', action: 'Validate', note: 'ü'.repeat(700) },
      );
      await flushed(events);
      const [stored] = await eventsAbout(namespace, name);
      expect(Buffer.byteLength(stored.note)).to.equal(1024);
      expect(stored.note).to.equal('ü'.repeat(512));
      expect(events.counts()).to.include({ truncated: 1, created: 1 });
    });

    it('events about a cluster-scoped object go to the default namespace', async () => {
      const { namespace } = session();
      const events = start();
      events.event(
        { apiVersion: 'v1', kind: 'Namespace', name: namespace },
        { type: 'Normal', reason: 'Observed', action: 'Watch' },
      );
      await flushed(events);
      const [stored] = await eventsAbout('default', namespace);
      expect(stored.metadata.namespace).to.equal('default');
      expect(stored.regarding).to.deep.equal({ apiVersion: 'v1', kind: 'Namespace', name: namespace });
      expectStatus(
        await session().raw('DELETE', `/apis/events.k8s.io/v1/namespaces/default/events/${stored.metadata.name}`),
        200,
      );
    });
  });
}
