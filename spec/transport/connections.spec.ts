import { expect } from 'chai';
import { spawn } from 'node:child_process';
import type http from 'node:http';
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { IDLE_CONNECTION_MS, pooledAgent } from '../../src/transport/agents.js';
import { kubeTransport, TransportError, type Transport } from '../../src/transport/index.js';
import { closed, startServer, tick, type Handler, type TestServer } from './server.js';

const okJson: Handler = (_req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end('{"kind":"ConfigMap","metadata":{"name":"a"}}');
};

/** Answers the first request of each connection; a later request on the same connection finds it closed under it. */
function closingAfterFirstAnswer(): Handler {
  const answered = new WeakSet<object>();
  return (req, res) => {
    if (answered.has(req.socket)) {
      req.socket.destroy();
      return;
    }
    answered.add(req.socket);
    okJson(req, res);
  };
}

const connectionsOf = (server: TestServer): number => new Set(server.requests.map((req) => req.socket)).size;

describe('transport: connections are pooled and kept open between requests', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  for (const tls of [false, true]) {
    it(`sends sequential reads, writes and list pages over one connection (${tls ? 'HTTPS' : 'HTTP'})`, async () => {
      server = await startServer(okJson, { tls });
      const transport = kubeTransport(server.kc);
      for (let i = 0; i < 3; i++) await firstValueFrom(transport.get('/api/v1/namespaces/default/configmaps/a', {}));
      await lastValueFrom(
        transport.request({
          method: 'POST',
          path: '/api/v1/namespaces/default/configmaps',
          body: { metadata: { name: 'b' } },
        }),
      );
      await lastValueFrom(
        transport.request({
          method: 'PATCH',
          path: '/api/v1/namespaces/default/configmaps/b',
          body: '{}',
          contentType: 'application/merge-patch+json',
        }),
      );
      expect(server.requests).to.have.length(5);
      expect(connectionsOf(server)).to.equal(1);
    });
  }

  it('gives a watch a connection of its own while it is open, and frees it when it ends', async () => {
    let watching: http.ServerResponse | undefined;
    server = await startServer((req, res) => {
      if (req.url?.includes('watch=true')) {
        res.setHeader('content-type', 'application/json');
        res.write('{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"1"}}}\n');
        watching = res;
        return;
      }
      okJson(req, res);
    });
    const transport: Transport = kubeTransport(server.kc);
    const lines = lastValueFrom(transport.watch('/api/v1/namespaces/default/configmaps', {}).pipe(toArray()));
    await firstValueFrom(transport.get('/api/v1/namespaces/default/configmaps/a', {}).pipe(take(1)));
    expect(watching, 'the watch is open').to.not.equal(undefined);
    expect(connectionsOf(server)).to.equal(2);
    watching!.end();
    await lines;
    await firstValueFrom(transport.get('/api/v1/namespaces/default/configmaps/a', {}));
    expect(connectionsOf(server), 'the read after the watch reuses a pooled connection').to.equal(2);
  });

  it('lets a watch on a reused connection stay silent past the idle timeout the connection had in the pool', async () => {
    let watching: http.ServerResponse | undefined;
    server = await startServer((req, res) => {
      // The server asks for connections idle for 2 s at most: the pool gives them 1 s.
      res.setHeader('keep-alive', 'timeout=2');
      if (req.url?.includes('watch=true')) {
        res.setHeader('content-type', 'application/json');
        res.flushHeaders();
        watching = res;
        return;
      }
      okJson(req, res);
    });
    const transport = kubeTransport(server.kc);
    await firstValueFrom(transport.get('/api/v1/namespaces/default/configmaps/a', {}));
    const lines = lastValueFrom(transport.watch('/api/v1/namespaces/default/configmaps', {}).pipe(toArray()));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(watching, 'the watch is open').to.not.equal(undefined);
    expect(connectionsOf(server), 'the watch went out on the pooled connection').to.equal(1);
    watching!.end('{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"a","resourceVersion":"1"}}}\n');
    expect(await lines).to.have.length(1);
  });

  it('sends a GET once more on a new connection when the server closed the pooled one under it', async () => {
    server = await startServer(closingAfterFirstAnswer());
    const transport = kubeTransport(server.kc);
    await firstValueFrom(transport.get('/api/v1/namespaces/default/configmaps/a', {}));
    const body = await firstValueFrom(transport.get('/api/v1/namespaces/default/configmaps/a', {}));
    expect(body).to.deep.include({ kind: 'ConfigMap' });
    expect(server.requests).to.have.length(3);
    expect(connectionsOf(server)).to.equal(2);
  });

  it('sends nothing more when a GET on a pooled connection is aborted', async () => {
    const held: http.ServerResponse[] = [];
    server = await startServer((req, res) => {
      if (server!.requests.length === 1) okJson(req, res);
      else held.push(res);
    });
    const transport = kubeTransport(server.kc);
    await firstValueFrom(transport.get('/api/v1/namespaces/default/configmaps/a', {}));
    const subscription = transport
      .get('/api/v1/namespaces/default/configmaps/a', {})
      .subscribe({ error: () => undefined });
    while (server.requests.length < 2) await tick();
    subscription.unsubscribe();
    await closed(server.requests[1]!);
    await tick(50);
    expect(server.requests).to.have.length(2);
  });

  it('never sends a write twice: a POST on a pooled connection the server closed fails with NetworkError', async () => {
    server = await startServer(closingAfterFirstAnswer());
    const transport = kubeTransport(server.kc);
    await firstValueFrom(transport.get('/api/v1/namespaces/default/configmaps/a', {}));
    const failure = await lastValueFrom(
      transport.request({
        method: 'POST',
        path: '/api/v1/namespaces/default/configmaps',
        body: { metadata: { name: 'b' } },
      }),
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).to.be.instanceOf(TransportError);
    expect((failure as TransportError).reason).to.equal('NetworkError');
    expect(server.requests.filter((req) => req.method === 'POST')).to.have.length(1);
  });

  it("closes an idle pooled connection after IDLE_CONNECTION_MS, or a second before the server's announced keep-alive timeout, and keeps none the server closes within a second", async () => {
    // A Keep-Alive header without a timeout stands in for a server that announces none, as kube-apiserver.
    for (const [keepAlive, idle] of [
      ['max=100', IDLE_CONNECTION_MS],
      ['timeout=5', 4000],
      ['timeout=1', undefined],
    ] as const) {
      server = await startServer((req, res) => {
        res.setHeader('keep-alive', keepAlive);
        okJson(req, res);
      });
      const url = new URL(server.url);
      const agent = pooledAgent(url);
      await lastValueFrom(kubeTransport(server.kc).get('/api/v1/namespaces/default/configmaps/a', {}));
      const free = (Object.entries(agent.freeSockets).find(([name]) =>
        name.startsWith(`${url.hostname}:${url.port}:`),
      )?.[1] ?? []) as Socket[];
      if (idle === undefined) {
        expect(free, 'a connection the server closes within a second is not kept').to.have.length(0);
      } else {
        expect(free, 'one idle pooled connection').to.have.length(1);
        expect(free[0]!.timeout).to.equal(idle);
      }
      await server.close();
      server = undefined;
    }
  });

  it('does not keep a process alive with its idle connections', async () => {
    server = await startServer(okJson);
    const transportModule = fileURLToPath(new URL('../../src/transport/index.ts', import.meta.url));
    const script = [
      "import { KubeConfig } from '@kubernetes/client-node';",
      "import { lastValueFrom } from 'rxjs';",
      `import { kubeTransport } from ${JSON.stringify(transportModule)};`,
      'const kc = new KubeConfig();',
      `kc.loadFromOptions({ clusters: [{ name: 'c', server: ${JSON.stringify(server.url)}, skipTLSVerify: true }], users: [{ name: 'u' }], contexts: [{ name: 'x', cluster: 'c', user: 'u' }], currentContext: 'x' });`,
      "await lastValueFrom(kubeTransport(kc).get('/api/v1/namespaces/default/configmaps/a', {}));",
      "console.log('read');",
    ].join('\n');
    const child = await new Promise<{ status: number | null; stdout: string }>((resolve) => {
      // Spawned asynchronously: the server that answers it runs in this process.
      const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: fileURLToPath(new URL('../..', import.meta.url)),
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let stdout = '';
      proc.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
      const killer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
      proc.on('exit', (status) => {
        clearTimeout(killer);
        resolve({ status, stdout });
      });
    });
    expect(child.stdout.trim()).to.equal('read');
    expect(child.status, 'the child exited by itself, its pooled connection still open').to.equal(0);
    expect(connectionsOf(server)).to.equal(1);
  });
});
