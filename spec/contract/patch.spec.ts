/** Contract: merge, JSON and strategic-merge patches, and how bad patches are refused. */
import { expect } from 'chai';
import { contractTargets, suffix, useContractSession } from './support/index.js';

for (const target of contractTargets()) {
  const MERGE = 'application/merge-patch+json';
  const JSON_PATCH = 'application/json-patch+json';
  const STRATEGIC = 'application/strategic-merge-patch+json';

  describe(`contract (${target.name}): patch`, () => {
    const session = useContractSession(target, 'contract-patch');

    async function configMap(): Promise<string> {
      const name = `cm-${suffix()}`;
      const made = await session().raw('POST', `/api/v1/namespaces/${session().namespace}/configmaps`, {
        body: { metadata: { name, labels: { a: 'b' } }, data: { k: 'v' } },
      });
      expect(made.status, made.text).to.equal(201);
      return `/api/v1/namespaces/${session().namespace}/configmaps/${name}`;
    }

    const patch = (path: string, body: unknown, contentType: string) =>
      session().raw('PATCH', path, { body, contentType });

    it('applies a merge patch, where null removes a key', async () => {
      const path = await configMap();
      const answer = await patch(path, { metadata: { labels: { a: null, x: 'y' } }, data: { k2: 'v2' } }, MERGE);
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.json.metadata.labels).to.deep.equal({ x: 'y' });
      expect(answer.json.data).to.deep.equal({ k: 'v', k2: 'v2' });
    });

    it('applies a JSON patch and a strategic-merge patch to a built-in type', async () => {
      const path = await configMap();
      const json = await patch(
        path,
        [
          { op: 'add', path: '/data/j', value: '1' },
          { op: 'remove', path: '/metadata/labels/a' },
        ],
        JSON_PATCH,
      );
      expect(json.status, json.text).to.equal(200);
      expect(json.json.data).to.deep.equal({ k: 'v', j: '1' });
      const strategic = await patch(path, { data: { k: 's' } }, STRATEGIC);
      expect(strategic.json.data).to.deep.equal({ k: 's', j: '1' });
    });

    it('answers a failed JSON patch test operation with a detail-less 422', async () => {
      const path = await configMap();
      const answer = await patch(path, [{ op: 'test', path: '/data/k', value: 'nope' }], JSON_PATCH);
      expect(answer.json).to.deep.equal({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code: 422,
        reason: 'Invalid',
        message: 'the server rejected our request due to an error in our request',
        details: {},
      });
    });

    it('answers a patch whose resourceVersion is stale with 409 Conflict', async () => {
      const path = await configMap();
      const answer = await patch(path, { metadata: { resourceVersion: '1' }, data: { k: 'x' } }, MERGE);
      expect(answer.status).to.equal(409);
      expect(answer.json.reason).to.equal('Conflict');
    });

    it('answers a patch that is not JSON with 400 "error decoding patch"', async () => {
      const path = await configMap();
      const answer = await patch(path, 'not json', MERGE);
      expect(answer.status).to.equal(400);
      expect(answer.json.reason).to.equal('BadRequest');
      expect(answer.json.message).to.match(/^error decoding patch: /);
    });

    it('answers a patch with an unknown content type with 415', async () => {
      const path = await configMap();
      const answer = await patch(path, {}, 'text/plain');
      expect(answer.json).to.deep.equal({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code: 415,
        reason: 'UnsupportedMediaType',
        message: '415: Unsupported Media Type',
        details: {},
      });
    });

    it('answers a patch of a missing object with 404 NotFound', async () => {
      const answer = await patch(`/api/v1/namespaces/${session().namespace}/configmaps/nope`, {}, MERGE);
      expect(answer.json).to.deep.include({ code: 404, reason: 'NotFound', message: 'configmaps "nope" not found' });
    });
  });
}
