/** Contract: label and field selectors, pagination with limit/continue, and continue-token expiry. */
import { expect } from 'chai';
import { contractTargets, corePath, expectItemsAsRead, suffix, useContractSession } from './support/index.js';

for (const target of contractTargets()) {
  describe(`contract (${target.name}): queries`, () => {
    const session = useContractSession(target, 'contract-query');
    /** The sorted names of a list's items, once each item was checked field by field against a read of it. */
    const listed = async (list: any, plural = 'configmaps'): Promise<string[]> =>
      (await expectItemsAsRead(session(), list, { plural })).sort();
    const configMaps = (): string => corePath(session(), 'configmaps');
    const pods = (): string => corePath(session(), 'pods');

    before(async () => {
      const { raw } = session();
      const labelled: Record<string, Record<string, string>> = {
        red: { color: 'red', size: 'l' },
        blue: { color: 'blue' },
        green: { color: 'green', size: 's' },
        plain: {},
      };
      for (const [name, labels] of Object.entries(labelled)) {
        const made = await raw('POST', configMaps(), { body: { metadata: { name, labels } } });
        expect(made.status, made.text).to.equal(201);
      }
      const podSpecs = [
        { name: 'on-a', nodeName: 'node-a', phase: 'Running' },
        { name: 'on-b', nodeName: 'node-b', phase: 'Succeeded' },
        { name: 'nowhere', nodeName: undefined, phase: undefined },
      ];
      for (const pod of podSpecs) {
        const made = await raw('POST', pods(), {
          body: {
            metadata: { name: pod.name },
            spec: {
              ...(pod.nodeName ? { nodeName: pod.nodeName } : {}),
              containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }],
            },
          },
        });
        expect(made.status, made.text).to.equal(201);
        if (pod.phase !== undefined) {
          const status = await raw('PUT', `${pods()}/${pod.name}/status`, {
            body: { ...made.json, status: { phase: pod.phase } },
          });
          expect(status.status, status.text).to.equal(200);
        }
      }
    });

    const selectorCases: Array<[string, string[]]> = [
      ['color=red', ['red']],
      ['color==red', ['red']],
      ['color!=red', ['blue', 'green', 'plain']],
      ['color in (red,blue)', ['blue', 'red']],
      ['color notin (red,blue)', ['green', 'plain']],
      ['size', ['green', 'red']],
      ['!size', ['blue', 'plain']],
      ['color,size=s', ['green']],
    ];
    for (const [selector, expected] of selectorCases) {
      it(`lists by the label selector "${selector}"`, async () => {
        const list = await session().raw('GET', `${configMaps()}?labelSelector=${encodeURIComponent(selector)}`);
        expect(list.status, list.text).to.equal(200);
        expect(await listed(list.json)).to.deep.equal(expected);
      });
    }

    it('answers a malformed label selector with 400 BadRequest', async () => {
      const answer = await session().raw('GET', `${configMaps()}?labelSelector=${encodeURIComponent('color in (red')}`);
      expect(answer.status).to.equal(400);
      expect(answer.json).to.deep.include({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
    });

    it('lists by metadata.name and metadata.namespace field selectors', async () => {
      const { raw, namespace } = session();
      expect(await listed((await raw('GET', `${configMaps()}?fieldSelector=metadata.name%3Dblue`)).json)).to.deep.equal(
        ['blue'],
      );
      expect(
        await listed((await raw('GET', `${configMaps()}?fieldSelector=metadata.name!%3Dblue`)).json),
      ).to.deep.equal(['green', 'plain', 'red']);
      const all = await raw('GET', `/api/v1/configmaps?fieldSelector=metadata.namespace%3D${namespace}`);
      expect(await listed(all.json)).to.deep.equal(['blue', 'green', 'plain', 'red']);
    });

    it('lists pods by spec.nodeName and status.phase field selectors', async () => {
      const { raw } = session();
      expect(
        await listed((await raw('GET', `${pods()}?fieldSelector=spec.nodeName%3Dnode-a`)).json, 'pods'),
      ).to.deep.equal(['on-a']);
      expect(await listed((await raw('GET', `${pods()}?fieldSelector=spec.nodeName%3D`)).json, 'pods')).to.deep.equal([
        'nowhere',
      ]);
      expect(
        await listed((await raw('GET', `${pods()}?fieldSelector=status.phase%3DSucceeded`)).json, 'pods'),
      ).to.deep.equal(['on-b']);
      expect(
        await listed(
          (await raw('GET', `${pods()}?fieldSelector=status.phase!%3DSucceeded,spec.nodeName!%3D`)).json,
          'pods',
        ),
      ).to.deep.equal(['on-a']);
    });

    it('answers an unsupported pod field selector with 400 "field label not supported"', async () => {
      const answer = await session().raw('GET', `${pods()}?fieldSelector=spec.foo%3D1`);
      expect(answer.json).to.deep.equal({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code: 400,
        reason: 'BadRequest',
        message: 'field label not supported: spec.foo',
      });
    });

    it('answers an unsupported ConfigMap field selector with 400 naming the known fields', async () => {
      const answer = await session().raw('GET', `${configMaps()}?fieldSelector=spec.foo%3D1`);
      expect(answer.json).to.deep.equal({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code: 400,
        reason: 'BadRequest',
        message: '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"',
      });
    });

    it('pages with limit and continue, counting the remaining items, at one resourceVersion', async () => {
      const { raw } = session();
      const first = (await raw('GET', `${configMaps()}?limit=3`)).json;
      expect(first.items).to.have.length(3);
      expect(first.metadata.continue).to.be.a('string').and.not.empty;
      expect(first.metadata.remainingItemCount).to.equal(1);

      // A write between pages must not leak into the second page: it is read at the first page's resourceVersion.
      const late = `zz-${suffix()}`;
      await raw('POST', configMaps(), { body: { metadata: { name: late } } });
      const second = (
        await raw('GET', `${configMaps()}?limit=3&continue=${encodeURIComponent(first.metadata.continue)}`)
      ).json;
      expect(second.metadata.resourceVersion).to.equal(first.metadata.resourceVersion);
      expect(second.metadata).to.not.have.property('continue');
      expect(second.metadata).to.not.have.property('remainingItemCount');
      expect(await listed({ ...first, items: [...first.items, ...second.items] })).to.deep.equal([
        'blue',
        'green',
        'plain',
        'red',
      ]);
      await raw('DELETE', `${configMaps()}/${late}`);
    });

    // resourceVersion=0 is served from the watch cache, which ignores limit: one page, no continue token.
    it('ignores limit on a resourceVersion=0 list and returns every item in one page', async () => {
      const page = (await session().raw('GET', `${configMaps()}?resourceVersion=0&limit=2`)).json;
      expect(await listed(page)).to.deep.equal(['blue', 'green', 'plain', 'red']);
      expect(page.metadata).to.not.have.property('continue');
      expect(page.metadata).to.not.have.property('remainingItemCount');
    });

    it('omits remainingItemCount on a page filtered by a label selector', async () => {
      const page = (await session().raw('GET', `${configMaps()}?limit=1&labelSelector=color`)).json;
      expect(page.items).to.have.length(1);
      expect(page.metadata.continue).to.be.a('string').and.not.empty;
      expect(page.metadata).to.not.have.property('remainingItemCount');
    });

    it('lists the state at an older resourceVersion with resourceVersionMatch=Exact', async () => {
      const { raw } = session();
      const before = (await raw('GET', configMaps())).json;
      const extra = `exact-${suffix()}`;
      await raw('POST', configMaps(), { body: { metadata: { name: extra } } });
      const then = await raw(
        'GET',
        `${configMaps()}?resourceVersion=${before.metadata.resourceVersion}&resourceVersionMatch=Exact`,
      );
      expect(then.status, then.text).to.equal(200);
      expect(then.json.metadata.resourceVersion).to.equal(before.metadata.resourceVersion);
      expect(await listed(then.json)).to.deep.equal(await listed(before));
      const now = await raw(
        'GET',
        `${configMaps()}?resourceVersion=${before.metadata.resourceVersion}&resourceVersionMatch=NotOlderThan`,
      );
      expect(await listed(now.json)).to.include(extra);
      await raw('DELETE', `${configMaps()}/${extra}`);
    });

    it('answers resourceVersionMatch without a resourceVersion with 422 Invalid', async () => {
      const answer = await session().raw('GET', `${configMaps()}?resourceVersionMatch=Exact`);
      expect(answer.status).to.equal(422);
      expect(answer.json.details.causes).to.deep.equal([
        {
          reason: 'FieldValueForbidden',
          message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
          field: 'resourceVersionMatch',
        },
      ]);
    });

    if (target.canExpireHistory) {
      it('answers an expired continue token with 410 Expired and a fresh token', async function () {
        this.timeout(120_000);
        const { raw, expireHistory } = session();
        const first = (await raw('GET', `${configMaps()}?limit=2`)).json;
        // A write after the first page, so compaction moves past the token's resourceVersion.
        const bump = `bump-${suffix()}`;
        await raw('POST', configMaps(), { body: { metadata: { name: bump } } });
        await expireHistory();
        const expired = await raw(
          'GET',
          `${configMaps()}?limit=2&continue=${encodeURIComponent(first.metadata.continue)}`,
        );
        expect(expired.status, expired.text).to.equal(410);
        expect(expired.json).to.deep.include({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: 410,
          reason: 'Expired',
        });
        expect(expired.json.message).to.match(
          /^The provided continue parameter is too old to display a consistent list result\./,
        );
        expect(expired.json.metadata.continue).to.be.a('string').and.not.empty;
        await raw('DELETE', `${configMaps()}/${bump}`);
      });
    }
  });
}
