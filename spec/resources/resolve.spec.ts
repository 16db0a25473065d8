import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import {
  builtinResource,
  collectionPath,
  groupVersionPath,
  resolveResource,
  UnknownResourceError,
} from '../../src/resources/index.js';
import { startServer } from '../transport/server.js';
import type { TestServer } from '../transport/server.js';

describe('resources', () => {
  describe('built-in table', () => {
    it('resolves core kinds without discovery', async () => {
      const kc = new KubeConfig(); // no cluster: any network call would fail
      expect(await resolveResource(kc, { apiVersion: 'v1', kind: 'Pod' })).to.deep.equal({
        group: '',
        version: 'v1',
        kind: 'Pod',
        plural: 'pods',
        namespaced: true,
      });
      expect(await resolveResource(kc, { apiVersion: 'apps/v1', kind: 'Deployment' })).to.include({
        group: 'apps',
        plural: 'deployments',
      });
      expect(builtinResource('apiextensions.k8s.io/v1', 'CustomResourceDefinition')).to.include({ namespaced: false });
      expect(builtinResource('coordination.k8s.io/v1', 'Lease')).to.include({ plural: 'leases', namespaced: true });
    });
  });

  describe('paths', () => {
    const pods = builtinResource('v1', 'Pod')!;
    const deployments = builtinResource('apps/v1', 'Deployment')!;
    const nodes = builtinResource('v1', 'Node')!;

    it('builds collection paths with and without a namespace', () => {
      expect(collectionPath(pods)).to.equal('/api/v1/pods');
      expect(collectionPath(pods, 'kube-system')).to.equal('/api/v1/namespaces/kube-system/pods');
      expect(collectionPath(deployments, 'ns')).to.equal('/apis/apps/v1/namespaces/ns/deployments');
      expect(collectionPath(nodes)).to.equal('/api/v1/nodes');
      expect(groupVersionPath('', 'v1')).to.equal('/api/v1');
    });

    it('refuses a namespace for a cluster-scoped kind', () => {
      expect(() => collectionPath(nodes, 'ns')).to.throw('Node is cluster-scoped');
    });
  });

  describe('discovery over HTTP', () => {
    let server: TestServer | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    const serveDiscovery = async (warning?: string): Promise<TestServer> => {
      server = await startServer((req, res) => {
        if (req.url === '/apis/example.com/v1') {
          res.writeHead(200, {
            'content-type': 'application/json',
            ...(warning === undefined ? {} : { warning: `299 - "${warning}"` }),
          });
          res.end(
            JSON.stringify({
              kind: 'APIResourceList',
              groupVersion: 'example.com/v1',
              resources: [
                { name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget' },
                { name: 'widgets/status', singularName: '', namespaced: true, kind: 'Widget' },
                { name: 'gizmos', singularName: 'gizmo', namespaced: false, kind: 'Gizmo' },
              ],
            }),
          );
        } else {
          res.writeHead(404, {
            'content-type': 'application/json',
            ...(warning === undefined ? {} : { warning: `299 - "${warning}"` }),
          });
          res.end(
            JSON.stringify({
              kind: 'Status',
              code: 404,
              reason: 'NotFound',
              message: 'the server could not find the requested resource',
            }),
          );
        }
      });
      return server;
    };

    it('resolves a custom kind, ignoring subresources, and caches the group/version per KubeConfig', async () => {
      const s = await serveDiscovery();
      expect(await resolveResource(s.kc, { apiVersion: 'example.com/v1', kind: 'Widget' })).to.deep.equal({
        group: 'example.com',
        version: 'v1',
        kind: 'Widget',
        plural: 'widgets',
        namespaced: true,
      });
      expect(await resolveResource(s.kc, { apiVersion: 'example.com/v1', kind: 'Gizmo' })).to.include({
        plural: 'gizmos',
        namespaced: false,
      });
      expect(s.requests).to.have.length(1);
    });

    it('hands the warnings of a discovery answer to onWarning, and refuses an onWarning that is not a function', async () => {
      const s = await serveDiscovery('example.com/v1 is deprecated; use example.com/v2');
      const seen: string[] = [];
      const resolved = await resolveResource(
        s.kc,
        { apiVersion: 'example.com/v1', kind: 'Widget' },
        {
          onWarning: ({ method, path, text }) => seen.push(`${method} ${path} ${text}`),
        },
      );
      expect(resolved).to.include({ plural: 'widgets' });
      expect(seen).to.deep.equal(['GET /apis/example.com/v1 example.com/v1 is deprecated; use example.com/v2']);
      expect(() =>
        resolveResource(s.kc, { apiVersion: 'example.com/v1', kind: 'Widget' }, { onWarning: 'log' as never }),
      ).to.throw(TypeError, 'resolveResource: onWarning must be a function');
    });

    it('hands the warnings of a refused discovery request to onWarning before it rejects', async () => {
      const s = await serveDiscovery('nope.io/v1 was removed');
      const seen: string[] = [];
      const error = await resolveResource(
        s.kc,
        { apiVersion: 'nope.io/v1', kind: 'Foo' },
        {
          onWarning: ({ method, path, text }) => seen.push(`${method} ${path} ${text}`),
        },
      ).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(UnknownResourceError);
      expect(seen).to.deep.equal(['GET /apis/nope.io/v1 nope.io/v1 was removed']);
    });

    it('names the kind and apiVersion when discovery does not know it', async () => {
      const s = await serveDiscovery();
      const missingKind = await resolveResource(s.kc, { apiVersion: 'example.com/v1', kind: 'Foo' }).catch(
        (e: unknown) => e,
      );
      expect(missingKind).to.be.instanceOf(UnknownResourceError);
      expect((missingKind as Error).message).to.equal('unknown resource kind "Foo" in apiVersion "example.com/v1"');
      const missingGroup = await resolveResource(s.kc, { apiVersion: 'nope.io/v1', kind: 'Foo' }).catch(
        (e: unknown) => e,
      );
      expect((missingGroup as Error).message).to.equal('unknown resource kind "Foo" in apiVersion "nope.io/v1"');
    });
  });
});
