/** Contract: core/v1 Events and events.k8s.io/v1 Events are two views of one resource. */
import { expect } from 'chai';
import { contractTargets, expectStatus, suffix, useContractSession } from './support/index.js';
import type { OpenWatch } from './support/index.js';

for (const target of contractTargets()) {
  describe(`contract (${target.name}): events in both APIs`, () => {
    const session = useContractSession(target, 'contract-events');
    const core = () => `/api/v1/namespaces/${session().namespace}/events`;
    const events = () => `/apis/events.k8s.io/v1/namespaces/${session().namespace}/events`;
    const watches: OpenWatch[] = [];
    afterEach(() => {
      for (const watch of watches.splice(0)) watch.close();
    });

    const coreEvent = (name: string) => ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name },
      involvedObject: { kind: 'Pod', name: 'web', namespace: session().namespace, apiVersion: 'v1' },
      reason: 'Started',
      message: 'container started',
      type: 'Normal',
      source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: '2026-01-01T00:00:00Z',
      lastTimestamp: '2026-01-01T00:01:00Z',
      count: 2,
    });

    const newEvent = (name: string) => ({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name },
      eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'example.com/controller',
      reportingInstance: 'controller-0',
      action: 'Reconcile',
      reason: 'Synced',
      type: 'Warning',
      note: 'synced with errors',
      regarding: { kind: 'ConfigMap', name: 'settings', namespace: session().namespace, apiVersion: 'v1' },
    });

    /** What events.k8s.io/v1 shows of `coreEvent`. */
    const asNew = (name: string) => ({
      eventTime: null,
      reason: 'Started',
      type: 'Normal',
      note: 'container started',
      regarding: { kind: 'Pod', name: 'web', namespace: session().namespace, apiVersion: 'v1' },
      deprecatedSource: { component: 'kubelet', host: 'node-1' },
      deprecatedFirstTimestamp: '2026-01-01T00:00:00Z',
      deprecatedLastTimestamp: '2026-01-01T00:01:00Z',
      deprecatedCount: 2,
      kind: 'Event',
      apiVersion: 'events.k8s.io/v1',
      name,
    });

    /** What core/v1 shows of `newEvent`. */
    const asCore = (name: string) => ({
      involvedObject: { kind: 'ConfigMap', name: 'settings', namespace: session().namespace, apiVersion: 'v1' },
      reason: 'Synced',
      message: 'synced with errors',
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      type: 'Warning',
      eventTime: '2026-01-01T00:00:00.000000Z',
      action: 'Reconcile',
      reportingComponent: 'example.com/controller',
      reportingInstance: 'controller-0',
      kind: 'Event',
      apiVersion: 'v1',
      name,
    });

    /** The object without metadata (whose name is folded in) for whole-body comparison. */
    const body = (obj: any) => {
      const { metadata, ...rest } = obj;
      return { ...rest, name: metadata.name };
    };

    it('reads a core/v1 Event through events.k8s.io/v1 with the fields mapped', async () => {
      const name = `core-${suffix()}`;
      expectStatus(await session().raw('POST', core(), { body: coreEvent(name) }), 201);
      const read = await session().raw('GET', `${events()}/${name}`);
      expectStatus(read, 200);
      expect(body(read.json)).to.deep.equal(asNew(name));
    });

    it('reads an events.k8s.io/v1 Event through core/v1 with the fields mapped', async () => {
      const name = `new-${suffix()}`;
      const made = await session().raw('POST', events(), { body: newEvent(name) });
      expectStatus(made, 201);
      const read = await session().raw('GET', `${core()}/${name}`);
      expectStatus(read, 200);
      expect(body(read.json)).to.deep.equal(asCore(name));
      expect(read.json.metadata.uid).to.equal(made.json.metadata.uid);
      expect(read.json.metadata.resourceVersion).to.equal(made.json.metadata.resourceVersion);
    });

    it('lists Events of either API through the other, with field selectors of the listing API', async () => {
      const a = `list-core-${suffix()}`;
      const b = `list-new-${suffix()}`;
      await session().raw('POST', core(), { body: coreEvent(a) });
      await session().raw('POST', events(), { body: newEvent(b) });
      const viaNew = await session().raw(
        'GET',
        `${events()}?fieldSelector=${encodeURIComponent('regarding.kind=Pod')}`,
      );
      expect(viaNew.json.kind).to.equal('EventList');
      expect(viaNew.json.items.map((i: any) => i.metadata.name))
        .to.include(a)
        .and.not.include(b);
      const viaCore = await session().raw(
        'GET',
        `${core()}?fieldSelector=${encodeURIComponent('involvedObject.kind=ConfigMap')}`,
      );
      // List items carry no kind/apiVersion on kube-apiserver; compare the rest.
      const { kind: _kind, apiVersion: _apiVersion, ...expected } = asCore(b);
      const item = viaCore.json.items.find((i: any) => i.metadata.name === b);
      const { kind: _k, apiVersion: _a, ...got } = body(item);
      expect(got).to.deep.equal(expected);
    });

    it("watches Events written through either API in the other API's form", async () => {
      const viaNew = await session().openWatch(
        `${events()}?watch=1&resourceVersion=${(await session().raw('GET', events())).json.metadata.resourceVersion}`,
      );
      const viaCore = await session().openWatch(
        `${core()}?watch=1&resourceVersion=${(await session().raw('GET', core())).json.metadata.resourceVersion}`,
      );
      watches.push(viaNew, viaCore);
      const a = `watch-core-${suffix()}`;
      const b = `watch-new-${suffix()}`;
      await session().raw('POST', core(), { body: coreEvent(a) });
      await session().raw('POST', events(), { body: newEvent(b) });
      const seenNew = await viaNew.next((e) => e.object?.metadata?.name === a);
      expect(seenNew.type).to.equal('ADDED');
      expect(body(seenNew.object)).to.deep.equal(asNew(a));
      const seenCore = await viaCore.next((e) => e.object?.metadata?.name === b);
      expect(body(seenCore.object)).to.deep.equal(asCore(b));
    });

    it('updates an Event through the other API and deletes it once for both', async () => {
      const name = `both-${suffix()}`;
      await session().raw('POST', events(), { body: newEvent(name) });
      const patched = await session().raw('PATCH', `${core()}/${name}`, {
        body: { message: 'fixed', count: 3 },
        contentType: 'application/merge-patch+json',
      });
      expectStatus(patched, 200);
      const read = await session().raw('GET', `${events()}/${name}`);
      expect(read.json).to.deep.include({ note: 'fixed', deprecatedCount: 3 });
      expectStatus(await session().raw('DELETE', `${events()}/${name}`), 200);
      expectStatus(await session().raw('GET', `${core()}/${name}`), 404);
    });

    it('refuses an events.k8s.io/v1 Event the API would not keep with 422, naming each field as the stored form does', async () => {
      const name = `bad-${suffix()}`;
      const bad = {
        ...newEvent(name),
        type: 'Bogus',
        reason: 'R'.repeat(129),
        note: 'n'.repeat(1025),
        reportingController: '',
        series: { count: 1, lastObservedTime: '2026-01-01T00:00:01.000000Z' },
        deprecatedCount: 4,
      };
      const refused = await session().raw('POST', events(), { body: bad });
      expectStatus(refused, 422);
      expect(refused.json.details.causes.map((c: any) => `${c.field}: ${c.message}`)).to.deep.equal([
        'reportingController: Required value',
        'reportingController: Invalid value: "": name part must be non-empty',
        "reportingController: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        'reason: Invalid value: "": can have at most 128 characters',
        'message: Invalid value: "": can have at most 1024 characters',
        'series.count: Invalid value: "": should be at least 2',
        'type: Invalid value: "": has invalid value: Bogus',
        'count: Invalid value: "": needs to be unset',
      ]);
      expectStatus(await session().raw('GET', `${events()}/${name}`), 404);
    });

    it("keeps an events.k8s.io/v1 Event's identity immutable but lets its series grow, and checks core/v1 writes loosely", async () => {
      const name = `immutable-${suffix()}`;
      expectStatus(await session().raw('POST', events(), { body: newEvent(name) }), 201);
      const renamed = await session().raw('PATCH', `${events()}/${name}`, {
        body: { reason: 'Other', action: 'Other' },
        contentType: 'application/merge-patch+json',
      });
      expectStatus(renamed, 422);
      expect(renamed.json.details.causes.map((c: any) => `${c.field}: ${c.message}`)).to.deep.equal([
        // ValidateEventUpdate checks reason twice.
        'reason: Invalid value: "Other": field is immutable',
        'reason: Invalid value: "Other": field is immutable',
        'action: Invalid value: "Other": field is immutable',
      ]);
      const series = { count: 2, lastObservedTime: '2026-01-01T00:05:00.000000Z' };
      const grown = await session().raw('PATCH', `${events()}/${name}`, {
        body: { series },
        contentType: 'application/merge-patch+json',
      });
      expectStatus(grown, 200);
      expect(grown.json.series).to.deep.equal(series);
      // core/v1 runs the legacy checks only: the same change of reason passes there.
      const loose = await session().raw('PATCH', `${core()}/${name}`, {
        body: { reason: 'Other' },
        contentType: 'application/merge-patch+json',
      });
      expectStatus(loose, 200);
      const legacyRefused = await session().raw('POST', core(), {
        body: {
          ...coreEvent(`legacy-${suffix()}`),
          involvedObject: { kind: 'Pod', name: 'web', namespace: 'elsewhere' },
        },
      });
      expectStatus(legacyRefused, 422);
      expect(legacyRefused.json.details.causes.map((c: any) => `${c.field}: ${c.message}`)).to.deep.equal([
        'involvedObject.namespace: Invalid value: "elsewhere": does not match event.namespace',
      ]);
    });
  });
}
