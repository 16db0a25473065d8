/**
 * The event recorder against the in-memory API server over real HTTP (127.0.0.1), in real time, through injected
 * faults. Timings are never asserted; every wait is bounded by `flush`'s time limit.
 */
import { expect } from 'chai';
import { firstValueFrom, lastValueFrom } from 'rxjs';
import { eventRecorder } from '../../../src/client/events/index.js';
import type {
  EventRecorder,
  EventRecorderOptions,
  EventReport,
  RecordedEvent,
} from '../../../src/client/events/index.js';
import { startTestCluster } from '../../../src/testing/index.js';
import type { TestCluster } from '../../../src/testing/index.js';
import { ApiError, transportOf } from '../../../src/transport/index.js';

const EVENTS = '/apis/events.k8s.io/v1/namespaces/default/events';
const settings = { name: 'settings', namespace: 'default', uid: 'cm-1', apiVersion: 'v1', kind: 'ConfigMap' };
const synced = { type: 'Normal', reason: 'Synced', action: 'Reconcile', note: 'settings applied' } as const;

describe('eventRecorder integration: in-memory API server over HTTP', () => {
  let cluster: TestCluster;
  let recorder: EventRecorder | undefined;
  let reports: EventReport[];

  before(async () => {
    cluster = await startTestCluster();
  });
  afterEach(async () => {
    cluster.faults.clear();
    if (recorder !== undefined) await lastValueFrom(recorder.close({ timeoutMs: 2000 }));
    recorder = undefined;
  });
  after(() => cluster.stop());

  const start = (options: Partial<EventRecorderOptions> = {}): EventRecorder => {
    recorder = eventRecorder(cluster.kubeConfig, {
      reportingController: 'example.com/settings-controller',
      reportingInstance: 'settings-0',
      retryBackoff: { baseMs: 20, factor: 2, capMs: 200 },
      ...options,
    });
    reports = [];
    recorder.reports$.subscribe((report) => reports.push(report));
    return recorder;
  };
  const get = async (path: string): Promise<any> =>
    (await firstValueFrom(transportOf(cluster.kubeConfig).request({ method: 'GET', path }))).body;
  const eventsAbout = async (name: string): Promise<RecordedEvent[]> =>
    (await get(`${EVENTS}?fieldSelector=${encodeURIComponent(`regarding.name=${name}`)}`)).items;

  it('writes its Events and their series under its field manager: the reporting controller, or fieldManager', async () => {
    const managers = async (name: string): Promise<string[]> =>
      (await eventsAbout(name))
        .flatMap(
          (event) =>
            (event.metadata as { managedFields?: Array<{ manager: string; operation: string }> }).managedFields ?? [],
        )
        .map((entry) => `${entry.manager} ${entry.operation}`);
    const events = start();
    events.event({ ...settings, name: 'managed-default', uid: 'cm-2' }, synced);
    events.event({ ...settings, name: 'managed-default', uid: 'cm-2' }, synced);
    await lastValueFrom(events.flush({ timeoutMs: 5000 }));
    expect(await managers('managed-default')).to.deep.equal(['example.com/settings-controller Update']);
    await lastValueFrom(events.close({ timeoutMs: 2000 }));

    const named = start({ fieldManager: 'settings-events' });
    named.event({ ...settings, name: 'managed-named', uid: 'cm-3' }, synced);
    await lastValueFrom(named.flush({ timeoutMs: 5000 }));
    expect(await managers('managed-named')).to.deep.equal(['settings-events Update']);
    expect(() => start({ fieldManager: 'x'.repeat(129) })).to.throw(RangeError, /fieldManager/);
  });

  it('records an Event, folds repeats into its series and flushes the count, readable through both Event APIs', async () => {
    const events = start();
    for (let i = 0; i < 3; i++) events.event(settings, synced);
    const result = await lastValueFrom(events.flush({ timeoutMs: 5000 }));
    expect(result).to.deep.equal({ complete: true, pending: 0 });
    const [stored, ...others] = await eventsAbout('settings');
    expect(others).to.deep.equal([]);
    expect(stored).to.deep.include({
      reportingController: 'example.com/settings-controller',
      reportingInstance: 'settings-0',
      type: 'Normal',
      reason: 'Synced',
      action: 'Reconcile',
      note: 'settings applied',
    });
    expect(stored!.series?.count).to.equal(3);
    const core = await get(`/api/v1/namespaces/default/events/${stored!.metadata.name}`);
    expect(core.series.count).to.equal(3);
    expect(core.involvedObject).to.deep.equal(settings);
    expect(events.counts()).to.include({ recorded: 3, folded: 2, failed: 0, dropped: 0, pending: 0 });
  });

  it('retries through a 429 with Retry-After and a 500, and writes once the server answers', async () => {
    const events = start();
    cluster.faults.failNext({ status: 429, method: 'POST', path: EVENTS, retryAfterSeconds: 1 });
    cluster.faults.failNext({ status: 500, method: 'POST', path: EVENTS });
    events.event({ ...settings, name: 'throttled' }, synced);
    expect(await lastValueFrom(events.flush({ timeoutMs: 10_000 }))).to.deep.equal({ complete: true, pending: 0 });
    const retries = reports.filter((r): r is Extract<EventReport, { type: 'retrying' }> => r.type === 'retrying');
    expect(retries.map((r) => (r.error as ApiError).code)).to.deep.equal([429, 500]);
    expect(retries[0]!.delayMs).to.be.at.least(1000);
    expect(reports.at(-1)!.type).to.equal('created');
    expect(await eventsAbout('throttled')).to.have.length(1);
  });

  it('fails a 403 at once, without retrying it, and reports the typed error', async () => {
    const events = start();
    cluster.faults.failNext({ status: 403, method: 'POST', path: EVENTS });
    events.event({ ...settings, name: 'forbidden' }, synced);
    await lastValueFrom(events.flush({ timeoutMs: 5000 }));
    expect(reports.map((r) => r.type)).to.deep.equal(['failed']);
    const failure = reports[0] as Extract<EventReport, { type: 'failed' }>;
    expect(failure.error).to.be.instanceOf(ApiError).and.to.include({ code: 403, reason: 'Forbidden' });
    expect(failure.attempts).to.equal(1);
    expect(await eventsAbout('forbidden')).to.deep.equal([]);
  });

  it('recreates an Event deleted between occurrences, with its series', async () => {
    const events = start();
    events.event({ ...settings, name: 'deleted' }, synced);
    await lastValueFrom(events.flush({ timeoutMs: 5000 }));
    const [first] = await eventsAbout('deleted');
    await firstValueFrom(
      transportOf(cluster.kubeConfig).request({ method: 'DELETE', path: `${EVENTS}/${first!.metadata.name}` }),
    );
    events.event({ ...settings, name: 'deleted' }, synced);
    await lastValueFrom(events.flush({ timeoutMs: 5000 }));
    const [again, ...others] = await eventsAbout('deleted');
    expect(others).to.deep.equal([]);
    expect(again!.metadata.name).to.equal(first!.metadata.name);
    expect(again!.series?.count).to.equal(2);
    expect(reports.map((r) => r.type)).to.deep.equal(['created', 'created']);
  });

  it('close writes what is pending and completes reports$', async () => {
    const events = start();
    let completed = false;
    events.reports$.subscribe({ complete: () => (completed = true) });
    events.event({ ...settings, name: 'closing' }, synced);
    events.event({ ...settings, name: 'closing' }, synced);
    expect(await lastValueFrom(events.close({ timeoutMs: 5000 }))).to.deep.equal({ complete: true, pending: 0 });
    recorder = undefined;
    expect(completed).to.equal(true);
    const [stored] = await eventsAbout('closing');
    expect(stored!.series?.count).to.equal(2);
  });
});
