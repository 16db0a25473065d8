import { expect } from 'chai';
import { firstValueFrom, takeUntil, timer, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { resourceClient } from '../../../src/client/index.js';
import { startTestCluster, virtualCluster, type RequestRecord, type TestCluster } from '../../../src/testing/index.js';
import { raw } from './helpers.js';

/** The parts of a record a spec compares (time and query apart). */
const summary = (r: RequestRecord): string =>
  [
    r.code,
    r.verb,
    r.group === undefined ? '-' : `${r.group}/${r.version}`,
    r.resource ?? '-',
    r.subresource ?? '-',
    r.namespace ?? '-',
    r.name ?? '-',
  ].join(' ');

describe('in-memory API server: request log', () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startTestCluster({ requestLogSize: 50 });
  });
  after(() => cluster.stop());
  beforeEach(() => cluster.requestLog.clear());

  it('records each request with its verb, resource, namespace, name, user agent and answer, in order', async () => {
    const json = { 'content-type': 'application/json', 'user-agent': 'my-controller/1.0' };
    await raw(cluster, '/api/v1/namespaces/default/configmaps?labelSelector=a%3Db&limit=5');
    await raw(cluster, '/api/v1/namespaces/default/configmaps', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ metadata: { name: 'logged' } }),
    });
    await raw(cluster, '/api/v1/namespaces/default/configmaps/logged', {
      method: 'PATCH',
      headers: { ...json, 'content-type': 'application/merge-patch+json' },
      body: '{"data":{"a":"b"}}',
    });
    await raw(cluster, '/apis/apps/v1/namespaces/default/deployments/missing/status');
    await raw(cluster, '/apis/nope.example.com/v1/things');
    await raw(cluster, '/apis/apps/v1');
    await raw(cluster, '/api/v1/namespaces/kube-system');
    await raw(cluster, '/api/v1/namespaces/default/configmaps/logged', { method: 'DELETE' });
    await raw(cluster, '/api/v1/namespaces/default/configmaps', { method: 'DELETE' });
    const watch = new AbortController();
    const watching = await raw(cluster, '/api/v1/watch/namespaces/default/configmaps', { signal: watch.signal });
    watch.abort();
    await watching.body?.cancel().catch(() => undefined);

    const records = cluster.requestLog.records();
    expect(records.map(summary)).to.deep.equal([
      '200 list /v1 configmaps - default -',
      '201 create /v1 configmaps - default -',
      '200 patch /v1 configmaps - default logged',
      '404 get apps/v1 deployments status default missing',
      '404 list nope.example.com/v1 things - - -',
      '200 get - - - - -',
      '200 get /v1 namespaces - kube-system kube-system',
      '200 delete /v1 configmaps - default logged',
      '200 deletecollection /v1 configmaps - default -',
      '200 watch /v1 configmaps - default -',
    ]);
    expect(records[0]).to.deep.include({
      method: 'GET',
      path: '/api/v1/namespaces/default/configmaps',
      query: { labelSelector: 'a=b', limit: '5' },
    });
    expect(records[1]!.userAgent).to.equal('my-controller/1.0');
    expect(records[5]).to.deep.include({ path: '/apis/apps/v1', query: {} }).and.not.have.property('resource');
    for (const r of records) expect(Date.parse(r.time)).to.be.a('number').and.not.NaN;
    expect(cluster.requestLog.dropped).to.equal(0);
  });

  it('keeps at most requestLogSize records, counts the ones it dropped, and starts afresh after clear()', async () => {
    for (let i = 0; i < 60; i++) await raw(cluster, `/api/v1/namespaces/default/configmaps?n=${i}`);
    const records = cluster.requestLog.records();
    expect(records).to.have.length(50);
    expect(records[0]!.query).to.deep.equal({ n: '10' });
    expect(cluster.requestLog.dropped).to.equal(10);
    records.pop();
    expect(cluster.requestLog.records()).to.have.length(50);
    cluster.requestLog.clear();
    expect([cluster.requestLog.records(), cluster.requestLog.dropped]).to.deep.equal([[], 0]);
  });

  it('leaves the requests to the fault endpoint out', async () => {
    await raw(cluster, '/__rxkube/faults/clear', { method: 'POST', body: '{}' });
    await raw(cluster, '/__rxkube/resourceVersion');
    expect(cluster.requestLog.records()).to.deep.equal([]);
  });

  it('streams each record as it is added', async () => {
    const seen = firstValueFrom(cluster.requestLog.records$);
    await raw(cluster, '/api/v1/nodes/n1');
    expect(summary(await seen)).to.equal('404 get /v1 nodes - - n1');
  });
});

describe('virtual cluster: request log', () => {
  it("records requests at their virtual times, with the transport's answers", () => {
    let records: RequestRecord[] = [];
    const scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
    scheduler.run(({ flush }) => {
      const cluster = virtualCluster({ scheduler });
      const configMaps = resourceClient(cluster, { apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default' });
      timer(1000, scheduler).subscribe(() => configMaps.create({ metadata: { name: 'a' } }).subscribe());
      timer(2000, scheduler).subscribe(() => configMaps.get('b').subscribe({ error: () => undefined }));
      const live: RequestRecord[] = [];
      cluster.requestLog.records$
        .pipe(takeUntil(timer(3000, scheduler)), toArray())
        .subscribe((all) => live.push(...all));
      flush();
      records = cluster.requestLog.records();
      expect(live).to.deep.equal(records);
      cluster.close();
    });
    expect(records.map((r) => `${r.time} ${summary(r)}`)).to.deep.equal([
      '1970-01-01T00:00:01.000Z 201 create /v1 configmaps - default -',
      '1970-01-01T00:00:02.000Z 404 get /v1 configmaps - default b',
    ]);
  });
  it('records a request whose client left before its delayed answer with code 0, at its arrival time', () => {
    let records: RequestRecord[] = [];
    const scheduler = new TestScheduler((actual, expected) => {
      expect(actual).to.deep.equal(expected);
    });
    scheduler.run(({ flush }) => {
      const cluster = virtualCluster({ scheduler });
      cluster.faults.latency(5000);
      const namespaces = resourceClient(cluster, { apiVersion: 'v1', kind: 'Namespace' });
      const abandoned = namespaces.list().subscribe();
      timer(1000, scheduler).subscribe(() => abandoned.unsubscribe());
      flush();
      records = cluster.requestLog.records();
      cluster.close();
    });
    expect(records.map((r) => `${r.time} ${summary(r)}`)).to.deep.equal([
      '1970-01-01T00:00:00.000Z 0 list /v1 namespaces - - -',
    ]);
  });
});
