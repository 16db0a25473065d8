/**
 * First contact: the README's own pattern (`informer` → `toKeys` → `reconcile`), with no health option at all,
 * pointed at what a newcomer gets wrong first: a closed port, a wrong token, a kind whose CRD is not installed. Each
 * must print its cause on stderr (a process warning) on the reflector's first failure, not after a backoff and not
 * never, and say so once.
 */
import { createServer } from 'node:net';
import { KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { expect } from 'chai';
import type { Subscription } from 'rxjs';
import { reconcile } from '../../src/controller/index.js';
import { toKeys } from '../../src/controller/triggers/index.js';
import { informer } from '../../src/informer/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { WATCH_HEALTH_WARNING, type ResourceRef, type WatchStatus } from '../../src/watch/index.js';
import { waitFor } from '../support/wait.js';

/** What was printed, and how many times the reflector had failed when it was. */
interface Printed {
  readonly message: string;
  readonly type: string | undefined;
  readonly failuresSoFar: number;
  /** Backoffs announced before it was printed: 0 means it was printed before the first retry was even planned. */
  readonly backoffsSoFar: number;
}

/** A port nothing listens on: bound by the OS, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function kubeConfigFor(server: string, token: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [{ name: 'u', token }],
    contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
    currentContext: 'c',
  });
  return kubeConfig;
}

/**
 * Runs steps 1 and 2 of the README against `kubeConfig` and `resource` until something is printed as a
 * KubernetesWatchHealth warning; returns what was printed, with the reflector's failure count at that moment.
 */
async function readmePattern(kubeConfig: KubeConfig, resource: ResourceRef): Promise<Printed[]> {
  const printed: Printed[] = [];
  const statuses: WatchStatus[] = [];
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, options?: { type?: string }) => {
    if (options?.type !== WATCH_HEALTH_WARNING) return emit.call(process, warning as string, options as never);
    printed.push({
      message: String(warning),
      type: options.type,
      failuresSoFar: statuses.filter((s) => s.state === 'error').length,
      backoffsSoFar: statuses.filter((s) => s.state === 'backingOff').length,
    });
  }) as typeof process.emitWarning;
  let subscription: Subscription | undefined;
  try {
    // Step 1, as the README writes it (the status subscription only counts failures for this spec).
    const configMaps = informer<V1ConfigMap>(kubeConfig, resource, {
      namespace: 'default',
      labelSelector: 'example.com/greet',
    });
    subscription = configMaps.status$.subscribe((status) => statuses.push(status));
    // Step 2.
    subscription.add(
      configMaps.events$
        .pipe(
          toKeys(),
          reconcile(({ key }) => void key, { lookup: configMaps, gate: configMaps.synced$ }),
        )
        .subscribe(),
    );
    await waitFor(() => printed.length > 0, `a health warning for ${resource.kind}`, 15_000);
  } finally {
    subscription?.unsubscribe();
    process.emitWarning = emit;
  }
  return printed;
}

describe('first contact: the README pattern tells its user what is wrong, by default', function () {
  this.timeout(30_000);
  let cluster: TestCluster;

  before(async () => {
    cluster = await startTestCluster({ tls: true, token: 'the-right-token' });
  });
  after(async () => {
    await cluster.stop();
  });

  it('prints a refused connection on its first failure', async () => {
    const printed = await readmePattern(kubeConfigFor(`https://127.0.0.1:${await closedPort()}`, 'any'), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
    });
    expect(printed[0]!.message).to.match(
      /^ConfigMap v1 in default example\.com\/greet: NetworkError: .*ECONNREFUSED.* \(retrying with backoff\)$/,
    );
    expect(printed[0]!.type).to.equal(WATCH_HEALTH_WARNING);
    expect([printed[0]!.failuresSoFar, printed[0]!.backoffsSoFar]).to.deep.equal([1, 0]);
  });

  it('prints a wrong token as 401 Unauthorized on its first failure', async () => {
    const printed = await readmePattern(kubeConfigFor(cluster.url, 'a-wrong-token'), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
    });
    expect(printed[0]!.message).to.match(
      /^ConfigMap v1 in default example\.com\/greet: 401 Unauthorized: .* \(retrying with backoff\)$/,
    );
    expect([printed[0]!.failuresSoFar, printed[0]!.backoffsSoFar]).to.deep.equal([1, 0]);
  });

  it('prints a kind whose CRD is not installed as 404 UnknownResource on its first failure', async () => {
    const printed = await readmePattern(cluster.kubeConfig, { apiVersion: 'example.com/v1', kind: 'Greeting' });
    expect(printed[0]!.message).to.match(
      /^Greeting example\.com\/v1 in default example\.com\/greet: 404 UnknownResource: unknown resource kind "Greeting" in apiVersion "example\.com\/v1"/,
    );
    expect([printed[0]!.failuresSoFar, printed[0]!.backoffsSoFar]).to.deep.equal([1, 0]);
  });
});
