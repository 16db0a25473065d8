/**
 * The examples' CRD installer against the in-memory server over HTTP.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { KubernetesObject } from '@kubernetes/client-node';
import { firstValueFrom } from 'rxjs';
import { apiErrors, resourceClient } from '../../src/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { CRD_RESOURCE, installCrd, readCrd } from './crd.js';

const GADGET = { apiVersion: 'gadgets.example.test/v1', kind: 'Gadget' } as const;

function gadgetCrd(description: string): KubernetesObject & { spec: unknown } {
  return {
    apiVersion: CRD_RESOURCE.apiVersion,
    kind: CRD_RESOURCE.kind,
    metadata: { name: 'gadgets.gadgets.example.test' },
    spec: {
      group: 'gadgets.example.test',
      scope: 'Namespaced',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: { openAPIV3Schema: { type: 'object', description, 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
}

describe("the examples' CRD installer (installCrd)", function () {
  this.timeout(20_000);
  let cluster: TestCluster;
  const crds = () => resourceClient<KubernetesObject & { spec?: unknown }>(cluster.kubeConfig, CRD_RESOURCE);

  beforeEach(async () => {
    cluster = await startTestCluster();
  });

  afterEach(() => cluster.stop());

  it('creates the CRD and resolves once its kind lists; a second install of the same spec writes nothing', async () => {
    await installCrd(cluster.kubeConfig, gadgetCrd('one'), { fieldManager: 'installer', served: GADGET });
    const first = await firstValueFrom(crds().get('gadgets.gadgets.example.test'));
    expect(
      (await firstValueFrom(resourceClient(cluster.kubeConfig, GADGET, { namespace: 'default' }).list())).items,
    ).to.deep.equal([]);

    await installCrd(cluster.kubeConfig, gadgetCrd('one'), { fieldManager: 'installer', served: GADGET });
    const again = await firstValueFrom(crds().get('gadgets.gadgets.example.test'));
    expect(again.metadata?.resourceVersion).to.equal(first.metadata?.resourceVersion);
  });

  it('replaces an installed CRD whose spec differs from the manifest', async () => {
    await installCrd(cluster.kubeConfig, gadgetCrd('one'), { fieldManager: 'installer' });
    await installCrd(cluster.kubeConfig, gadgetCrd('two'), { fieldManager: 'installer', served: GADGET });
    const installed = await firstValueFrom(crds().get('gadgets.gadgets.example.test'));
    expect(JSON.stringify(installed.spec)).to.contain('"description":"two"');
  });

  it("rejects with the server's error when the write is refused", async () => {
    cluster.faults.failNext({
      method: 'POST',
      path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      status: 403,
    });
    const error = await installCrd(cluster.kubeConfig, gadgetCrd('one'), { fieldManager: 'installer' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(apiErrors.isForbidden(error), String(error)).to.equal(true);
  });

  it('rejects after its timeout, naming the CRD and what it was still waiting for', async () => {
    const error = await installCrd(cluster.kubeConfig, gadgetCrd('one'), {
      fieldManager: 'installer',
      served: { apiVersion: 'gadgets.example.test/v1', kind: 'Widget' },
      timeoutMs: 500,
    }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).to.match(
      /^the CRD gadgets\.gadgets\.example\.test was not served within 500 ms: still waiting for a list of Widget to answer \(.+\)$/,
    );
  });
});

describe("the examples' CRD manifests (readCrd)", () => {
  let directory: string;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'crd-'));
  });

  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it("reads every example's manifest", () => {
    for (const path of ['../website-operator/deploy/crd.yaml', '../replica-set/deploy/podset-crd.yaml']) {
      expect(readCrd(new URL(path, import.meta.url)).kind, path).to.equal('CustomResourceDefinition');
    }
  });

  it('refuses a file that is not a named CustomResourceDefinition, naming it', () => {
    const path = join(directory, 'not-a-crd.yaml');
    writeFileSync(path, 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\n');
    expect(() => readCrd(path)).to.throw(
      TypeError,
      `${path} is not a CustomResourceDefinition manifest with a metadata.name`,
    );
  });
});
