/**
 * Contract: objects written in protobuf, as kubectl and every Go client write built-in kinds. Go's protobuf writes
 * every non-pointer field, zero or not, and a pointer field only when it is set: an explicit zero in a pointer field
 * (`replicas: 0`, `leaseTransitions: 0`) is meant and kept, the zeros of other fields are not stored.
 */
import { expect } from 'chai';
import { encodeProtobuf } from '../../src/testing/apiserver/protobuf/index.js';
import { contractTargets, suffix, useContractSession } from './support/index.js';

for (const target of contractTargets()) {
  const PROTOBUF = 'application/vnd.kubernetes.protobuf';

  describe(`contract (${target.name}): protobuf bodies`, () => {
    const session = useContractSession(target, 'contract-pb');
    /** Sends `object` in protobuf and reads the answer as JSON. */
    const send = (method: string, path: string, object: Record<string, unknown>) =>
      session().raw(method, path, {
        body: encodeProtobuf(object, object['apiVersion'] as string, object['kind'] as string)!,
        contentType: PROTOBUF,
      });

    it('keeps replicas: 0 of a Deployment created in protobuf, and stores none of the zeros Go writes for other fields', async () => {
      const name = `zero-${suffix()}`;
      const labels = { app: name };
      // What `kubectl create deployment zero --image=nginx --replicas=0` sends: Go writes the non-pointer fields too.
      const made = await send('POST', `/apis/apps/v1/namespaces/${session().namespace}/deployments`, {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name, generateName: '', labels },
        spec: {
          replicas: 0,
          minReadySeconds: 0,
          paused: false,
          selector: { matchLabels: labels },
          strategy: {},
          template: {
            metadata: { labels },
            spec: { containers: [{ name: 'nginx', image: 'nginx', stdin: false, tty: false }] },
          },
        },
      });
      expect(made.status, made.text).to.equal(201);
      const read = (await session().raw('GET', `/apis/apps/v1/namespaces/${session().namespace}/deployments/${name}`))
        .json;
      expect(read.spec.replicas).to.equal(0);
      expect(read.spec).to.not.have.any.keys('minReadySeconds', 'paused');
      expect(read.metadata).to.not.have.property('generateName');
      expect(read.spec.template.spec.containers[0]).to.not.have.any.keys('stdin', 'tty');
    });

    it("keeps leaseTransitions: 0 and an emptied holderIdentity of a Lease written in protobuf, as client-go's leader election writes them", async () => {
      const path = `/apis/coordination.k8s.io/v1/namespaces/${session().namespace}/leases`;
      const name = `lease-${suffix()}`;
      const spec = {
        holderIdentity: 'a',
        leaseDurationSeconds: 15,
        acquireTime: '2026-01-02T03:04:05.000000Z',
        renewTime: '2026-01-02T03:04:05.000000Z',
        leaseTransitions: 0,
      };
      const made = await send('POST', path, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name },
        spec,
      });
      expect(made.status, made.text).to.equal(201);
      expect(made.json.spec).to.deep.equal(spec);
      // The release: holderIdentity emptied, the transitions kept.
      const released = await send('PUT', `${path}/${name}`, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, resourceVersion: made.json.metadata.resourceVersion },
        spec: { ...spec, holderIdentity: '', leaseDurationSeconds: 1 },
      });
      expect(released.status, released.text).to.equal(200);
      expect((await session().raw('GET', `${path}/${name}`)).json.spec).to.deep.equal({
        ...spec,
        holderIdentity: '',
        leaseDurationSeconds: 1,
      });
    });

    it("reads the structs Go inlines in JSON from a protobuf Pod: a secretKeyRef's name, a probe's handler, a volume's source", async () => {
      const name = `inline-${suffix()}`;
      const container = {
        name: 'c',
        image: 'nginx',
        env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'creds', key: 'token' } } }],
        readinessProbe: { httpGet: { path: '/ready', port: 8080 } },
        volumeMounts: [{ name: 'config', mountPath: '/config' }],
      };
      const made = await send('POST', `/api/v1/namespaces/${session().namespace}/pods`, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name },
        spec: { containers: [container], volumes: [{ name: 'config', configMap: { name: 'settings' } }] },
      });
      expect(made.status, made.text).to.equal(201);
      const read = (await session().raw('GET', `/api/v1/namespaces/${session().namespace}/pods/${name}`)).json;
      expect(read.spec.containers[0].env).to.deep.equal(container.env);
      expect(read.spec.containers[0].readinessProbe.httpGet).to.deep.include({ path: '/ready', port: 8080 });
      expect(read.spec.volumes[0].configMap).to.deep.include({ name: 'settings' });
    });
  });
}
