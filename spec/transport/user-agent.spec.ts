/**
 * The User-Agent rxkube sends (defect 7 of issue 26): on every request, as client-go builds one, configurable per
 * transport, and what kube-apiserver names a write without a fieldManager after.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { firstValueFrom, lastValueFrom, take } from 'rxjs';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { resourceClient } from '../../src/client/index.js';
import { startTestCluster } from '../../src/testing/index.js';
import {
  RXKUBE_VERSION,
  defaultUserAgent,
  kubeTransport,
  programName,
  transportOf,
} from '../../src/transport/index.js';
import { startServer } from './server.js';

describe('transport: the User-Agent', () => {
  it("names the program, rxkube's version, the OS and the architecture, as client-go's default does", () => {
    const agent = defaultUserAgent('my-operator');
    const arch = ({ x64: 'amd64', ia32: '386' } as Record<string, string>)[process.arch] ?? process.arch;
    const os = process.platform === 'win32' ? 'windows' : process.platform;
    expect(agent).to.equal(`my-operator/v${RXKUBE_VERSION} (${os}/${arch}) rxkube node/${process.version}`);
    expect(agent.split('/')[0], 'the prefix kube-apiserver takes as the field manager').to.equal('my-operator');
    expect(defaultUserAgent()).to.equal(defaultUserAgent(programName()));
  });

  it('takes the program name from the entry script, without its extension, and keeps it a valid header prefix', () => {
    expect(programName('/app/dist/main.js')).to.equal('main');
    expect(programName('/usr/local/bin/my-operator')).to.equal('my-operator');
    expect(programName('C:\\tools\\op.mjs'.replace(/\\/g, '/'))).to.equal('op');
    expect(programName('/x/é op.ts')).to.equal('__op');
    expect(programName('')).to.equal('rxkube');
  });

  it('carries the version package.json says', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(RXKUBE_VERSION).to.equal(pkg.version);
  });

  it('is sent on every request: GETs (lists, discovery), watches and writes', async () => {
    const server = await startServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        req.url?.includes('watch=true')
          ? '{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"1"}}}\n'
          : '{"items":[],"metadata":{}}',
      );
    });
    try {
      const transport = kubeTransport(server.kc);
      await firstValueFrom(transport.get('/api/v1/pods', {}));
      await lastValueFrom(transport.watch('/api/v1/pods', {}).pipe(take(1)));
      await lastValueFrom(transport.watchChunks!('/api/v1/pods', {}).pipe(take(1)));
      await firstValueFrom(
        transport.request({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', body: {} }),
      );
      const agents = server.requests.map((req) => req.headers['user-agent']);
      expect(
        agents.every((agent) => agent !== undefined),
        'a User-Agent on every request',
      ).to.equal(true);
      expect(agents).to.deep.equal(Array(4).fill(defaultUserAgent()));
    } finally {
      await server.close();
    }
  });

  it('is the userAgent given to kubeTransport, one transport per KubeConfig and agent', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    try {
      const named = kubeTransport(server.kc, { userAgent: 'website-operator/v1.2.0' });
      expect(kubeTransport(server.kc, { userAgent: 'website-operator/v1.2.0' })).to.equal(named);
      expect(kubeTransport(server.kc)).to.equal(transportOf(server.kc)).and.not.equal(named);
      await Promise.all([
        firstValueFrom(named.get('/version', {})),
        firstValueFrom(named.request({ method: 'GET', path: '/version' })),
      ]);
      expect(server.requests.map((req) => req.headers['user-agent'])).to.deep.equal(
        Array(2).fill('website-operator/v1.2.0'),
      );
      expect(() => kubeTransport(server.kc, { userAgent: '' })).to.throw(TypeError, /userAgent/);
      expect(() => kubeTransport(server.kc, { userAgent: 'bad\nagent' })).to.throw(TypeError, /userAgent/);
    } finally {
      await server.close();
    }
  });

  it('names the field manager of a write that gives none after the program, not "unknown" (in-memory server)', async () => {
    const cluster = await startTestCluster();
    try {
      const managers: string[][] = [];
      for (const connection of [
        cluster.kubeConfig,
        kubeTransport(cluster.kubeConfig, { userAgent: 'my-operator/v2' }),
      ]) {
        const configMaps = resourceClient<V1ConfigMap>(
          connection,
          { apiVersion: 'v1', kind: 'ConfigMap' },
          { namespace: 'default' },
        );
        const made = await firstValueFrom(
          configMaps.create({ metadata: { generateName: 'agent-' }, data: { a: '1' } }),
        );
        const written = await firstValueFrom(
          configMaps.mutate(made, (draft) => {
            draft.data = { ...draft.data, b: '2' };
          }),
        );
        managers.push(written.metadata!.managedFields!.map((entry) => `${entry.manager} ${entry.operation}`));
      }
      expect(managers.flat()).not.to.include('unknown Update');
      expect(managers).to.deep.equal([[`${programName()} Update`], ['my-operator Update']]);
    } finally {
      await cluster.stop();
    }
  });
});
