/**
 * The fault the write timeout exists for, over a real socket: the in-memory server behind a TCP proxy that stalls
 * the pooled connection without a FIN, as a peer that vanished does. The write on it must fail in bounded time, and
 * the next one, on a new connection, succeed.
 */
import type { V1ConfigMap } from '@kubernetes/client-node';
import { expect } from 'chai';
import { firstValueFrom } from 'rxjs';
import { resourceClient } from '../../src/client/index.js';
import { startTcpProxy, startTestCluster, type TcpProxy, type TestCluster } from '../../src/testing/index.js';
import { isWriteTimeout } from '../../src/transport/index.js';

const configMap = (name: string): V1ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });

describe('client: a write on a pooled connection whose peer vanished without a FIN (in-memory server, TCP proxy)', () => {
  let cluster: TestCluster | undefined;
  let proxy: TcpProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    await cluster?.stop();
    proxy = undefined;
    cluster = undefined;
  });

  for (const tls of [false, true]) {
    it(`fails with WriteTimeout within writeTimeout, and the next write succeeds on a new connection (${tls ? 'HTTPS' : 'HTTP'})`, async () => {
      cluster = await startTestCluster({ tls });
      proxy = await startTcpProxy({ targetPort: Number(new URL(cluster.url).port) });
      const configMaps = resourceClient<V1ConfigMap>(
        proxy.routeThrough(cluster.kubeConfig),
        { apiVersion: 'v1', kind: 'ConfigMap' },
        { namespace: 'default', writeTimeout: 1000 },
      );
      await firstValueFrom(configMaps.create(configMap('first')));
      expect(proxy.openConnections, 'the first write left its connection in the pool').to.equal(1);

      proxy.stall('open');
      const error = await firstValueFrom(configMaps.create(configMap('stalled'))).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(isWriteTimeout(error), String(error)).to.equal(true);
      expect((error as Error).message).to.include('may or may not have applied it');

      const next = await firstValueFrom(configMaps.create(configMap('next')));
      expect(next.metadata?.name).to.equal('next');
      expect(proxy.acceptedConnections, 'the next write went out on a new connection').to.equal(2);
    });
  }
});
