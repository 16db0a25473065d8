/**
 * Contract: the exact Status bodies of request errors a client sees when it sends something wrong. Clients branch
 * on `code` and `reason` and people read `message`, so all three are pinned to what kube-apiserver answers.
 */
import { expect } from 'chai';
import { contractTargets, corePath, suffix, useContractSession } from './support/index.js';

for (const target of contractTargets()) {
  /** The fixed envelope of every failure Status. */
  const failure = (code: number, reason: string | undefined, message: string): object => ({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    code,
    message,
    ...(reason === undefined ? {} : { reason }),
  });

  describe(`contract (${target.name}): error bodies`, () => {
    const session = useContractSession(target, 'contract-errors');
    const configMaps = (): string => corePath(session(), 'configmaps');

    it('answers an unterminated set in a label selector with 400 and the parser message', async () => {
      const answer = await session().raw('GET', `${configMaps()}?labelSelector=${encodeURIComponent('color in (red')}`);
      expect(answer.json).to.deep.equal(
        failure(400, 'BadRequest', "unable to parse requirement: found '', expected: ',' or ')'"),
      );
    });

    // Only requirement-level errors carry the `unable to parse requirement:` prefix; list-level ones do not.
    const selectorMessages: Array<[string, string]> = [
      ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
      ['a,,b', "found ',', expected: identifier after ','"],
      [
        '-a',
        "unable to parse requirement: <nil>: Invalid value: \"-a\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    ];
    for (const [selector, message] of selectorMessages) {
      it(`answers the label selector "${selector}" with 400 and the parser message`, async () => {
        const answer = await session().raw('GET', `${configMaps()}?labelSelector=${encodeURIComponent(selector)}`);
        expect(answer.json).to.deep.equal(failure(400, 'BadRequest', message));
      });
    }

    it('answers an empty field name in a ConfigMap field selector with 400 naming the known fields', async () => {
      const answer = await session().raw(
        'GET',
        `${configMaps()}?fieldSelector=${encodeURIComponent('metadata.name=a,=b')}`,
      );
      expect(answer.json).to.deep.equal(
        failure(400, 'BadRequest', '"" is not a known field selector: only "metadata.name", "metadata.namespace"'),
      );
    });

    it('answers a body that is not JSON with 400 BadRequest', async () => {
      const answer = await session().raw('POST', configMaps(), { body: '{not json' });
      expect(answer.status).to.equal(400);
      expect(answer.json).to.deep.include({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
      expect(answer.json.message).to.contain("couldn't get version/kind; json parse error");
    });

    it('answers a continue token that does not decode with 400 BadRequest', async () => {
      const answer = await session().raw('GET', `${configMaps()}?limit=1&continue=garbage`);
      expect(answer.status).to.equal(400);
      expect(answer.json).to.deep.include({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
      expect(answer.json.message).to.match(/continue key is not valid/);
    });

    it('answers a list at a resourceVersion ahead of the server with 504 Timeout and a retry hint', async function () {
      // kube-apiserver waits up to 3 s for the resourceVersion to arrive before it gives up.
      this.timeout(30_000);
      const answer = await session().raw('GET', `${configMaps()}?resourceVersion=999999999&resourceVersionMatch=Exact`);
      expect(answer.status).to.equal(504);
      expect(answer.json).to.deep.include({ kind: 'Status', status: 'Failure', reason: 'Timeout', code: 504 });
      expect(answer.json.message).to.match(/^Timeout: Too large resource version: 999999999, current: \d+$/);
      expect(answer.json.details).to.deep.equal({
        causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
        retryAfterSeconds: 1,
      });
    });

    it('answers a create that carries a resourceVersion with a reasonless 500', async () => {
      const answer = await session().raw('POST', configMaps(), {
        body: { metadata: { name: `rv-${suffix()}`, resourceVersion: '5' } },
      });
      expect(answer.json).to.deep.equal(
        failure(500, undefined, 'resourceVersion should not be set on objects to be created'),
      );
    });

    it('answers a finalizer name with a space with 422 and both finalizer causes', async () => {
      const name = `fin-${suffix()}`;
      const answer = await session().raw('POST', configMaps(), {
        body: { metadata: { name, finalizers: ['bad finalizer'] } },
      });
      expect(answer.status).to.equal(422);
      expect(answer.json.reason).to.equal('Invalid');
      expect(answer.json.details.causes.map((c: any) => [c.field, c.reason])).to.deep.equal([
        ['metadata.finalizers', 'FieldValueInvalid'],
        ['metadata.finalizers[0]', 'FieldValueInvalid'],
      ]);
      expect(answer.json.details.causes[1].message).to.equal(
        'Invalid value: "bad finalizer": name is neither a standard finalizer name nor is it fully qualified',
      );
    });

    it('answers an unqualified finalizer name on a built-in type with 422 Invalid', async () => {
      const name = `fin-${suffix()}`;
      const answer = await session().raw('POST', configMaps(), {
        body: { metadata: { name, finalizers: ['kubernetes', 'orphan', 'example.com/ok', 'foo'] } },
      });
      const cause = 'Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified';
      expect(answer.json).to.deep.equal({
        ...failure(422, 'Invalid', `ConfigMap "${name}" is invalid: metadata.finalizers[3]: ${cause}`),
        details: {
          name,
          kind: 'ConfigMap',
          causes: [{ reason: 'FieldValueInvalid', message: cause, field: 'metadata.finalizers[3]' }],
        },
      });
    });

    it('answers an unknown resource with 404 NotFound and empty details', async () => {
      const answer = await session().raw('GET', `/api/v1/namespaces/${session().namespace}/nothings`);
      expect(answer.json).to.deep.equal({
        ...failure(404, 'NotFound', 'the server could not find the requested resource'),
        details: {},
      });
    });

    it('answers any path of an unknown group, and unknown top-level paths, with a text/plain 404 page not found', async () => {
      const group = `nothing-${suffix()}.example.com`;
      const ns = session().namespace;
      const paths: Array<[string, string]> = [
        ['GET', `/apis/${group}`],
        ['GET', `/apis/${group}/v1`],
        ['GET', `/apis/${group}/v1/things`],
        ['GET', `/apis/${group}/v1/namespaces/${ns}/things/x`],
        ['GET', `/apis/${group}/v1/things?watch=1`],
        ['POST', `/apis/${group}/v1/namespaces/${ns}/things`],
        ['DELETE', `/apis/${group}/v1/namespaces/${ns}/things/x`],
        ['GET', '/nothing'],
        ['POST', '/nothing/at/all'],
      ];
      for (const [method, path] of paths) {
        const answer = await session().raw(method, path, method === 'POST' ? { body: {} } : {});
        expect([answer.status, answer.headers['content-type'], answer.text], `${method} ${path}`).to.deep.equal([
          404,
          'text/plain; charset=utf-8',
          '404 page not found\n',
        ]);
      }
    });

    it('answers an unknown version, resource or subresource of a built-in group with a NotFound Status', async () => {
      const ns = session().namespace;
      const made = await session().raw('POST', corePath(session(), 'configmaps'), {
        body: { metadata: { name: `nf-${suffix()}` } },
      });
      const paths = [
        '/api/v2',
        '/api/v2/pods',
        '/apis/apps/v9',
        '/apis/apps/v9/deployments',
        '/apis/apps/v1/widgets',
        `/apis/apps/v1/namespaces/${ns}/widgets/x`,
        `/api/v1/namespaces/${ns}/configmaps/${made.json.metadata.name}/nothing`,
        `/api/v1/namespaces/${ns}/configmaps/${made.json.metadata.name}/a/b`,
        `/api/v1/namespaces/${ns}/nodes`,
        '/apis/apps/v1/deployments/x',
        '/version/x',
      ];
      for (const path of paths) {
        const answer = await session().raw('GET', path);
        expect(answer.headers['content-type'], path).to.equal('application/json');
        expect(answer.json, path).to.deep.equal({
          ...failure(404, 'NotFound', 'the server could not find the requested resource'),
          details: {},
        });
      }
    });
  });
}
