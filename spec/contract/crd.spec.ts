/** Contract: creating CustomResourceDefinitions and serving their objects, namespaced and cluster-scoped. */
import type { KubernetesObject, V1CustomResourceDefinition } from '@kubernetes/client-node';
import { expect } from 'chai';
import { contractTargets, expectItemsAsRead, suffix, useContractSession } from './support/index.js';

for (const target of contractTargets()) {
  interface Widget extends KubernetesObject {
    spec?: { size?: number };
  }

  function crdBody(
    group: string,
    plural: string,
    kind: string,
    scope: 'Namespaced' | 'Cluster',
  ): V1CustomResourceDefinition {
    return {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.${group}` },
      spec: {
        group,
        scope,
        names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', x_kubernetes_preserve_unknown_fields: true },
                  status: { type: 'object', x_kubernetes_preserve_unknown_fields: true },
                },
              },
            },
            subresources: { status: {} },
          },
        ],
      },
    };
  }

  describe(`contract (${target.name}): custom resources`, () => {
    const session = useContractSession(target, 'contract-crd');
    const group = `contract-${suffix()}.example.com`;
    const crds: string[] = [];

    /** Polls until the CRD reports Established=True and its endpoint answers; bounded so a broken server fails. */
    async function establish(body: V1CustomResourceDefinition): Promise<V1CustomResourceDefinition> {
      const { extensions, raw } = session();
      const made = await extensions.createCustomResourceDefinition({ body });
      const name = made.metadata!.name!;
      crds.push(name);
      const path = `/apis/${body.spec.group}/v1/${body.spec.names.plural}`;
      for (let attempt = 0; attempt < 100; attempt++) {
        const crd = await extensions.readCustomResourceDefinition({ name });
        const established = (crd.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True');
        if (established && (await raw('GET', path)).status === 200) return crd;
        await new Promise<void>((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`CRD ${name} never became Established and served`);
    }

    after(async () => {
      // Against the in-memory target the server is already stopped here: the catch makes that a no-op.
      for (const name of crds)
        await session()
          .raw('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`)
          .catch(() => undefined);
    });

    it('establishes a namespaced CRD and serves create, get, list and update of its objects', async () => {
      const { objects, raw, namespace } = session();
      const crd = await establish(crdBody(group, 'widgets', 'Widget', 'Namespaced'));
      expect(crd.status?.acceptedNames).to.deep.include({ plural: 'widgets', kind: 'Widget' });
      expect(crd.status?.storedVersions).to.deep.equal(['v1']);
      const conditions = new Map((crd.status?.conditions ?? []).map((c) => [c.type, c.status]));
      expect(conditions.get('NamesAccepted')).to.equal('True');

      // KubernetesObjectApi resolves the plural through discovery, so this also proves the CRD shows up there.
      const made = await objects.create<Widget>({
        apiVersion: `${group}/v1`,
        kind: 'Widget',
        metadata: { name: 'w1', namespace },
        spec: { size: 1 },
      });
      expect(made.metadata).to.deep.include({ name: 'w1', namespace, generation: 1 });
      const read = await objects.read<Widget>({
        apiVersion: `${group}/v1`,
        kind: 'Widget',
        metadata: { name: 'w1', namespace },
      });
      expect(read.spec).to.deep.equal({ size: 1 });

      const list = (await raw('GET', `/apis/${group}/v1/namespaces/${namespace}/widgets`)).json;
      expect(list).to.deep.include({ kind: 'WidgetList', apiVersion: `${group}/v1` });
      // A custom resource's items keep kind and apiVersion (a built-in kind's leave them out).
      expect(await expectItemsAsRead(session(), list, { plural: 'widgets', custom: true })).to.deep.equal(['w1']);

      const updated = await objects.replace<Widget>({ ...read, spec: { size: 2 } });
      expect(updated.metadata?.generation).to.equal(2);
    });

    it('serves the status subresource of a custom resource: only status changes there, and never through the main endpoint', async () => {
      const { raw, namespace } = session();
      await establish(crdBody(group, 'dials', 'Dial', 'Namespaced'));
      const base = `/apis/${group}/v1/namespaces/${namespace}/dials`;
      const made = await raw('POST', base, {
        body: {
          apiVersion: `${group}/v1`,
          kind: 'Dial',
          metadata: { name: 'd1' },
          spec: { on: true },
          status: { dropped: true },
        },
      });
      expect(made.json).to.not.have.property('status');

      const status = await raw('PUT', `${base}/d1/status`, {
        body: { ...made.json, spec: { on: false }, status: { level: 3 } },
      });
      expect(status.status, status.text).to.equal(200);
      expect(status.json.status).to.deep.equal({ level: 3 });
      expect(status.json.spec).to.deep.equal({ on: true });
      expect(status.json.metadata.generation).to.equal(1);

      const main = await raw('PUT', `${base}/d1`, { body: { ...status.json, status: { level: 9 } } });
      expect(main.json.status).to.deep.equal({ level: 3 });
    });

    it('keeps an empty status subresource on a CRD created by server-side apply, and serves /status for it', async () => {
      const { raw, namespace } = session();
      const name = `knobs.${group}`;
      const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
      const applied = await raw(
        'PATCH',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}?fieldManager=contract`,
        {
          body: {
            apiVersion: 'apiextensions.k8s.io/v1',
            kind: 'CustomResourceDefinition',
            metadata: { name },
            spec: {
              group,
              scope: 'Namespaced',
              names: { plural: 'knobs', singular: 'knob', kind: 'Knob', listKind: 'KnobList' },
              versions: [
                {
                  name: 'v1',
                  served: true,
                  storage: true,
                  subresources: { status: {} },
                  schema: { openAPIV3Schema: { type: 'object', properties: { spec: open, status: open } } },
                },
              ],
            },
          },
          contentType: 'application/apply-patch+yaml',
        },
      );
      expect(applied.status, applied.text).to.equal(201);
      crds.push(name);
      expect(applied.json.spec.versions[0].subresources).to.deep.equal({ status: {} });
      const base = `/apis/${group}/v1/namespaces/${namespace}/knobs`;
      let made = await raw('POST', base, {
        body: { apiVersion: `${group}/v1`, kind: 'Knob', metadata: { name: 'k1' }, spec: { on: true } },
      });
      for (let attempt = 0; made.status !== 201 && attempt < 100; attempt++) {
        await new Promise<void>((resolve) => setTimeout(resolve, 100));
        made = await raw('POST', base, {
          body: { apiVersion: `${group}/v1`, kind: 'Knob', metadata: { name: 'k1' }, spec: { on: true } },
        });
      }
      expect(made.status, made.text).to.equal(201);
      const status = await raw('PUT', `${base}/k1/status`, { body: { ...made.json, status: { level: 1 } } });
      expect(status.status, status.text).to.equal(200);
      expect(status.json.status).to.deep.equal({ level: 1 });
    });

    it('requires a resourceVersion on a custom resource update with 422 Invalid', async () => {
      const { raw, namespace } = session();
      const base = `/apis/${group}/v1/namespaces/${namespace}/widgets`;
      const made = await raw('POST', base, {
        body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: `w-${suffix()}` }, spec: {} },
      });
      const { resourceVersion: _dropped, ...metadata } = made.json.metadata;
      const answer = await raw('PUT', `${base}/${made.json.metadata.name}`, { body: { ...made.json, metadata } });
      expect(answer.status).to.equal(422);
      expect(answer.json).to.deep.include({ reason: 'Invalid', code: 422 });
      expect(answer.json.details.causes).to.deep.equal([
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: 0: must be specified for an update',
          field: 'metadata.resourceVersion',
        },
      ]);
    });

    it('establishes a cluster-scoped CRD and serves its objects without a namespace', async () => {
      const { raw } = session();
      await establish(crdBody(group, 'gadgets', 'Gadget', 'Cluster'));
      const base = `/apis/${group}/v1/gadgets`;
      const name = `g-${suffix()}`;
      const made = await raw('POST', base, {
        body: { apiVersion: `${group}/v1`, kind: 'Gadget', metadata: { name }, spec: {} },
      });
      expect(made.status, made.text).to.equal(201);
      expect(made.json.metadata).to.not.have.property('namespace');
      expect((await raw('GET', `${base}/${name}`)).json.metadata.name).to.equal(name);
      const namespaced = await raw('GET', `/apis/${group}/v1/namespaces/default/gadgets`);
      expect(namespaced.status).to.equal(404);
    });

    it('answers paths no CRD serves with a text/plain 404 page not found, and unserved subresources with NotFound naming the object', async () => {
      const { raw, namespace } = session();
      const probes = crdBody(group, 'probes', 'Probe', 'Namespaced');
      const { subresources: _status, ...v1 } = probes.spec.versions[0]!;
      await establish({
        ...probes,
        spec: { ...probes.spec, versions: [v1, { ...v1, name: 'v2', served: false, storage: false }] },
      });
      await establish(crdBody(group, 'sprockets', 'Sprocket', 'Cluster'));
      const probe = await raw('POST', `/apis/${group}/v1/namespaces/${namespace}/probes`, {
        body: { apiVersion: `${group}/v1`, kind: 'Probe', metadata: { name: 'p1' } },
      });
      expect(probe.status, probe.text).to.equal(201);
      const pageNotFound = [
        `/apis/${group}/v2`,
        `/apis/${group}/v2/namespaces/${namespace}/probes`,
        `/apis/${group}/v9/probes`,
        `/apis/${group}/v1/nothings`,
        `/apis/${group}/v1/namespaces/${namespace}/nothings/p1`,
        `/apis/${group}/v1/probes/p1`,
        `/apis/${group}/v1/namespaces`,
        `/apis/${group}/v1/namespaces/${namespace}`,
        `/apis/${group}/v1/namespaces/${namespace}/sprockets`,
      ];
      for (const path of pageNotFound) {
        const answer = await raw('GET', path);
        expect([answer.status, answer.headers['content-type'], answer.text], path).to.deep.equal([
          404,
          'text/plain; charset=utf-8',
          '404 page not found\n',
        ]);
      }
      // apiextensions names the object whatever the subresource asked for, even when the object exists.
      const objectNotFound: Array<[string, string, string]> = [
        [`/apis/${group}/v1/namespaces/${namespace}/probes/p1/status`, 'probes', 'p1'],
        [`/apis/${group}/v1/namespaces/${namespace}/probes/p1/scale`, 'probes', 'p1'],
        [`/apis/${group}/v1/namespaces/${namespace}/probes/p1/a/b`, 'probes', 'p1'],
        [`/apis/${group}/v1/sprockets/s1/other`, 'sprockets', 's1'],
        [`/apis/${group}/v1/sprockets/s1/status/x`, 'sprockets', 's1'],
      ];
      for (const [path, plural, name] of objectNotFound) {
        const answer = await raw('GET', path);
        expect(answer.status, path).to.equal(404);
        expect(answer.json, path).to.deep.include({
          kind: 'Status',
          reason: 'NotFound',
          message: `${plural}.${group} "${name}" not found`,
          details: { name, group, kind: plural },
        });
      }
    });
  });
}
