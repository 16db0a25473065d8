import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { EMPTY, type Subscription } from 'rxjs';
import type { Registry } from 'prom-client';
import type { ControllerDefinition } from '../../src/controller/context/index.js';
import { manager, type ManagerOptions } from '../../src/manager/index.js';

const noop: ControllerDefinition = { name: 'noop', start: () => EMPTY };
const valid: ManagerOptions = { connection: new KubeConfig(), name: 'spec', controllers: [noop], signals: false };

describe('manager options', () => {
  const rejects = (
    overrides: Partial<ManagerOptions>,
    error: new (...args: never[]) => Error,
    message: RegExp,
  ): void => {
    expect(() => manager({ ...valid, ...overrides })).to.throw(error, message);
  };

  it('rejects a name that cannot name a Lease, and controllers without a unique name or a start function', () => {
    rejects({ name: 'Not_A_Name' }, RangeError, /name must be a DNS-1123 subdomain/);
    rejects({ controllers: [noop, noop] }, RangeError, /two controllers are named "noop"/);
    rejects(
      { controllers: [{ name: 'x' } as never] },
      TypeError,
      /controllers\[0\] must be \{ name, start\(context\) \}/,
    );
    rejects(
      { controllers: [{ name: '', start: () => EMPTY }] },
      RangeError,
      /controllers\[0\]\.name must be a non-empty string/,
    );
  });

  it('rejects bad ports, one port for both servers, and bad durations', () => {
    rejects({ metrics: { port: 70000 } }, RangeError, /metrics\.port must be an integer in 0–65535/);
    rejects(
      { metrics: { port: 9000 }, health: { port: 9000 } },
      RangeError,
      /metrics and health cannot both listen on port 9000/,
    );
    rejects({ shutdownTimeout: -1 }, RangeError, /shutdownTimeout must be a finite number of ms/);
    rejects({ health: { informerFailureThreshold: Number.NaN } }, RangeError, /health\.informerFailureThreshold/);
    rejects({ metrics: { registry: {} as Registry } }, TypeError, /metrics\.registry must be a prom-client Registry/);
  });

  it('needs a Lease namespace outside a cluster, and checks the election as leaderElection does', () => {
    rejects({ leaderElection: {} }, RangeError, /leaderElection\.namespace is required outside a cluster/);
    rejects(
      { leaderElection: { namespace: 'default', onLost: 'panic' as never } },
      RangeError,
      /onLost must be 'exit' or 'standby'/,
    );
    rejects(
      { leaderElection: { namespace: 'default', renewDeadline: 20_000 } },
      RangeError,
      /leaseDuration \(15000 ms\) must be greater than renewDeadline/,
    );
  });

  it('checks the event recorder options when the manager is built', () => {
    rejects(
      { events: { reportingController: 'not a qualified name!' } },
      RangeError,
      /eventRecorder: reportingController/,
    );
  });

  it('errors the manager, naming the controller, when a controller cannot be built', async () => {
    const broken: ControllerDefinition = {
      name: 'broken',
      start: () => {
        throw new Error('no CRD client');
      },
    };
    const error = await new Promise<Error>((resolve) =>
      manager({ ...valid, controllers: [broken], metrics: false, health: false, logger: silent() }).subscribe({
        error: resolve,
      }),
    );
    expect(error.message).to.equal('manager: controller broken could not be built: no CRD client');
  });

  it('errors the manager, naming the address, when a server cannot listen', async () => {
    const first = manager({ ...valid, metrics: { host: '127.0.0.1', port: 0 }, health: false, logger: silent() });
    let subscription: Subscription | undefined;
    const address = await new Promise<{ port: number }>((resolve) => {
      subscription = first.subscribe((e) => {
        if (e.type === 'started') resolve(e.metrics!);
      });
    });
    const error = await new Promise<Error>((resolve) =>
      manager({
        ...valid,
        metrics: { host: '127.0.0.1', port: address.port },
        health: false,
        logger: silent(),
      }).subscribe({ error: resolve }),
    );
    subscription!.unsubscribe();
    expect(error.message).to.match(
      new RegExp(`the metrics server cannot listen on 127\\.0\\.0\\.1:${address.port}: .*EADDRINUSE`),
    );
  });
});

function silent() {
  const drop = (): void => undefined;
  return { debug: drop, info: drop, warn: drop, error: drop };
}
