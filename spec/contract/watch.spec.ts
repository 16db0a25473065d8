/** Contract: watch resumption, expiry (410 inside a 200 stream), bookmarks, streaming lists, selector transitions. */
import { Watch } from '@kubernetes/client-node';
import { expect } from 'chai';
import {
  contractTargets,
  isNamed,
  overHttpOnly,
  suffix,
  useConfigMapWatches,
  useContractSession,
} from './support/index.js';

for (const target of contractTargets()) {
  const rvOf = (object: any): bigint => BigInt(object.metadata.resourceVersion);

  describe(`contract (${target.name}): watch`, () => {
    const session = useContractSession(target, 'contract-watch');
    const { path: configMaps, watch, currentRv, create: createWith } = useConfigMapWatches(session);
    const create = (name: string, labels: Record<string, string> = {}): Promise<any> => createWith(name, { labels });

    async function replace(object: any, change: (o: any) => any): Promise<any> {
      const answer = await session().raw('PUT', `${configMaps()}/${object.metadata.name}`, { body: change(object) });
      expect(answer.status, answer.text).to.equal(200);
      return answer.json;
    }

    it('replays every event after the resourceVersion it resumes from, in order', async () => {
      const a = await create(`a-${suffix()}`);
      const a2 = await replace(a, (o) => ({ ...o, data: { v: '1' } }));
      const b = await create(`b-${suffix()}`);
      const stream = await watch(`resourceVersion=${a.metadata.resourceVersion}`);
      await stream.next(isNamed(b.metadata.name));
      const seen = stream.events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion]);
      expect(seen).to.deep.equal([
        ['MODIFIED', a.metadata.name, a2.metadata.resourceVersion],
        ['ADDED', b.metadata.name, b.metadata.resourceVersion],
      ]);
    });

    const clientNodeWatch =
      'resumes through client-node Watch, delivering only events after the resourceVersion to its callback';
    overHttpOnly(
      target,
      clientNodeWatch,
      "client-node's Watch opens its own HTTP connection from a KubeConfig, and the virtual cluster has no socket",
      () => {
        it(clientNodeWatch, async () => {
          const a = await create(`cw-a-${suffix()}`);
          const b = await create(`cw-b-${suffix()}`);
          const got: Array<[string, string]> = [];
          let controller: AbortController | undefined;
          try {
            await new Promise<void>((resolve, reject) => {
              new Watch(session().kubeConfig!)
                .watch(
                  configMaps(),
                  { resourceVersion: a.metadata.resourceVersion },
                  (type, object) => {
                    got.push([type, object.metadata.name]);
                    if (object.metadata.name === b.metadata.name) resolve();
                  },
                  (error) => reject(error ?? new Error('the watch ended before the expected event')),
                )
                .then((c) => (controller = c), reject);
            });
          } finally {
            controller?.abort();
          }
          expect(got).to.deep.equal([['ADDED', b.metadata.name]]);
        });
      },
    );

    it('sends live events after the replay and ends cleanly at timeoutSeconds', async () => {
      const stream = await watch(`resourceVersion=${await currentRv()}&timeoutSeconds=4`);
      const made = await create(`live-${suffix()}`);
      const event = await stream.next(isNamed(made.metadata.name));
      expect(event.type).to.equal('ADDED');
      expect(event.object).to.deep.include({ kind: 'ConfigMap', apiVersion: 'v1' });
      await stream.closed;
    });

    if (target.canExpireHistory) {
      it('answers a watch from an expired resourceVersion with 200 and one 410 Expired ERROR event', async function () {
        this.timeout(120_000);
        const old = await create(`old-${suffix()}`);
        await replace(old, (o) => ({ ...o, data: { v: '1' } }));
        await session().expireHistory();
        const stream = await watch(`resourceVersion=${old.metadata.resourceVersion}`);
        const error = await stream.next(() => true);
        expect(error.type).to.equal('ERROR');
        expect(error.object).to.deep.include({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: 410,
          reason: 'Expired',
        });
        expect(error.object.message).to.match(
          new RegExp(`^too old resource version: ${old.metadata.resourceVersion} \\(\\d+\\)$`),
        );
        await stream.closed;
        expect(stream.events).to.have.length(1);
      });
    }

    // Unlike a list (504 after waiting up to 3 s), a watch from the future is accepted and simply has nothing to say
    // until the server reaches that resourceVersion.
    it('accepts a watch from a resourceVersion ahead of the server with 200 and sends nothing', async () => {
      const ahead = BigInt(await currentRv()) + 1_000_000n;
      const stream = await watch(`resourceVersion=${ahead}&timeoutSeconds=2`);
      await create(`future-${suffix()}`);
      await stream.closed;
      expect(stream.events).to.deep.equal([]);
    });

    it('answers resourceVersionMatch on a watch without sendInitialEvents with 422 Invalid', async () => {
      const answer = await session().raw(
        'GET',
        `${configMaps()}?watch=1&resourceVersion=1&resourceVersionMatch=NotOlderThan`,
      );
      expect(answer.status).to.equal(422);
      expect(answer.json.details.causes).to.deep.equal([
        {
          reason: 'FieldValueForbidden',
          message: 'Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
          field: 'resourceVersionMatch',
        },
      ]);
    });

    it('sends a BOOKMARK carrying only kind, apiVersion and a newer resourceVersion before a timeoutSeconds end', async function () {
      this.timeout(30_000);
      const start = await currentRv();
      // kube-apiserver sends a bookmark about 2 s before the watch deadline, but only once its cache has moved past
      // the watch's start, hence the write (in another namespace, so this watch gets no event for it).
      const stream = await watch(`resourceVersion=${start}&allowWatchBookmarks=true&timeoutSeconds=5`);
      const other = await session().raw('POST', '/api/v1/namespaces/default/configmaps', {
        body: { metadata: { generateName: 'contract-bookmark-' } },
      });
      expect(other.status, other.text).to.equal(201);
      // Wait for a bookmark that has seen the write: an earlier periodic one (in memory) may predate it.
      const bookmark = await stream.next((e) => e.type === 'BOOKMARK' && rvOf(e.object) >= rvOf(other.json));
      expect(bookmark.object).to.deep.equal({
        kind: 'ConfigMap',
        apiVersion: 'v1',
        metadata: { resourceVersion: bookmark.object.metadata.resourceVersion },
      });
      await stream.closed;
      expect(stream.events.every((e) => e.type === 'BOOKMARK')).to.equal(true);
      await session().raw('DELETE', `/api/v1/namespaces/default/configmaps/${other.json.metadata.name}`);
    });

    it('streams the initial state then the initial-events-end bookmark with sendInitialEvents', async () => {
      const set = suffix();
      const first = await create(`s1-${set}`, { set });
      const second = await create(`s2-${set}`, { set });
      const stream = await watch(
        `sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=set%3D${set}`,
      );
      const end = await stream.next(
        (e) => e.type === 'BOOKMARK' && e.object.metadata.annotations?.['k8s.io/initial-events-end'] === 'true',
      );
      const initial = stream.events.slice(0, stream.events.indexOf(end));
      expect(initial.map((e) => e.type)).to.deep.equal(['ADDED', 'ADDED']);
      expect(initial.map((e) => e.object.metadata.name).sort()).to.deep.equal(
        [first.metadata.name, second.metadata.name].sort(),
      );
      expect(end.object).to.deep.equal({
        kind: 'ConfigMap',
        apiVersion: 'v1',
        metadata: {
          resourceVersion: end.object.metadata.resourceVersion,
          annotations: { 'k8s.io/initial-events-end': 'true' },
        },
      });
      expect(rvOf(end.object) >= rvOf(second)).to.equal(true);

      const live = await create(`s3-${set}`, { set });
      expect((await stream.next(isNamed(live.metadata.name))).type).to.equal('ADDED');
    });

    it('streams the initial state without an end bookmark when sendInitialEvents comes without allowWatchBookmarks', async () => {
      const set = suffix();
      const made = await create(`n1-${set}`, { set });
      const stream = await watch(
        `sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=2&labelSelector=set%3D${set}`,
      );
      await stream.closed;
      expect(stream.events.map((e) => [e.type, e.object.metadata.name])).to.deep.equal([['ADDED', made.metadata.name]]);
    });

    it('answers sendInitialEvents without resourceVersionMatch=NotOlderThan with 422 Invalid on resourceVersionMatch', async () => {
      const answer = await session().raw(
        'GET',
        `${configMaps()}?watch=1&sendInitialEvents=true&allowWatchBookmarks=true`,
      );
      expect(answer.json).to.deep.equal({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code: 422,
        reason: 'Invalid',
        message:
          'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
        details: {
          group: 'meta.k8s.io',
          kind: 'ListOptions',
          causes: [
            {
              reason: 'FieldValueForbidden',
              message: 'Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
              field: 'resourceVersionMatch',
            },
          ],
        },
      });
    });

    it('answers sendInitialEvents on a plain list with 422 Invalid', async () => {
      const answer = await session().raw(
        'GET',
        `${configMaps()}?sendInitialEvents=true&resourceVersionMatch=NotOlderThan`,
      );
      expect(answer.status).to.equal(422);
      expect(answer.json.details.causes).to.deep.equal([
        {
          reason: 'FieldValueForbidden',
          message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
          field: 'resourceVersionMatch',
        },
        {
          reason: 'FieldValueForbidden',
          message: 'Forbidden: sendInitialEvents is forbidden for list',
          field: 'sendInitialEvents',
        },
      ]);
    });

    it('sends DELETED when a label change moves an object out of the selector and ADDED when it moves back', async () => {
      const team = suffix();
      const stream = await watch(`resourceVersion=${await currentRv()}&labelSelector=team%3D${team}`);
      const made = await create(`t-${suffix()}`, { team });
      expect((await stream.next(isNamed(made.metadata.name))).type).to.equal('ADDED');

      const left = await replace(made, (o) => ({
        ...o,
        metadata: { ...o.metadata, labels: { team: 'other' } },
        data: { v: 'left' },
      }));
      const deleted = await stream.next((e) => e.type === 'DELETED');
      expect(deleted.object.metadata.name).to.equal(made.metadata.name);
      expect(deleted.object.metadata.resourceVersion).to.equal(left.metadata.resourceVersion);
      // The watch cache sends the object as it last matched: old labels and data, the new resourceVersion.
      expect(deleted.object.metadata.labels).to.deep.equal({ team });
      expect(deleted.object.data).to.deep.equal({ v: '0' });

      const back = await replace(left, (o) => ({ ...o, metadata: { ...o.metadata, labels: { team } } }));
      const added = await stream.next(
        (e) => e.type === 'ADDED' && e.object.metadata.resourceVersion === back.metadata.resourceVersion,
      );
      expect(added.object.metadata.labels).to.deep.equal({ team });
      expect(stream.events.map((e) => e.type)).to.deep.equal(['ADDED', 'DELETED', 'ADDED']);
    });
  });
}
