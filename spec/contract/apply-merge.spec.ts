/** Contract: server-side apply merge strategies from the schema (list maps, sets, atomic lists), status, CRDs. */
import { expect } from 'chai';
import {
  apply,
  contractTargets,
  entry,
  entryOf,
  expectStatus,
  MERGE,
  suffix,
  useContractSession,
} from './support/index.js';

for (const target of contractTargets()) {
  describe(`contract (${target.name}): server-side apply merge strategies`, () => {
    const session = useContractSession(target, 'contract-apply-merge');
    const group = `apply-${suffix()}.example.com`;
    const crds: string[] = [];

    after(async () => {
      for (const name of crds)
        await session()
          .raw('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`)
          .catch(() => undefined);
    });

    function deployment(name: string, containers: unknown[]): unknown {
      return {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name },
        spec: {
          selector: { matchLabels: { app: name } },
          template: { metadata: { labels: { app: name } }, spec: { containers } },
        },
      };
    }

    const deployments = () => `/apis/apps/v1/namespaces/${session().namespace}/deployments`;

    it("merges containers by name: another applier's container stays, and each owns its own", async () => {
      const name = `d-${suffix()}`;
      const path = `${deployments()}/${name}`;
      expectStatus(
        await apply(session(), path, deployment(name, [{ name: 'app', image: 'nginx:1' }]), { manager: 'team-a' }),
        201,
      );
      const second = await apply(
        session(),
        path,
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name },
          spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'envoy:1' }] } } },
        },
        { manager: 'team-b' },
      );
      expectStatus(second, 200);
      expect(second.json.spec.template.spec.containers.map((c: any) => c.name)).to.deep.equal(['app', 'sidecar']);
      expect(entryOf(second.json, 'team-b').fieldsV1).to.deep.equal({
        'f:spec': {
          'f:template': {
            'f:spec': { 'f:containers': { 'k:{"name":"sidecar"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
          },
        },
      });
    });

    it('merges env by name and ports by containerPort and protocol (the protocol default completes the key)', async () => {
      const name = `d-${suffix()}`;
      const path = `${deployments()}/${name}`;
      const base = [
        { name: 'app', image: 'nginx:1', env: [{ name: 'A', value: '1' }], ports: [{ containerPort: 80 }] },
      ];
      expectStatus(await apply(session(), path, deployment(name, base), { manager: 'team-a' }), 201);
      const more = await apply(
        session(),
        path,
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name },
          spec: {
            template: {
              spec: {
                containers: [
                  { name: 'app', env: [{ name: 'B', value: '2' }], ports: [{ containerPort: 80, protocol: 'UDP' }] },
                ],
              },
            },
          },
        },
        { manager: 'team-b' },
      );
      expectStatus(more, 200);
      const container = more.json.spec.template.spec.containers[0];
      expect(container.env).to.deep.equal([
        { name: 'A', value: '1' },
        { name: 'B', value: '2' },
      ]);
      expect(container.ports).to.deep.equal([
        { containerPort: 80, protocol: 'TCP' },
        { containerPort: 80, protocol: 'UDP' },
      ]);
      expect(entryOf(more.json, 'team-a').fieldsV1).to.deep.equal({
        'f:spec': {
          'f:selector': {},
          'f:template': {
            'f:metadata': { 'f:labels': { 'f:app': {} } },
            'f:spec': {
              'f:containers': {
                'k:{"name":"app"}': {
                  '.': {},
                  'f:env': { 'k:{"name":"A"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
                  'f:image': {},
                  'f:name': {},
                  'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
                },
              },
            },
          },
        },
      });
    });

    it('replaces an atomic list whole and reports the whole list in a conflict', async () => {
      const name = `d-${suffix()}`;
      const path = `${deployments()}/${name}`;
      expectStatus(
        await apply(session(), path, deployment(name, [{ name: 'app', image: 'busybox', args: ['a', 'b'] }]), {
          manager: 'team-a',
        }),
        201,
      );
      const clash = await apply(session(), path, deployment(name, [{ name: 'app', image: 'busybox', args: ['c'] }]), {
        manager: 'team-b',
      });
      expectStatus(clash, 409);
      expect(clash.json.details.causes).to.deep.equal([
        {
          reason: 'FieldManagerConflict',
          message: 'conflict with "team-a"',
          field: '.spec.template.spec.containers[name="app"].args',
        },
      ]);
      const forced = await apply(session(), path, deployment(name, [{ name: 'app', image: 'busybox', args: ['c'] }]), {
        manager: 'team-b',
        force: true,
      });
      expect(forced.json.spec.template.spec.containers[0].args).to.deep.equal(['c']);
    });

    it('treats finalizers as a set: appliers add and remove their own values', async () => {
      const name = `cm-${suffix()}`;
      const path = `/api/v1/namespaces/${session().namespace}/configmaps/${name}`;
      const config = (finalizers: string[]) => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, finalizers },
      });
      await apply(session(), path, config(['example.com/a']), { manager: 'a' });
      const both = await apply(session(), path, config(['example.com/b']), { manager: 'b' });
      expect(both.json.metadata.finalizers).to.deep.equal(['example.com/a', 'example.com/b']);
      expect(entryOf(both.json, 'b').fieldsV1).to.deep.equal({
        'f:metadata': { 'f:finalizers': { 'v:"example.com/b"': {} } },
      });
      const dropped = await apply(
        session(),
        path,
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } },
        { manager: 'a' },
      );
      expect(dropped.json.metadata.finalizers).to.deep.equal(['example.com/b']);
      await apply(session(), path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }, { manager: 'b' });
    });

    it('applies status through /status as a separate entry, and ignores status applied to the main resource', async () => {
      const name = `d-${suffix()}`;
      const path = `${deployments()}/${name}`;
      const withStatus = {
        ...(deployment(name, [{ name: 'app', image: 'nginx' }]) as object),
        status: { replicas: 5 },
      };
      const made = await apply(session(), path, withStatus, { manager: 'user' });
      expectStatus(made, 201);
      expect(made.json.status ?? {}).to.not.have.property('replicas');
      expect(entryOf(made.json, 'user').fieldsV1).to.not.have.property('f:status');
      const status = await apply(
        session(),
        path,
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name },
          status: { replicas: 2, conditions: [{ type: 'Available', status: 'True' }] },
        },
        { manager: 'controller', status: true },
      );
      expectStatus(status, 200);
      expect(status.json.status.replicas).to.equal(2);
      expect(entryOf(status.json, 'controller', 'Apply', 'status')).to.deep.equal(
        entry(
          'controller',
          'Apply',
          'apps/v1',
          {
            'f:status': {
              'f:conditions': { 'k:{"type":"Available"}': { '.': {}, 'f:status': {}, 'f:type': {} } },
              'f:replicas': {},
            },
          },
          'status',
        ),
      );
    });

    it('merges status conditions by type between two status appliers', async () => {
      const name = `d-${suffix()}`;
      const path = `${deployments()}/${name}`;
      await apply(session(), path, deployment(name, [{ name: 'app', image: 'nginx' }]), { manager: 'user' });
      const condition = (type: string) => ({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name },
        status: { conditions: [{ type, status: 'True' }] },
      });
      await apply(session(), path, condition('Available'), { manager: 'one', status: true });
      const second = await apply(session(), path, condition('Progressing'), { manager: 'two', status: true });
      expect(second.json.status.conditions.map((c: any) => c.type)).to.deep.equal(['Available', 'Progressing']);
    });

    it('answers an apply to /status of a missing object with 404', async () => {
      const answer = await apply(
        session(),
        `${deployments()}/missing-${suffix()}`,
        { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, status: {} },
        { manager: 'm', status: true },
      );
      expectStatus(answer, 404);
      expect(answer.json.reason).to.equal('NotFound');
    });

    it('moves a status field to a plain status update that changes it', async () => {
      const name = `d-${suffix()}`;
      const path = `${deployments()}/${name}`;
      await apply(session(), path, deployment(name, [{ name: 'app', image: 'nginx' }]), { manager: 'user' });
      await apply(
        session(),
        path,
        { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name }, status: { replicas: 1, readyReplicas: 1 } },
        { manager: 'controller', status: true },
      );
      const patched = await session().raw('PATCH', `${path}/status?fieldManager=kubelet`, {
        body: { status: { replicas: 3 } },
        contentType: MERGE,
      });
      expectStatus(patched, 200);
      expect(entryOf(patched.json, 'controller', 'Apply', 'status').fieldsV1).to.deep.equal({
        'f:status': { 'f:readyReplicas': {} },
      });
      expect(entryOf(patched.json, 'kubelet', 'Update', 'status').fieldsV1).to.deep.equal({
        'f:status': { 'f:replicas': {} },
      });
    });

    async function establish(kind: string, plural: string, spec: Record<string, unknown>): Promise<string> {
      const name = `${plural}.${group}`;
      crds.push(name);
      const made = await session().raw('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        body: {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name },
          spec: {
            group,
            scope: 'Namespaced',
            names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
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
                      spec: { type: 'object', properties: spec },
                      status: { type: 'object', properties: { phase: { type: 'string' } } },
                    },
                  },
                },
              },
            ],
          },
        },
      });
      expectStatus(made, 201);
      const path = `/apis/${group}/v1/namespaces/${session().namespace}/${plural}`;
      for (let attempt = 0; attempt < 100; attempt++) {
        if ((await session().raw('GET', path)).status === 200) return path;
        await new Promise<void>((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`${name} never served`);
    }

    it('merges a custom resource list by its x-kubernetes-list-map-keys and a set list by value', async () => {
      const path = await establish('Router', 'routers', {
        routes: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['host', 'port'],
          items: {
            type: 'object',
            required: ['host', 'port'],
            properties: { host: { type: 'string' }, port: { type: 'integer' }, backend: { type: 'string' } },
          },
        },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
      });
      const config = (routes: unknown[], tags: string[]) => ({
        apiVersion: `${group}/v1`,
        kind: 'Router',
        metadata: { name: 'r' },
        spec: { routes, tags },
      });
      expectStatus(
        await apply(session(), `${path}/r`, config([{ host: 'a', port: 80, backend: 'x' }], ['red']), { manager: 'a' }),
        201,
      );
      const second = await apply(session(), `${path}/r`, config([{ host: 'b', port: 80, backend: 'y' }], ['blue']), {
        manager: 'b',
      });
      expectStatus(second, 200);
      expect(second.json.spec).to.deep.equal({
        routes: [
          { host: 'a', port: 80, backend: 'x' },
          { host: 'b', port: 80, backend: 'y' },
        ],
        tags: ['red', 'blue'],
      });
      expect(entryOf(second.json, 'b').fieldsV1).to.deep.equal({
        'f:spec': {
          'f:routes': { 'k:{"host":"b","port":80}': { '.': {}, 'f:backend': {}, 'f:host': {}, 'f:port': {} } },
          'f:tags': { 'v:"blue"': {} },
        },
      });
      const clash = await apply(session(), `${path}/r`, config([{ host: 'a', port: 80, backend: 'z' }], []), {
        manager: 'b',
      });
      expectStatus(clash, 409);
      expect(clash.json.details.causes).to.deep.equal([
        {
          reason: 'FieldManagerConflict',
          message: 'conflict with "a"',
          field: '.spec.routes[host="a",port=80].backend',
        },
      ]);
    });

    it('replaces an atomic custom resource list and an atomic map whole', async () => {
      const path = await establish('Bundle', 'bundles', {
        items: { type: 'array', items: { type: 'string' } },
        settings: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } },
      });
      const config = (items: string[], settings: Record<string, string>) => ({
        apiVersion: `${group}/v1`,
        kind: 'Bundle',
        metadata: { name: 'b' },
        spec: { items, settings },
      });
      await apply(session(), `${path}/b`, config(['x'], { a: '1' }), { manager: 'a' });
      const forced = await apply(session(), `${path}/b`, config(['y'], { b: '2' }), { manager: 'b', force: true });
      expect(forced.json.spec).to.deep.equal({ items: ['y'], settings: { b: '2' } });
      expect(entryOf(forced.json, 'b').fieldsV1).to.deep.equal({ 'f:spec': { 'f:items': {}, 'f:settings': {} } });
    });

    it('tracks a custom resource status apply separately from its spec', async () => {
      const path = await establish('Job', 'jobs', { size: { type: 'integer' } });
      await apply(
        session(),
        `${path}/j`,
        { apiVersion: `${group}/v1`, kind: 'Job', metadata: { name: 'j', labels: { a: 'b' } }, spec: { size: 1 } },
        { manager: 'user' },
      );
      const status = await apply(
        session(),
        `${path}/j`,
        {
          apiVersion: `${group}/v1`,
          kind: 'Job',
          metadata: { name: 'j', labels: { ignored: 'yes' } },
          status: { phase: 'Done' },
        },
        { manager: 'operator', status: true },
      );
      expectStatus(status, 200);
      expect(status.json.status).to.deep.equal({ phase: 'Done' });
      expect(status.json.metadata.labels).to.deep.equal({ a: 'b' });
      expect(entryOf(status.json, 'operator', 'Apply', 'status')).to.deep.equal(
        entry('operator', 'Apply', `${group}/v1`, { 'f:status': { 'f:phase': {} } }, 'status'),
      );
    });
  });
}
