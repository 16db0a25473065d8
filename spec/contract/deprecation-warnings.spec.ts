/**
 * Contract: a CRD version marked `deprecated` makes every answer to a request for it carry a warning (its
 * `deprecationWarning`, or apiextensions' default text naming the newest served version), refusals included; and
 * rxkube's informers hand that warning to `onWarning` for their lists and watches.
 */
import { expect } from 'chai';
import type { V1CustomResourceDefinition, V1CustomResourceDefinitionVersion } from '@kubernetes/client-node';
import { filter, firstValueFrom, take, timeout } from 'rxjs';
import { listWatch } from '../../src/watch/index.js';
import { contractTargets, suffix, useContractSession, type RawResponse } from './support/index.js';

/** The texts of an answer's `Warning` headers. */
function warningTexts(response: RawResponse): string[] {
  const header = response.headers['warning'];
  if (header === undefined) return [];
  const values = (Array.isArray(header) ? header.join(', ') : header).split(/, (?=299 - )/);
  return values.map((value) => JSON.parse(value.slice('299 - '.length)) as string);
}

for (const target of contractTargets()) {
  describe(`contract (${target.name}): deprecated API versions`, () => {
    const session = useContractSession(target, 'contract-deprecation');
    const group = `deprecation-${suffix()}.example.com`;
    const crdName = `gadgets.${group}`;
    const custom = 'v1beta1 gadgets are going away: move to v1';
    const gadgets = (version: string) => `/apis/${group}/${version}/namespaces/${session().namespace}/gadgets`;

    before(async function () {
      this.timeout(60_000);
      const { extensions, raw, namespace } = session();
      const version = (
        name: string,
        extra: Partial<V1CustomResourceDefinitionVersion>,
      ): V1CustomResourceDefinitionVersion => ({
        name,
        served: true,
        storage: false,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
          },
        },
        ...extra,
      });
      const body: V1CustomResourceDefinition = {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: crdName },
        spec: {
          group,
          scope: 'Namespaced',
          names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
          versions: [
            version('v1alpha1', { deprecated: true }),
            version('v1beta1', { deprecated: true, deprecationWarning: custom }),
            version('v1beta2', { deprecated: true, deprecationWarning: 'unknown field "colour"' }),
            version('v1', { storage: true }),
          ],
        },
      };
      await extensions.createCustomResourceDefinition({ body });
      // The real server serves the endpoint a moment after Established; a create is the reliable signal.
      for (let attempt = 0; attempt < 200; attempt++) {
        const made = await raw('POST', gadgets('v1'), {
          body: { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'g1', namespace } },
        });
        if (made.status === 201) return;
        await new Promise<void>((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`${crdName} was never served`);
    });

    after(async () => {
      await session()
        .raw('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`)
        .catch(() => undefined);
    });

    it('warns on every answer for a deprecated version, a refusal too, and names the newest served version by default', async () => {
      const { raw } = session();
      const alpha = await raw('GET', gadgets('v1alpha1'));
      expect(alpha.status).to.equal(200);
      expect(warningTexts(alpha)).to.deep.equal([`${group}/v1alpha1 Gadget is deprecated; use ${group}/v1 Gadget`]);
      const beta = await raw('GET', `${gadgets('v1beta1')}/g1`);
      expect(beta.status).to.equal(200);
      expect(warningTexts(beta)).to.deep.equal([custom]);
      const missing = await raw('GET', `${gadgets('v1beta1')}/nowhere`);
      expect(missing.status).to.equal(404);
      expect(warningTexts(missing)).to.deep.equal([custom]);
      const current = await raw('GET', gadgets('v1'));
      expect(current.status).to.equal(200);
      expect(warningTexts(current)).to.deep.equal([]);
    });

    it('writes a text once when the deprecation and the request give the same warning', async () => {
      const { raw, namespace } = session();
      const body = {
        apiVersion: `${group}/v1beta2`,
        kind: 'Gadget',
        metadata: { name: `twice-${suffix()}`, namespace },
        colour: 'red',
        size: 'L',
      };
      const answer = await raw('POST', `${gadgets('v1beta2')}?fieldValidation=Warn`, { body });
      expect(answer.status).to.equal(201);
      expect(warningTexts(answer)).to.deep.equal(['unknown field "colour"', 'unknown field "size"']);
    });

    it("hands an informer's warnings to onWarning, for its list and for its watch", async function () {
      this.timeout(30_000);
      const { connection, namespace } = session();
      const seen: string[] = [];
      const deltas$ = listWatch(
        connection,
        { apiVersion: `${group}/v1alpha1`, kind: 'Gadget' },
        {
          namespace,
          onWarning: ({ method, path, text }) => seen.push(`${method} ${path} ${text}`),
        },
      );
      await firstValueFrom(
        deltas$.pipe(
          filter((event) => event.type === 'status' && event.status.state === 'watching'),
          take(1),
          timeout(20_000),
        ),
      );
      const line = `GET ${gadgets('v1alpha1')} ${group}/v1alpha1 Gadget is deprecated; use ${group}/v1 Gadget`;
      expect(seen).to.deep.equal([line, line]);
    });
  });
}
