/**
 * Contract: the client's `mutate` and status writes on both servers. A stale recipe never overwrites a newer write,
 * its retry succeeds, and status writes leave `metadata.generation` alone.
 */
import { expect } from 'chai';
import { firstValueFrom, switchMap } from 'rxjs';
import type { V1ConfigMap, V1Deployment } from '@kubernetes/client-node';
import { resourceClient } from '../../src/client/index.js';
import { type ApiError, isConflict } from '../../src/transport/index.js';
import type { Transport } from '../../src/transport/index.js';
import { recordingTransport } from '../client/support/recording-transport.js';
import { contractTargets, suffix, useContractSession } from './support/index.js';

for (const target of contractTargets()) {
  const deployment = (name: string): V1Deployment => ({
    metadata: { name, labels: { app: name } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
      },
    },
  });

  describe(`contract (${target.name}): client mutate and status writes`, () => {
    const session = useContractSession(target, 'contract-mutate');
    const clients = () => {
      const recorded = recordingTransport(session().connection);
      const options = { namespace: session().namespace, fieldManager: 'rxkube-contract' };
      return {
        requests: recorded.requests,
        configMaps: resourceClient<V1ConfigMap>(recorded.transport, { apiVersion: 'v1', kind: 'ConfigMap' }, options),
        deployments: resourceClient<V1Deployment>(
          recorded.transport,
          { apiVersion: 'apps/v1', kind: 'Deployment' },
          options,
        ),
      };
    };

    it('refuses a stale mutate with the 422 of its failed resourceVersion test, then re-reads and succeeds', async () => {
      const { configMaps, requests } = clients();
      const stale = await firstValueFrom(
        configMaps.create({ metadata: { name: `stale-${suffix()}` }, data: { a: '1' } }),
      );
      const newer = await firstValueFrom(configMaps.patch(stale, { type: 'merge', body: { data: { b: '2' } } }));

      const result = await firstValueFrom(
        configMaps.mutate(stale, (draft) => {
          draft.data = { ...draft.data, c: '3' };
        }),
      );
      expect(result.data).to.deep.equal({ a: '1', b: '2', c: '3' });
      expect(requests.slice(2).map((r) => `${r.method} ${r.outcome}`)).to.deep.equal([
        'PATCH error 422',
        'GET 200',
        'PATCH 200',
      ]);
      // kube-apiserver answers a failed JSON Patch test with a detail-less 422, not 409: mutate re-reads to tell.
      const refusal = requests[2]!.error as ApiError;
      expect([refusal.reason, refusal.message, refusal.causes]).to.deep.equal([
        'Invalid',
        'the server rejected our request due to an error in our request',
        [],
      ]);
      expect((requests[2]!.body as unknown[])[0]).to.deep.equal({
        op: 'test',
        path: '/metadata/resourceVersion',
        value: stale.metadata!.resourceVersion,
      });
      expect((requests[4]!.body as unknown[])[0]).to.deep.equal({
        op: 'test',
        path: '/metadata/resourceVersion',
        value: newer.metadata!.resourceVersion,
      });
    });

    it('gives up with a 409 Conflict after 5 attempts when another writer gets in before every write', async () => {
      const recorded = recordingTransport(session().connection);
      // Before each guarded write goes out, another writer's merge patch lands on the same object.
      let interferences = 0;
      const busy: Transport = {
        ...recorded.transport,
        request: (request) =>
          request.contentType !== 'application/json-patch+json'
            ? recorded.transport.request(request)
            : recorded.transport
                .request({
                  method: 'PATCH',
                  path: request.path,
                  contentType: 'application/merge-patch+json',
                  body: { data: { other: String(++interferences) } },
                })
                .pipe(switchMap(() => recorded.transport.request(request))),
      };
      const configMaps = resourceClient<V1ConfigMap>(
        busy,
        { apiVersion: 'v1', kind: 'ConfigMap' },
        { namespace: session().namespace },
      );
      const made = await firstValueFrom(
        configMaps.create({ metadata: { name: `busy-${suffix()}` }, data: { n: '0' } }),
      );
      let runs = 0;
      const failure = await firstValueFrom(
        configMaps.mutate(made, (draft) => {
          runs++;
          draft.data = { ...draft.data, mine: 'never' };
        }),
      ).catch((e: unknown) => e);
      expect(isConflict(failure), String(failure)).to.equal(true);
      expect(runs).to.equal(5);
      const guarded = recorded.requests.filter((r) => r.contentType === 'application/json-patch+json');
      expect(guarded.map((r) => r.outcome)).to.deep.equal(Array(5).fill('error 422'));
      expect((failure as ApiError).message).to.equal(
        `Operation cannot be fulfilled on configmaps "${made.metadata!.name}": the object has been modified; please apply your changes to the latest version and try again`,
      );
      expect((await firstValueFrom(configMaps.get(made))).data).to.deep.equal({ n: '0', other: '5' });
    });

    it('writes status through the status subresource without moving generation, and spec changes move it', async () => {
      const { deployments, requests } = clients();
      const made = await firstValueFrom(deployments.create(deployment(`gen-${suffix()}`)));
      expect(made.metadata?.generation).to.equal(1);

      const patched = await firstValueFrom(
        deployments.patchStatus(made, { type: 'merge', body: { status: { observedGeneration: 1 } } }),
      );
      const replaced = await firstValueFrom(
        deployments.replaceStatus({ ...patched, status: { ...patched.status, replicas: 0 } }),
      );
      const applied = await firstValueFrom(
        deployments.applyStatus(
          { metadata: { name: made.metadata!.name }, status: { readyReplicas: 0, observedGeneration: 1 } },
          { force: true },
        ),
      );
      const mutated = await firstValueFrom(
        deployments.mutate(applied, (draft) => {
          draft.status!.conditions = [
            { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable', message: 'none yet' },
          ];
        }),
      );
      for (const written of [patched, replaced, applied, mutated]) expect(written.metadata?.generation).to.equal(1);
      expect(mutated.status?.conditions?.[0]?.type).to.equal('Available');
      expect(requests.at(-1)!.path).to.match(/\/status$/);

      const rescaled = await firstValueFrom(
        deployments.mutate(mutated, (draft) => {
          draft.spec!.replicas = 2;
        }),
      );
      expect(rescaled.metadata?.generation).to.equal(2);
      expect(rescaled.status?.conditions?.[0]?.type).to.equal('Available');
    });

    it('sends a recipe that changes spec and status as two writes, the resource first', async () => {
      const { deployments, requests } = clients();
      const made = await firstValueFrom(deployments.create(deployment(`both-${suffix()}`)));
      const sent = requests.length;
      const both = await firstValueFrom(
        deployments.mutate(made, (draft) => {
          draft.metadata!.labels = { ...draft.metadata!.labels, tier: 'web' };
          draft.status = { observedGeneration: 1, replicas: 0 };
        }),
      );
      expect(
        requests.slice(sent).map((r) => `${r.method} ${r.path.replace(/^.*\/deployments\//, '')} ${r.outcome}`),
      ).to.deep.equal([`PATCH ${made.metadata!.name} 200`, `PATCH ${made.metadata!.name}/status 200`]);
      expect(both.metadata?.labels?.tier).to.equal('web');
      expect(both.status?.observedGeneration).to.equal(1);
    });

    it('ignores status in a replace of the main resource of a kind with a status subresource', async () => {
      const { deployments } = clients();
      const made = await firstValueFrom(deployments.create(deployment(`ignored-${suffix()}`)));
      const replaced = await firstValueFrom(deployments.replace({ ...made, status: { replicas: 7 } }));
      expect(replaced.status?.replicas).to.equal(undefined);
    });

    it('keeps what a trimmed copy lacked: a spread map key by key, and a map created again after its guard fails', async () => {
      const { configMaps, requests } = clients();
      const made = await firstValueFrom(
        configMaps.create({
          metadata: { name: `trim-${suffix()}`, labels: { team: 'a' }, annotations: { big: 'x', keep: '1' } },
        }),
      );
      // What an informer transform that drops the labels and one annotation leaves of it.
      const { labels: _labels, ...metadata } = made.metadata!;
      const trimmed: V1ConfigMap = { ...made, metadata: { ...metadata, annotations: { keep: '1' } } };
      const sent = requests.length;
      const result = await firstValueFrom(
        configMaps.mutate(trimmed, (draft) => {
          draft.metadata!.annotations = { ...draft.metadata!.annotations, seen: 'yes' };
          draft.metadata!.labels = { ...draft.metadata!.labels, seen: 'yes' };
        }),
      );
      expect(result.metadata?.annotations).to.deep.equal({ big: 'x', keep: '1', seen: 'yes' });
      expect(result.metadata?.labels).to.deep.equal({ team: 'a', seen: 'yes' });
      // The labels' guard (`test` of an absent member) fails on both servers with the same 422; the recipe then
      // runs on the object a GET returns.
      expect(requests.slice(sent).map((r) => `${r.method} ${r.outcome}`)).to.deep.equal([
        'PATCH error 422',
        'GET 200',
        'PATCH 200',
      ]);
      expect(requests[sent]!.body).to.deep.include({ op: 'test', path: '/metadata/labels', value: null });
    });

    it('moves the list items a recipe kept, whole, and patches a changed one by its name, keeping what a trimmed copy lacked', async () => {
      const { configMaps, requests } = clients();
      const owners = await Promise.all(
        ['a', 'b', 'c'].map((n) => firstValueFrom(configMaps.create({ metadata: { name: `owner-${n}-${suffix()}` } }))),
      );
      const references = owners.map((o) => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        name: o.metadata!.name!,
        uid: o.metadata!.uid!,
        blockOwnerDeletion: true,
      }));
      const made = await firstValueFrom(
        configMaps.create({ metadata: { name: `moves-${suffix()}`, ownerReferences: references } }),
      );
      // A copy whose transform dropped blockOwnerDeletion from every reference.
      const trimmed: V1ConfigMap = {
        ...made,
        metadata: { ...made.metadata, ownerReferences: references.map(({ blockOwnerDeletion: _b, ...rest }) => rest) },
      };
      const sent = requests.length;
      const result = await firstValueFrom(
        configMaps.mutate(trimmed, (draft) => {
          const refs = draft.metadata!.ownerReferences!;
          refs.reverse();
          draft.metadata!.ownerReferences = refs.map((ref) =>
            ref.name === references[1]!.name ? { ...ref, controller: true } : ref,
          );
        }),
      );
      expect(result.metadata?.ownerReferences).to.deep.equal([
        references[2],
        { ...references[1], controller: true },
        references[0],
      ]);
      const operations = (requests[sent]!.body as Array<{ op: string }>).map((op) => op.op);
      expect(operations).to.deep.equal(['test', 'move', 'move', 'add']);
    });

    it('sends nothing for a recipe that changes nothing', async () => {
      const { configMaps, requests } = clients();
      const made = await firstValueFrom(
        configMaps.create({ metadata: { name: `same-${suffix()}` }, data: { a: '1' } }),
      );
      const sent = requests.length;
      const result = await firstValueFrom(
        configMaps.mutate(made, (draft) => {
          draft.data = { a: '1' };
        }),
      );
      expect(result).to.equal(made);
      expect(requests.length).to.equal(sent);
    });

    it('escapes the / of label and annotation keys in the patch it sends', async () => {
      const { configMaps } = clients();
      const made = await firstValueFrom(
        configMaps.create({ metadata: { name: `esc-${suffix()}`, labels: { 'example.com/old': 'x' } } }),
      );
      const result = await firstValueFrom(
        configMaps.mutate(made, (draft) => {
          delete draft.metadata!.labels!['example.com/old'];
          draft.metadata!.labels!['app.kubernetes.io/name'] = 'web';
          draft.metadata!.annotations = { 'example.com/note': 'a~b/c' };
        }),
      );
      expect(result.metadata?.labels).to.deep.equal({ 'app.kubernetes.io/name': 'web' });
      expect(result.metadata?.annotations).to.deep.equal({ 'example.com/note': 'a~b/c' });
    });
  });
}
