/** Contract: metadata-only representations (PartialObjectMetadata) and the shape of Status bodies. */
import { expect } from 'chai';
import { contractTargets, corePath, suffix, useContractSession } from './support/index.js';

for (const target of contractTargets()) {
  const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
  const METADATA_ONE = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';

  describe(`contract (${target.name}): representations`, () => {
    const session = useContractSession(target, 'contract-repr');
    const configMaps = (): string => corePath(session(), 'configmaps');

    async function createConfigMap(): Promise<any> {
      const made = await session().raw('POST', configMaps(), {
        body: { metadata: { name: `cm-${suffix()}`, labels: { a: 'b' } }, data: { secret: 'payload' } },
      });
      expect(made.status, made.text).to.equal(201);
      return made.json;
    }

    it('serves a PartialObjectMetadataList without object bodies for the metadata-only Accept header', async () => {
      const made = await createConfigMap();
      const list = await session().raw('GET', configMaps(), { accept: METADATA_LIST });
      expect(list.status, list.text).to.equal(200);
      expect(list.headers['content-type']).to.match(/^application\/json/);
      expect(list.json).to.deep.include({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1' });
      expect(list.json.metadata.resourceVersion).to.be.a('string');
      const item = (list.json.items as any[]).find((i) => i.metadata.name === made.metadata.name);
      expect(item).to.not.equal(undefined);
      expect(Object.keys(item).sort()).to.deep.equal(['apiVersion', 'kind', 'metadata']);
      expect(item).to.deep.include({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
      expect(item.metadata).to.deep.include({ name: made.metadata.name, uid: made.metadata.uid, labels: { a: 'b' } });
    });

    it('serves one object as PartialObjectMetadata', async () => {
      const made = await createConfigMap();
      const one = await session().raw('GET', `${configMaps()}/${made.metadata.name}`, { accept: METADATA_ONE });
      expect(one.status, one.text).to.equal(200);
      expect(one.json).to.deep.include({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
      expect(one.json).to.not.have.property('data');
      expect(one.json.metadata.resourceVersion).to.equal(made.metadata.resourceVersion);
    });

    it('streams PartialObjectMetadata objects on a metadata-only watch', async () => {
      const start = (await session().raw('GET', `${configMaps()}?limit=1`)).json.metadata.resourceVersion;
      const stream = await session().openWatch(`${configMaps()}?watch=1&resourceVersion=${start}`, METADATA_ONE);
      try {
        expect((await stream.response).status).to.equal(200);
        const made = await createConfigMap();
        const event = await stream.next((e) => e.object?.metadata?.name === made.metadata.name);
        expect(event.type).to.equal('ADDED');
        expect(event.object).to.deep.include({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
        expect(event.object).to.not.have.property('data');
      } finally {
        stream.close();
      }
    });

    it('leaves kind and apiVersion out of list items only: watch events, Table rows and metadata items keep them', async () => {
      const made = await createConfigMap();
      const name = made.metadata.name as string;
      const list = (await session().raw('GET', configMaps())).json;
      const item = (list.items as any[]).find((i) => i.metadata.name === name);
      expect(item).to.not.have.any.keys('kind', 'apiVersion');
      const table = (
        await session().raw('GET', configMaps(), { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' })
      ).json;
      const row = (table.rows as any[]).find((r) => r.object.metadata.name === name);
      expect(Object.keys(row.object).sort()).to.deep.equal(['apiVersion', 'kind', 'metadata']);
      expect(row.object).to.deep.include({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
      const stream = await session().openWatch(`${configMaps()}?watch=1&fieldSelector=metadata.name%3D${name}`);
      try {
        const added = await stream.next((e) => e.object?.metadata?.name === name);
        expect(added.object).to.deep.include({ kind: 'ConfigMap', apiVersion: 'v1' });
        const { kind: _kind, apiVersion: _apiVersion, ...rest } = added.object;
        expect(rest).to.deep.equal(item);
      } finally {
        stream.close();
      }
    });

    it('answers an Accept header it cannot serve with 406 NotAcceptable', async () => {
      const answer = await session().raw('GET', configMaps(), { accept: 'text/csv' });
      expect(answer.status).to.equal(406);
      expect(answer.json).to.deep.include({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code: 406,
        reason: 'NotAcceptable',
      });
    });

    it('answers every failure with a Status carrying kind, apiVersion, status, reason, code and message', async () => {
      const { raw, namespace } = session();
      const failures = await Promise.all([
        raw('GET', `${configMaps()}/missing`),
        raw('POST', `${configMaps()}`, { body: { metadata: { name: 'UPPER' } } }),
        raw('GET', `${configMaps()}?fieldSelector=${encodeURIComponent('metadata.name=a,=b')}`),
        raw('POST', `/api/v1/namespaces/${namespace}/configmaps`, {
          body: '{not json',
          contentType: 'application/json',
        }),
      ]);
      for (const failure of failures) {
        expect(failure.json, failure.text).to.include.all.keys(
          'kind',
          'apiVersion',
          'metadata',
          'status',
          'message',
          'reason',
          'code',
        );
        expect(failure.json).to.deep.include({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          code: failure.status,
        });
      }
      expect(failures.map((f) => [f.status, f.json.reason])).to.deep.equal([
        [404, 'NotFound'],
        [422, 'Invalid'],
        [400, 'BadRequest'],
        [400, 'BadRequest'],
      ]);
    });
  });
}
