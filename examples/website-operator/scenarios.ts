/**
 * The website operator's scenarios that run, under the same names, against the in-memory server
 * (`website-operator.spec.ts`, with its garbage collector on) and against kube-apiserver
 * (`spec/e2e/website-operator.spec.ts`), always under a manager with leader election on a real Lease.
 * @module
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type {
  KubeConfig,
  KubernetesObject,
  V1ConfigMap,
  V1Deployment,
  V1ManagedFieldsEntry,
  V1Service,
} from '@kubernetes/client-node';
import { firstValueFrom, type Subscription } from 'rxjs';
import { apiErrors, manager, resourceClient, silentLogger, type ResourceClient } from '../../src/index.js';
import { waitFor, waitForAsync } from '../shared/wait.js';
import { websiteController } from './controller.js';
import { installWebsiteCrd } from './crd.js';
import { contentHash } from './desired.js';
import { DEFAULT_FIELD_MANAGER } from './options.js';
import { fileRecords } from './records.js';
import { markRolledOut } from './workload.js';
import {
  CONFIG_MAP,
  CONTENT_HASH_ANNOTATION,
  DEPLOYMENT,
  ownedNames,
  RECORD_FINALIZER,
  SERVICE,
  WEBSITE,
  type Condition,
  type Website,
} from './website.js';

/** The `reportingController` of the scenarios' manager. */
export const REPORTING_CONTROLLER = 'example.rxkube.io/website-operator';

/** An `events.k8s.io/v1` Event, the fields the scenarios read. */
interface EventObject {
  readonly type: string;
  readonly reason: string;
  readonly note?: string;
  readonly reportingController: string;
  readonly regarding: { readonly kind?: string; readonly name?: string; readonly uid?: string };
}

/** Where the scenarios run. */
export interface ScenarioTarget {
  /** The cluster, once the suite's `before` hook has run. */
  readonly kubeConfig: () => KubeConfig;
  /** Whether something deletes dependents whose owner is gone (the in-memory `ownerGC`, kube-controller-manager). */
  readonly collectsGarbage: boolean;
}

/**
 * Registers the shared scenarios in the current `describe`: the Website CRD installed, a namespace of their own, and
 * one operator (a manager campaigning for a Lease of its own there) watching only that namespace and writing its
 * records to a temporary directory, for the whole suite.
 */
export function websiteOperatorScenarios(target: ScenarioTarget): void {
  const run = Math.random().toString(36).slice(2, 8);
  const namespace = `websites-${run}`;
  const lines: string[] = [];
  let recordsDirectory = '';
  let operator: Subscription | undefined;
  const kc = () => target.kubeConfig();
  const client = <T extends KubernetesObject>(resource: typeof WEBSITE) =>
    resourceClient<T>(kc(), resource, { namespace, fieldManager: 'scenario-user' });
  const websites = () => client<Website>(WEBSITE);
  const configMaps = () => client<V1ConfigMap>(CONFIG_MAP);
  const deployments = () => client<V1Deployment>(DEPLOYMENT);
  const services = () => client<V1Service>(SERVICE);

  const create = (name: string, spec: Website['spec']) =>
    firstValueFrom(
      websites().create({ apiVersion: WEBSITE.apiVersion, kind: WEBSITE.kind, metadata: { name, namespace }, spec }),
    );
  const createDefaults = (name: string, data: Record<string, string>) =>
    firstValueFrom(configMaps().create({ metadata: { name, namespace }, data }));
  const get = <T extends KubernetesObject>(clientOf: () => ResourceClient<T>, name: string) =>
    firstValueFrom(clientOf().get(name));
  const exists = <T extends KubernetesObject>(clientOf: () => ResourceClient<T>, name: string) =>
    firstValueFrom(clientOf().get(name)).then(
      () => true,
      (error: unknown) => {
        if (apiErrors.isNotFound(error)) return false;
        throw error;
      },
    );
  /** Waits until the Website's status says `test`; the failure message shows the last status. */
  const statusOf = async (name: string, test: (website: Website) => boolean, what: string): Promise<Website> => {
    let last: Website | undefined;
    await waitForAsync(
      async () => test((last = await get(websites, name))),
      () => `${what}; status: ${JSON.stringify(last?.status)}`,
      30_000,
      50,
    );
    return last!;
  };
  const condition = (website: Website, type: string): Condition | undefined =>
    website.status?.conditions?.find((c) => c.type === type);
  const eventsAbout = async (name: string): Promise<EventObject[]> => {
    const list = await firstValueFrom(
      resourceClient<KubernetesObject>(kc(), { apiVersion: 'events.k8s.io/v1', kind: 'Event' }, { namespace }).list(),
    );
    return (list.items as unknown as EventObject[]).filter(
      (event) =>
        event.regarding?.kind === 'Website' &&
        event.regarding.name === name &&
        event.reportingController === REPORTING_CONTROLLER,
    );
  };
  const waitForEvent = async (name: string, reason: string): Promise<EventObject> => {
    let events: EventObject[] = [];
    await waitForAsync(
      async () => (events = await eventsAbout(name)).some((event) => event.reason === reason),
      () =>
        `an Event ${reason} about ${name}; Events: ${events.map((event) => event.reason).join(', ')}; lines:\n${lines.join('\n')}`,
      30_000,
      100,
    );
    return events.find((event) => event.reason === reason)!;
  };
  const recordPath = (name: string) => fileRecords(recordsDirectory).where(namespace, name);

  before(async function () {
    this.timeout(60_000);
    await installWebsiteCrd(kc());
    await firstValueFrom(
      resourceClient(kc(), { apiVersion: 'v1', kind: 'Namespace' }).create({ metadata: { name: namespace } }),
    );
    recordsDirectory = mkdtempSync(join(tmpdir(), 'website-records-'));
    let leading = false;
    operator = manager({
      connection: kc(),
      name: `website-operator-${run}`,
      controllers: [websiteController({ namespace, recordsDirectory, print: (line) => lines.push(line) })],
      leaderElection: { namespace },
      metrics: false,
      health: false,
      signals: false,
      logger: silentLogger(),
      events: { reportingController: REPORTING_CONTROLLER },
    }).subscribe((event) => {
      if (event.type === 'leading') leading = event.leading;
    });
    await waitFor(() => leading, 'the operator to lead', 30_000);
  });

  after(async function () {
    this.timeout(60_000);
    // While the operator still runs, so every finalizer is honoured; whatever a failed scenario left behind goes.
    const left = (await firstValueFrom(websites().list())).items;
    await Promise.all(
      left.map((website) => firstValueFrom(websites().delete(website.metadata!.name!)).catch(() => undefined)),
    );
    await waitForAsync(
      async () => (await firstValueFrom(websites().list())).items.length === 0,
      'the Websites to go',
      30_000,
    ).catch(() => undefined);
    operator?.unsubscribe();
    await firstValueFrom(resourceClient(kc(), { apiVersion: 'v1', kind: 'Namespace' }).delete(namespace)).catch(
      () => undefined,
    );
    rmSync(recordsDirectory, { recursive: true, force: true });
  });

  it('applies a ConfigMap, a Deployment and a Service under one field manager, each controlled by the Website, and publishes its record', async () => {
    await createDefaults('website-defaults', { image: 'nginx:1.27', replicas: '2', labels: 'team: web\n' });
    const created = await create('alpha', { content: '<h1>Alpha</h1>\n' });
    const website = await statusOf(
      'alpha',
      (w) => w.status?.observedGeneration === 1 && condition(w, 'Progressing')?.status === 'True',
      'alpha to be rolling out',
    );
    const names = ownedNames('alpha');

    expect(website.metadata?.finalizers).to.deep.equal([RECORD_FINALIZER]);
    const owned = [
      await get(configMaps, names.configMap),
      await get(deployments, names.deployment),
      await get(services, names.service),
    ];
    for (const object of owned) {
      expect(object.metadata?.ownerReferences, object.kind).to.deep.equal([
        {
          apiVersion: WEBSITE.apiVersion,
          kind: 'Website',
          name: 'alpha',
          uid: created.metadata!.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      const applies = (object.metadata?.managedFields ?? []).filter(
        (entry: V1ManagedFieldsEntry) => entry.operation === 'Apply',
      );
      expect(
        applies.map((entry) => entry.manager),
        object.kind,
      ).to.deep.equal([DEFAULT_FIELD_MANAGER]);
      expect(object.metadata?.labels).to.deep.include({
        team: 'web',
        'app.kubernetes.io/instance': 'alpha',
        'app.kubernetes.io/managed-by': 'website-operator',
      });
    }
    const [configMap, deployment] = owned as [V1ConfigMap, V1Deployment, V1Service];
    expect(configMap.data).to.deep.equal({ 'index.html': '<h1>Alpha</h1>\n' });
    expect(deployment.spec?.replicas).to.equal(2);
    expect(deployment.spec?.template.spec?.containers.map((c) => c.image)).to.deep.equal(['nginx:1.27']);
    expect(deployment.spec?.template.metadata?.annotations?.[CONTENT_HASH_ANNOTATION]).to.equal(
      contentHash('<h1>Alpha</h1>\n'),
    );

    const service = owned[2] as V1Service;
    const record = JSON.parse(readFileSync(recordPath('alpha'), 'utf8')) as Record<string, unknown>;
    expect(record).to.deep.equal({
      hostname: `alpha.${namespace}.websites.example.test`,
      type: 'A',
      value: service.spec?.clusterIP,
      website: { namespace, name: 'alpha', uid: created.metadata!.uid },
    });
    expect(website.status).to.deep.include({
      observedGeneration: 1,
      image: 'nginx:1.27',
      replicas: 2,
      readyReplicas: 0,
      url: `http://alpha.${namespace}.svc`,
      hostname: `alpha.${namespace}.websites.example.test`,
    });
    expect(website.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.observedGeneration])).to.deep.equal([
      ['Ready', 'False', 'RollingOut', 1],
      ['Progressing', 'True', 'RollingOut', 1],
      ['Degraded', 'False', 'AsExpected', 1],
    ]);
    for (const c of website.status!.conditions!)
      expect(c.lastTransitionTime).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    await waitForEvent('alpha', 'RecordWritten');
    const reasons = (await eventsAbout('alpha')).map((event) => `${event.type} ${event.reason}`);
    expect(reasons).to.include.members(['Normal Created', 'Normal RecordWritten', 'Normal RollingOut']);
    expect(
      (await eventsAbout('alpha'))
        .filter((event) => event.reason === 'Created')
        .map((event) => event.note)
        .sort(),
    ).to.deep.equal(['created ConfigMap alpha-content', 'created Deployment alpha', 'created Service alpha']);
  });

  it('rolls out new content and replicas: observedGeneration follows, and Ready flips once the Deployment is rolled out', async () => {
    await createDefaults('beta-defaults', { image: 'nginx:1.27' });
    await create('beta', { content: 'one', defaultsConfigMap: 'beta-defaults' });
    const first = await statusOf(
      'beta',
      (w) => w.status?.observedGeneration === 1 && condition(w, 'Progressing')?.status === 'True',
      'beta to be rolling out',
    );
    await firstValueFrom(websites().patch('beta', { type: 'merge', body: { spec: { content: 'two', replicas: 3 } } }));
    const second = await statusOf('beta', (w) => w.status?.observedGeneration === 2, 'beta to observe generation 2');

    const deployment = await get(deployments, ownedNames('beta').deployment);
    expect(deployment.spec?.replicas).to.equal(3);
    expect(deployment.spec?.template.metadata?.annotations?.[CONTENT_HASH_ANNOTATION]).to.equal(contentHash('two'));
    expect((await get(configMaps, ownedNames('beta').configMap)).data).to.deep.equal({ 'index.html': 'two' });
    expect(second.status?.conditions?.map((c) => c.observedGeneration)).to.deep.equal([2, 2, 2]);
    // Degraded stayed False: no transition, so its time is the first one.
    expect(condition(second, 'Degraded')?.lastTransitionTime).to.equal(
      condition(first, 'Degraded')?.lastTransitionTime,
    );

    await markRolledOut(kc(), namespace, ownedNames('beta').deployment);
    const ready = await statusOf('beta', (w) => condition(w, 'Ready')?.status === 'True', 'beta to be Ready');
    expect(ready.status?.conditions?.map((c) => [c.type, c.status, c.reason])).to.deep.equal([
      ['Ready', 'True', 'Available'],
      ['Progressing', 'False', 'RolloutComplete'],
      ['Degraded', 'False', 'AsExpected'],
    ]);
    expect(ready.status?.readyReplicas).to.equal(3);
    expect(condition(ready, 'Degraded')?.lastTransitionTime).to.equal(condition(first, 'Degraded')?.lastTransitionTime);
    expect((await waitForEvent('beta', 'Ready')).type).to.equal('Normal');
  });

  it('fans a change of a defaults ConfigMap out to every Website that uses it, and to no other', async () => {
    await createDefaults('shared-defaults', { image: 'nginx:1.27' });
    await createDefaults('other-defaults', { image: 'httpd:2.4' });
    for (const name of ['gamma', 'delta']) await create(name, { content: name, defaultsConfigMap: 'shared-defaults' });
    await create('epsilon', { content: 'epsilon', defaultsConfigMap: 'other-defaults' });
    for (const name of ['gamma', 'delta', 'epsilon'])
      await statusOf(
        name,
        (w) => w.status?.observedGeneration === 1 && w.status.image !== undefined,
        `${name} to be applied`,
      );
    const untouched = await get(deployments, 'epsilon');

    await firstValueFrom(
      configMaps().patch('shared-defaults', {
        type: 'merge',
        body: { data: { image: 'nginx:1.27-alpine', labels: 'tier: frontend' } },
      }),
    );
    for (const name of ['gamma', 'delta']) {
      await statusOf(name, (w) => w.status?.image === 'nginx:1.27-alpine', `${name} to use the new default image`);
      const deployment = await get(deployments, name);
      expect(deployment.spec?.template.spec?.containers[0]?.image).to.equal('nginx:1.27-alpine');
      expect(deployment.metadata?.labels).to.deep.include({ tier: 'frontend' });
    }
    const epsilon = await get(deployments, 'epsilon');
    expect(epsilon.metadata?.resourceVersion).to.equal(untouched.metadata?.resourceVersion);
    expect(epsilon.spec?.template.spec?.containers[0]?.image).to.equal('httpd:2.4');
  });

  it('says Degraded, with a Warning, for defaults it cannot use, and recovers once they are fixed', async () => {
    await createDefaults('zeta-defaults', { image: 'nginx:1.27', replicas: 'many' });
    await create('zeta', { content: 'zeta', defaultsConfigMap: 'zeta-defaults' });
    const degraded = await statusOf('zeta', (w) => condition(w, 'Degraded')?.status === 'True', 'zeta to be Degraded');
    expect(condition(degraded, 'Degraded')).to.deep.include({
      reason: 'InvalidDefaults',
      observedGeneration: 1,
      message: `ConfigMap ${namespace}/zeta-defaults: replicas must be a whole number from 0 to 1000, got "many"`,
    });
    expect(await exists(deployments, 'zeta')).to.equal(false);
    expect((await waitForEvent('zeta', 'InvalidDefaults')).type).to.equal('Warning');

    await firstValueFrom(configMaps().patch('zeta-defaults', { type: 'merge', body: { data: { replicas: '2' } } }));
    const recovered = await statusOf('zeta', (w) => condition(w, 'Degraded')?.status === 'False', 'zeta to recover');
    expect(condition(recovered, 'Degraded')?.reason).to.equal('AsExpected');
    expect((await get(deployments, 'zeta')).spec?.replicas).to.equal(2);
    expect((await waitForEvent('zeta', 'Recovered')).type).to.equal('Normal');
  });

  it('takes back a field another manager took over, and reports the conflict with a Warning', async () => {
    await createDefaults('eta-defaults', { replicas: '2' });
    await create('eta', { content: 'eta', defaultsConfigMap: 'eta-defaults' });
    await statusOf(
      'eta',
      (w) => w.status?.observedGeneration === 1 && w.status.image !== undefined,
      'eta to be applied',
    );
    // Another tool scales the Deployment with server-side apply, forcing the field away from the operator.
    await firstValueFrom(
      resourceClient<V1Deployment>(kc(), DEPLOYMENT, { namespace, fieldManager: 'other-tool' }).apply(
        { metadata: { name: 'eta', namespace }, spec: { replicas: 5 } },
        { force: true },
      ),
    );
    const conflict = await waitForEvent('eta', 'FieldConflict');
    expect(conflict.type).to.equal('Warning');
    expect(conflict.note).to.equal('took back .spec.replicas from "other-tool" on Deployment eta');
    let deployment: V1Deployment | undefined;
    await waitForAsync(
      async () => (deployment = await get(deployments, 'eta')).spec?.replicas === 2,
      'the operator to take replicas back',
      30_000,
    );
    const owners = (deployment!.metadata?.managedFields ?? []).filter((entry) =>
      JSON.stringify(entry.fieldsV1 ?? {}).includes('"f:replicas"'),
    );
    expect(owners.map((entry) => `${entry.manager} ${entry.operation}`)).to.deep.equal([
      `${DEFAULT_FIELD_MANAGER} Apply`,
    ]);
  });

  it('removes the record once the Website is deleted, then lets the Website go; its objects follow it by owner reference', async () => {
    await create('theta', { content: 'theta' });
    const applied = await statusOf('theta', (w) => w.status?.hostname !== undefined, 'theta to be applied');
    expect(readFileSync(recordPath('theta'), 'utf8')).to.contain(`theta.${namespace}.websites.example.test`);
    await firstValueFrom(websites().delete('theta'));
    await waitForAsync(async () => !(await exists(websites, 'theta')), 'theta to go', 30_000);
    expect(() => readFileSync(recordPath('theta'))).to.throw(/ENOENT/);
    const cleanedUp = await waitForEvent('theta', 'CleanedUp');
    expect(cleanedUp.note).to.equal(
      `removed DNS record theta.${namespace}.websites.example.test (${recordPath('theta')})`,
    );
    const names = ownedNames('theta');
    const kinds: Array<[() => ResourceClient<KubernetesObject>, string]> = [
      [configMaps, names.configMap],
      [deployments, names.deployment],
      [services, names.service],
    ];
    if (target.collectsGarbage) {
      for (const [clientOf, name] of kinds) {
        await waitForAsync(async () => !(await exists(clientOf, name)), `${name} to be collected`, 30_000);
      }
    } else {
      // No garbage collector: the objects stay, pointing at an owner that is gone, until someone deletes them.
      for (const [clientOf, name] of kinds) {
        const object = await get(clientOf, name);
        expect(object.metadata?.ownerReferences?.[0]?.uid).to.equal(applied.metadata?.uid);
        await firstValueFrom(clientOf().delete(name));
      }
    }
  });
}
