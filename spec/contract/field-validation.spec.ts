/**
 * Contract: `fieldValidation` on create, update and patches: fields the kind's schema does not declare are dropped
 * (`Ignore`), dropped with a `Warning` header each (`Warn`, the default), or refused (`Strict`), for built-in kinds
 * and for custom resources (pruned by their CRD's structural schema).
 */
import { expect } from 'chai';
import type { V1ConfigMap, V1CustomResourceDefinition } from '@kubernetes/client-node';
import { firstValueFrom } from 'rxjs';
import { resourceClient } from '../../src/client/index.js';
import { isConflict, type ApiError } from '../../src/transport/index.js';
import { contractTargets, suffix, useContractSession, type RawResponse } from './support/index.js';

/** The `Warning` header values of an answer, one per warning (Node joins repeated headers with `, `). */
function warningsOf(response: RawResponse): string[] {
  const header = response.headers['warning'];
  if (header === undefined) return [];
  return (Array.isArray(header) ? header.join(', ') : header).split(/, (?=299 - )/);
}

const unknown = (path: string) => `299 - ${JSON.stringify(`unknown field ${JSON.stringify(path)}`)}`;

/** The patched document quoted in a strict patch's 422, parsed, and the rest of the message around it. */
function strictPatchParts(message: string): { value: string; why: string } {
  const prefix = ' "" is invalid: patch: Invalid value: ';
  expect(message.startsWith(prefix), message).to.equal(true);
  const at = message.lastIndexOf(': strict decoding error: ');
  return { value: JSON.parse(message.slice(prefix.length, at)) as string, why: message.slice(at + 2) };
}

for (const target of contractTargets()) {
  describe(`contract (${target.name}): field validation`, () => {
    const session = useContractSession(target, 'contract-fieldval');
    const configMaps = () => `/api/v1/namespaces/${session().namespace}/configmaps`;
    const configMap = (name: string, extra: Record<string, unknown> = {}) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name },
      data: { a: '1' },
      ...extra,
    });

    it('refuses unknown fields of a create under Strict, listing each with its path in document order', async () => {
      const { raw } = session();
      const body = { ...configMap(`strict-${suffix()}`), colour: 'blue', size: 'L' };
      (body.metadata as Record<string, unknown>)['bogus'] = 1;
      const answer = await raw('POST', `${configMaps()}?fieldValidation=Strict`, { body });
      expect(answer.status).to.equal(400);
      expect(answer.json).to.deep.include({
        reason: 'BadRequest',
        message:
          'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.bogus", unknown field "colour", unknown field "size"',
      });
      expect(warningsOf(answer)).to.deep.equal([]);
      expect((await raw('GET', `${configMaps()}/${body.metadata.name}`)).status).to.equal(404);
    });

    it('hands the resource client every warning, of a successful and of a refused write, non-ASCII text intact', async () => {
      const { connection, namespace } = session();
      const seen: string[] = [];
      const client = resourceClient<V1ConfigMap>(
        connection,
        { apiVersion: 'v1', kind: 'ConfigMap' },
        {
          namespace,
          onWarning: ({ method, text }) => seen.push(`${method} ${text}`),
        },
      );
      const created = await firstValueFrom(
        client.create({ ...configMap(`client-${suffix()}`), colour: 'blue', zählwerk: 1 } as V1ConfigMap),
      );
      expect(seen).to.deep.equal(['POST unknown field "colour"', 'POST unknown field "zählwerk"']);
      seen.length = 0;
      await firstValueFrom(client.replace({ ...created, data: { a: '2' } }));
      // At the version the first write produced, the update is refused (409); its answer still carries the warning.
      const refused = await firstValueFrom(client.replace({ ...created, colour: 'red' } as V1ConfigMap)).catch(
        (e: unknown) => e,
      );
      expect([isConflict(refused), (refused as ApiError).warnings]).to.deep.equal([true, ['unknown field "colour"']]);
      expect(seen).to.deep.equal(['PUT unknown field "colour"']);
    });

    it('drops unknown fields and warns once per field by default and under Warn; Ignore drops them silently', async () => {
      const { raw } = session();
      for (const query of ['', '?fieldValidation=Warn']) {
        const answer = await raw('POST', `${configMaps()}${query}`, {
          body: configMap(`warn-${suffix()}`, { colour: 'blue', size: 'L' }),
        });
        expect(answer.status).to.equal(201);
        expect(answer.json).to.not.have.any.keys('colour', 'size');
        expect(answer.json.data).to.deep.equal({ a: '1' });
        expect(warningsOf(answer)).to.deep.equal([unknown('colour'), unknown('size')]);
      }
      const name = `ignore-${suffix()}`;
      const ignored = await raw('POST', `${configMaps()}?fieldValidation=Ignore`, {
        body: configMap(name, { colour: 'blue' }),
      });
      expect(ignored.status).to.equal(201);
      expect(warningsOf(ignored)).to.deep.equal([]);
      expect((await raw('GET', `${configMaps()}/${name}`)).json).to.not.have.property('colour');
    });

    it("stops writing warnings past 4096 characters, as kube-apiserver's recorder does", async () => {
      const { raw } = session();
      // 120 texts of 56 characters: 73 fit in 4096; the 74th overflows, so the recorder writes the 74 it has
      // (each under the 256-character cut) and, having passed 4096, no more.
      const fields = Array.from({ length: 120 }, (_, i) => `f${String(i).padStart(3, '0')}${'x'.repeat(36)}`);
      const extra = Object.fromEntries(fields.map((field) => [field, 'v']));
      const answer = await raw('POST', configMaps(), { body: configMap(`many-${suffix()}`, extra) });
      expect(answer.status).to.equal(201);
      expect(warningsOf(answer)).to.deep.equal(fields.slice(0, 74).map(unknown));
    });

    it('names nested unknown fields by their Go path, list items by index', async () => {
      const { raw, namespace } = session();
      const deployment = (name: string) => ({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name },
        spec: {
          selector: { matchLabels: { app: 'x' } },
          colour: 1,
          template: {
            metadata: { labels: { app: 'x' }, colour: 2 },
            spec: {
              containers: [
                { name: 'c', image: 'nginx', colour: 3 },
                { name: 'd', image: 'nginx', ports: [{ containerPort: 80, colour: 4 }] },
              ],
            },
          },
        },
        zeta: 1,
        alpha: 2,
      });
      const paths = [
        'spec.colour',
        'spec.template.metadata.colour',
        'spec.template.spec.containers[0].colour',
        'spec.template.spec.containers[1].ports[0].colour',
        'zeta',
        'alpha',
      ];
      const base = `/apis/apps/v1/namespaces/${namespace}/deployments`;
      const warned = await raw('POST', base, { body: deployment(`d-${suffix()}`) });
      expect(warned.status).to.equal(201);
      expect(warningsOf(warned)).to.deep.equal(paths.map(unknown));
      expect(warned.json.spec.template.spec.containers[0]).to.not.have.property('colour');
      const refused = await raw('POST', `${base}?fieldValidation=Strict`, { body: deployment(`d-${suffix()}`) });
      expect([refused.status, refused.json.message]).to.deep.equal([
        400,
        `Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: ${paths.map((p) => `unknown field ${JSON.stringify(p)}`).join(', ')}`,
      ]);
    });

    it('applies the same rules to an update (PUT)', async () => {
      const { raw } = session();
      const name = `put-${suffix()}`;
      const created = await raw('POST', configMaps(), { body: configMap(name) });
      const body = { ...created.json, colour: 'z' };
      const refused = await raw('PUT', `${configMaps()}/${name}?fieldValidation=Strict`, { body });
      expect([refused.status, refused.json.message]).to.deep.equal([
        400,
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "colour"',
      ]);
      const warned = await raw('PUT', `${configMaps()}/${name}`, { body: { ...body, data: { a: '2' } } });
      expect(warned.status).to.equal(200);
      expect(warningsOf(warned)).to.deep.equal([unknown('colour')]);
      expect(warned.json).to.not.have.property('colour');
    });

    it('refuses a merge or JSON patch whose result has unknown fields with a 422 quoting the patched object', async () => {
      const { raw } = session();
      const name = `patch-${suffix()}`;
      await raw('POST', configMaps(), { body: configMap(name) });
      const merge = await raw('PATCH', `${configMaps()}/${name}?fieldValidation=Strict`, {
        contentType: 'application/merge-patch+json',
        body: { colour: 'red', data: { b: '2' } },
      });
      expect([merge.status, merge.json.reason]).to.deep.equal([422, 'Invalid']);
      const merged = strictPatchParts(merge.json.message);
      expect(merged.why).to.equal('strict decoding error: unknown field "colour"');
      // The patch library re-encodes the objects it went through with sorted keys.
      expect(
        merged.value.startsWith(
          '{"apiVersion":"v1","colour":"red","data":{"a":"1","b":"2"},"kind":"ConfigMap","metadata":{',
        ),
      ).to.equal(true);
      expect(JSON.parse(merged.value).metadata.name).to.equal(name);
      expect(merge.json.details).to.deep.equal({
        causes: [
          {
            reason: 'FieldValueInvalid',
            field: 'patch',
            message: merge.json.message.slice(' "" is invalid: patch: '.length),
          },
        ],
      });
      const json = await raw('PATCH', `${configMaps()}/${name}?fieldValidation=Strict`, {
        contentType: 'application/json-patch+json',
        body: [
          { op: 'add', path: '/colour', value: 'x' },
          { op: 'add', path: '/metadata/zzz', value: 'y' },
        ],
      });
      expect(json.status).to.equal(422);
      const patched = strictPatchParts(json.json.message);
      expect(patched.why).to.equal('strict decoding error: unknown field "colour", unknown field "metadata.zzz"');
      expect(Object.keys(JSON.parse(patched.value).metadata)).to.deep.equal(
        [...Object.keys(JSON.parse(patched.value).metadata)].sort(),
      );
      expect((await raw('GET', `${configMaps()}/${name}`)).json.data).to.deep.equal({ a: '1' });
    });

    it('warns about, and drops, the unknown fields of merge, JSON and strategic merge patches', async () => {
      const { raw } = session();
      const name = `patchwarn-${suffix()}`;
      await raw('POST', configMaps(), { body: configMap(name) });
      const merge = await raw('PATCH', `${configMaps()}/${name}`, {
        contentType: 'application/merge-patch+json',
        body: { size: 'M', colour: 'red', data: { b: '2' } },
      });
      expect(merge.status).to.equal(200);
      expect(warningsOf(merge)).to.deep.equal([unknown('colour'), unknown('size')]);
      expect(merge.json).to.not.have.any.keys('colour', 'size');
      expect(merge.json.data).to.deep.equal({ a: '1', b: '2' });
      const json = await raw('PATCH', `${configMaps()}/${name}?fieldValidation=Warn`, {
        contentType: 'application/json-patch+json',
        body: [
          { op: 'add', path: '/metadata/zzz', value: 'y' },
          { op: 'add', path: '/colour', value: 'x' },
        ],
      });
      expect(warningsOf(json)).to.deep.equal([unknown('colour'), unknown('metadata.zzz')]);
      const strategic = await raw('PATCH', `${configMaps()}/${name}?fieldValidation=Warn`, {
        contentType: 'application/strategic-merge-patch+json',
        body: { size: 'M', colour: 'red' },
      });
      expect(warningsOf(strategic)).to.deep.equal([unknown('colour'), unknown('size')]);
      const ignored = await raw('PATCH', `${configMaps()}/${name}?fieldValidation=Ignore`, {
        contentType: 'application/merge-patch+json',
        body: { colour: 'red' },
      });
      expect([ignored.status, warningsOf(ignored)]).to.deep.equal([200, []]);
      expect((await raw('GET', `${configMaps()}/${name}`)).json).to.not.have.property('colour');
    });

    it('quotes a refused strategic merge patch as Go prints the patch map', async () => {
      const { raw, namespace } = session();
      const name = `smp-${suffix()}`;
      const base = `/apis/apps/v1/namespaces/${namespace}/deployments`;
      await raw('POST', base, {
        body: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name },
          spec: {
            selector: { matchLabels: { app: 'x' } },
            template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
          },
        },
      });
      const answer = await raw('PATCH', `${base}/${name}?fieldValidation=Strict`, {
        contentType: 'application/strategic-merge-patch+json',
        body: { spec: { template: { spec: { containers: [{ name: 'c', colour: 3 }] } } } },
      });
      expect([answer.status, answer.json.message]).to.deep.equal([
        422,
        ' "" is invalid: patch: Invalid value: "map[spec:map[template:map[spec:map[containers:[map[colour:3 name:c]]]]]]": strict decoding error: unknown field "spec.template.spec.containers[0].colour"',
      ]);
    });

    it('answers an unsupported fieldValidation value with the 422 of the request options', async () => {
      const { raw } = session();
      const message = 'Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"';
      const create = await raw('POST', `${configMaps()}?fieldValidation=strict`, {
        body: configMap(`bad-${suffix()}`),
      });
      expect([create.status, create.json.message, create.json.details]).to.deep.equal([
        422,
        `CreateOptions.meta.k8s.io "" is invalid: fieldValidation: ${message}`,
        {
          group: 'meta.k8s.io',
          kind: 'CreateOptions',
          causes: [{ reason: 'FieldValueNotSupported', message, field: 'fieldValidation' }],
        },
      ]);
      const name = `badpatch-${suffix()}`;
      await raw('POST', configMaps(), { body: configMap(name) });
      const patch = await raw('PATCH', `${configMaps()}/${name}?fieldValidation=strict`, {
        contentType: 'application/merge-patch+json',
        body: { data: { b: '2' } },
      });
      expect([patch.status, patch.json.message]).to.deep.equal([
        422,
        `PatchOptions.meta.k8s.io "" is invalid: fieldValidation: ${message}`,
      ]);
    });

    describe('custom resources', () => {
      const group = `fieldval-${suffix()}.example.com`;
      const gadgets = () => `/apis/${group}/v1/namespaces/${session().namespace}/gadgets`;
      const crdName = `gadgets.${group}`;

      before(async function () {
        this.timeout(60_000);
        const { extensions, raw } = session();
        const body: V1CustomResourceDefinition = {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: crdName },
          spec: {
            group,
            scope: 'Namespaced',
            names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
            versions: [
              {
                name: 'v1',
                served: true,
                storage: true,
                subresources: { status: {} },
                schema: {
                  openAPIV3Schema: {
                    type: 'object',
                    properties: {
                      spec: {
                        type: 'object',
                        properties: {
                          size: { type: 'integer' },
                          items: { type: 'array', items: { type: 'object', properties: { n: { type: 'string' } } } },
                          free: { type: 'object', x_kubernetes_preserve_unknown_fields: true },
                          template: {
                            type: 'object',
                            x_kubernetes_embedded_resource: true,
                            properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } } },
                          },
                        },
                      },
                      status: { type: 'object', x_kubernetes_preserve_unknown_fields: true },
                    },
                  },
                },
              },
            ],
          },
        };
        await extensions.createCustomResourceDefinition({ body });
        // The real server serves the endpoint a moment after Established; a create is the reliable signal.
        for (let attempt = 0; attempt < 200; attempt++) {
          const probe = await raw('POST', `${gadgets()}?dryRun=All`, {
            body: { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name: 'probe' } },
          });
          if (probe.status === 201) return;
          await new Promise<void>((resolve) => setTimeout(resolve, 100));
        }
        throw new Error(`${crdName} was never served`);
      });

      after(async () => {
        await session()
          .raw('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crdName}`)
          .catch(() => undefined);
      });

      const gadget = (name: string) => ({
        apiVersion: `${group}/v1`,
        kind: 'Gadget',
        metadata: { name, bogus: 1 },
        spec: {
          size: 1,
          colour: 'x',
          items: [{ n: 'a', colour: 2 }],
          free: { anything: 1 },
          template: {
            apiVersion: 'example.com/v1',
            kind: 'Thing',
            metadata: { name: 't' },
            spec: { replicas: 1, zzz: 1 },
          },
        },
        zeta: 1,
      });
      const paths = ['metadata.bogus', 'spec.colour', 'spec.items[0].colour', 'spec.template.spec.zzz', 'zeta'];
      const keptSpec = {
        size: 1,
        items: [{ n: 'a' }],
        free: { anything: 1 },
        template: { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't' }, spec: { replicas: 1 } },
      };

      it('prunes fields the structural schema does not declare, keeping preserved ones and embedded TypeMeta and ObjectMeta, and warns per field', async () => {
        const answer = await session().raw('POST', gadgets(), { body: gadget(`g-${suffix()}`) });
        expect(answer.status).to.equal(201);
        expect(warningsOf(answer)).to.deep.equal(paths.map(unknown));
        expect(answer.json.spec).to.deep.equal(keptSpec);
        expect(answer.json).to.not.have.property('zeta');
        expect(answer.json.metadata).to.not.have.property('bogus');
      });

      it('refuses them under Strict, metadata first and then the pruned paths sorted', async () => {
        const { raw } = session();
        const strict = await raw('POST', `${gadgets()}?fieldValidation=Strict`, {
          body: { ...gadget(`g-${suffix()}`), alpha: 1 },
        });
        expect([strict.status, strict.json.reason, strict.json.message]).to.deep.equal([
          400,
          'BadRequest',
          `Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: ${['metadata.bogus', 'alpha', 'spec.colour', 'spec.items[0].colour', 'spec.template.spec.zzz', 'zeta'].map((p) => `unknown field ${JSON.stringify(p)}`).join(', ')}`,
        ]);
        const ignored = await raw('POST', `${gadgets()}?fieldValidation=Ignore`, { body: gadget(`g-${suffix()}`) });
        expect([ignored.status, warningsOf(ignored), ignored.json.spec]).to.deep.equal([201, [], keptSpec]);
      });

      it('checks merge patches and updates of custom resources the same way', async () => {
        const { raw } = session();
        const name = `g-${suffix()}`;
        await raw('POST', gadgets(), {
          body: { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name }, spec: { size: 1 } },
        });
        const strict = await raw('PATCH', `${gadgets()}/${name}?fieldValidation=Strict`, {
          contentType: 'application/merge-patch+json',
          body: { zeta: 1, spec: { colour: 'x' } },
        });
        expect(strict.status).to.equal(422);
        const parts = strictPatchParts(strict.json.message);
        expect(parts.why).to.equal('strict decoding error: unknown field "spec.colour", unknown field "zeta"');
        // Unstructured objects are encoded with sorted keys at every level.
        const metadataKeys = Object.keys(JSON.parse(parts.value).metadata);
        expect(metadataKeys).to.deep.equal([...metadataKeys].sort());
        const warned = await raw('PATCH', `${gadgets()}/${name}`, {
          contentType: 'application/merge-patch+json',
          body: { zeta: 1, spec: { colour: 'x', size: 2 } },
        });
        expect([warned.status, warningsOf(warned), warned.json.spec]).to.deep.equal([
          200,
          [unknown('spec.colour'), unknown('zeta')],
          { size: 2 },
        ]);
        const put = await raw('PUT', `${gadgets()}/${name}?fieldValidation=Strict`, {
          body: { ...warned.json, spec: { size: 3, colour: 'q' } },
        });
        expect([put.status, put.json.message]).to.deep.equal([
          400,
          'Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: unknown field "spec.colour"',
        ]);
        // A write that warns and then fails still carries its warnings.
        const { resourceVersion: _dropped, ...metadata } = warned.json.metadata;
        const failed = await raw('PUT', `${gadgets()}/${name}`, {
          body: { ...warned.json, metadata, spec: { size: 3, colour: 'q' } },
        });
        expect([failed.status, failed.json.reason, warningsOf(failed)]).to.deep.equal([
          422,
          'Invalid',
          [unknown('spec.colour')],
        ]);
      });
    });
  });
}
