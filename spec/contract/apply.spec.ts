/** Contract: server-side apply of ConfigMaps: creation, ownership, removal, conflicts, force, updates, options. */
import { expect } from 'chai';
import {
  apply,
  contractTargets,
  entry,
  expectStatus,
  managedFields,
  MERGE,
  suffix,
  useContractSession,
} from './support/index.js';

for (const target of contractTargets()) {
  describe(`contract (${target.name}): server-side apply`, () => {
    const session = useContractSession(target, 'contract-apply');
    const collection = () => `/api/v1/namespaces/${session().namespace}/configmaps`;

    /** A fresh ConfigMap path and the configuration that applies `data` (and optional metadata) to it. */
    function configMap(): {
      path: string;
      config: (data: Record<string, string> | undefined, metadata?: Record<string, unknown>) => unknown;
    } {
      const name = `cm-${suffix()}`;
      return {
        path: `${collection()}/${name}`,
        config: (data, metadata = {}) => ({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, ...metadata },
          ...(data !== undefined ? { data } : {}),
        }),
      };
    }

    it('creates a missing object with 201 and records an Apply entry without the identity fields', async () => {
      const cm = configMap();
      const made = await apply(session(), cm.path, cm.config({ a: '1' }, { labels: { app: 'x' } }), {
        manager: 'alice',
      });
      expectStatus(made, 201);
      expect(made.json.data).to.deep.equal({ a: '1' });
      expect(managedFields(made.json)).to.deep.equal([
        entry('alice', 'Apply', 'v1', { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } }),
      ]);
    });

    it('changes nothing when the same configuration is applied again: same resourceVersion', async () => {
      const cm = configMap();
      const first = await apply(session(), cm.path, cm.config({ a: '1' }), { manager: 'alice' });
      const again = await apply(session(), cm.path, cm.config({ a: '1' }), { manager: 'alice' });
      expectStatus(again, 200);
      expect(again.json.metadata.resourceVersion).to.equal(first.json.metadata.resourceVersion);
      expect(managedFields(again.json)).to.deep.equal(managedFields(first.json));
    });

    it('removes a field its applier stopped applying when nobody else owns it', async () => {
      const cm = configMap();
      await apply(session(), cm.path, cm.config({ a: '1', b: '2' }), { manager: 'alice' });
      const later = await apply(session(), cm.path, cm.config({ a: '1' }), { manager: 'alice' });
      expect(later.json.data).to.deep.equal({ a: '1' });
      expect(managedFields(later.json)).to.deep.equal([entry('alice', 'Apply', 'v1', { 'f:data': { 'f:a': {} } })]);
    });

    it('keeps a field another applier also applies when one of them stops (shared ownership)', async () => {
      const cm = configMap();
      await apply(session(), cm.path, cm.config({ shared: 'same', a: '1' }), { manager: 'alice' });
      const both = await apply(session(), cm.path, cm.config({ shared: 'same' }), { manager: 'bob' });
      expectStatus(both, 200);
      // bob changed no content, so its entry has no time, which sorts it first.
      expect(managedFields(both.json)).to.deep.equal([
        entry('bob', 'Apply', 'v1', { 'f:data': { 'f:shared': {} } }, undefined, true),
        entry('alice', 'Apply', 'v1', { 'f:data': { 'f:a': {}, 'f:shared': {} } }),
      ]);
      const dropped = await apply(session(), cm.path, cm.config({ a: '1' }), { manager: 'alice' });
      expect(dropped.json.data).to.deep.equal({ a: '1', shared: 'same' });
      expect(managedFields(dropped.json)).to.deep.equal([
        entry('bob', 'Apply', 'v1', { 'f:data': { 'f:shared': {} } }, undefined, true),
        entry('alice', 'Apply', 'v1', { 'f:data': { 'f:a': {} } }),
      ]);
    });

    it('answers 409 with a FieldManagerConflict cause when an applier changes a field another applier owns', async () => {
      const cm = configMap();
      await apply(session(), cm.path, cm.config({ a: '1' }), { manager: 'alice' });
      const clash = await apply(session(), cm.path, cm.config({ a: '2' }), { manager: 'bob' });
      expect(clash.json).to.deep.equal({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code: 409,
        reason: 'Conflict',
        message: 'Apply failed with 1 conflict: conflict with "alice": .data.a',
        details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.a' }] },
      });
    });

    it('names the update manager and its API version in a conflict with a field written by a plain update', async () => {
      const cm = configMap();
      const made = await session().raw('POST', `${collection()}?fieldManager=creator`, {
        body: cm.config({ a: '1', b: '2' }),
      });
      expectStatus(made, 201);
      expect(managedFields(made.json)).to.deep.equal([
        entry('creator', 'Update', 'v1', { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } }),
      ]);
      const clash = await apply(session(), cm.path, cm.config({ a: 'x', b: 'y' }), { manager: 'bob' });
      expectStatus(clash, 409);
      expect(clash.json.message).to.equal(
        'Apply failed with 2 conflicts: conflicts with "creator" using v1:\n- .data.a\n- .data.b',
      );
      expect(clash.json.details.causes).to.deep.equal([
        { reason: 'FieldManagerConflict', message: 'conflict with "creator" using v1', field: '.data.a' },
        { reason: 'FieldManagerConflict', message: 'conflict with "creator" using v1', field: '.data.b' },
      ]);
    });

    it('takes the field with force=true; the previous owner loses it', async () => {
      const cm = configMap();
      await apply(session(), cm.path, cm.config({ a: '1', b: '1' }), { manager: 'alice' });
      const forced = await apply(session(), cm.path, cm.config({ a: '2' }), { manager: 'bob', force: true });
      expectStatus(forced, 200);
      expect(forced.json.data).to.deep.equal({ a: '2', b: '1' });
      expect(managedFields(forced.json)).to.deep.equal([
        entry('alice', 'Apply', 'v1', { 'f:data': { 'f:b': {} } }),
        entry('bob', 'Apply', 'v1', { 'f:data': { 'f:a': {} } }),
      ]);
    });

    it('applies the same value as another applier without conflict, and both own it', async () => {
      const cm = configMap();
      await apply(session(), cm.path, cm.config({ a: '1' }), { manager: 'alice' });
      const same = await apply(session(), cm.path, cm.config({ a: '1' }), { manager: 'bob' });
      expectStatus(same, 200);
      // Ownership changed but the object did not: the new entry carries no time (kube-apiserver stamps only
      // applies that change the object), and an entry without time sorts first.
      expect(managedFields(same.json)).to.deep.equal([
        entry('bob', 'Apply', 'v1', { 'f:data': { 'f:a': {} } }, undefined, true),
        entry('alice', 'Apply', 'v1', { 'f:data': { 'f:a': {} } }),
      ]);
    });

    it('moves ownership of an applied field to a merge patch that changes it', async () => {
      const cm = configMap();
      await apply(session(), cm.path, cm.config({ a: '1', b: '1' }), { manager: 'alice' });
      const patched = await session().raw('PATCH', `${cm.path}?fieldManager=editor`, {
        body: { data: { a: 'edited' } },
        contentType: MERGE,
      });
      expectStatus(patched, 200);
      expect(managedFields(patched.json)).to.deep.equal([
        entry('alice', 'Apply', 'v1', { 'f:data': { 'f:b': {} } }),
        entry('editor', 'Update', 'v1', { 'f:data': { 'f:a': {} } }),
      ]);
      const reapplied = await apply(session(), cm.path, cm.config({ a: '1', b: '1' }), { manager: 'alice' });
      expectStatus(reapplied, 409);
      expect(reapplied.json.details.causes).to.deep.equal([
        { reason: 'FieldManagerConflict', message: 'conflict with "editor" using v1', field: '.data.a' },
      ]);
    });

    it('merges later updates of one manager into its single Update entry', async () => {
      const cm = configMap();
      await session().raw('POST', `${collection()}?fieldManager=writer`, { body: cm.config({ a: '1' }) });
      await session().raw('PATCH', `${cm.path}?fieldManager=writer`, {
        body: { data: { b: '2' } },
        contentType: MERGE,
      });
      const read = await session().raw('GET', cm.path);
      expect(managedFields(read.json)).to.deep.equal([
        entry('writer', 'Update', 'v1', { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } }),
      ]);
    });

    it('drops a field removed by a merge patch from its applier', async () => {
      const cm = configMap();
      await apply(session(), cm.path, cm.config({ a: '1', b: '1' }), { manager: 'alice' });
      const patched = await session().raw('PATCH', `${cm.path}?fieldManager=editor`, {
        body: { data: { a: null } },
        contentType: MERGE,
      });
      expect(patched.json.data).to.deep.equal({ b: '1' });
      expect(managedFields(patched.json)).to.deep.equal([entry('alice', 'Apply', 'v1', { 'f:data': { 'f:b': {} } })]);
    });

    it('gives labels and annotations per key: two appliers own different keys of one map', async () => {
      const cm = configMap();
      await apply(session(), cm.path, cm.config(undefined, { labels: { a: '1' }, annotations: { note: 'x' } }), {
        manager: 'alice',
      });
      const second = await apply(session(), cm.path, cm.config(undefined, { labels: { b: '2' } }), { manager: 'bob' });
      expect(second.json.metadata.labels).to.deep.equal({ a: '1', b: '2' });
      expect(second.json.metadata.annotations).to.deep.equal({ note: 'x' });
      expect(managedFields(second.json)).to.deep.equal([
        entry('alice', 'Apply', 'v1', {
          'f:metadata': { 'f:annotations': { 'f:note': {} }, 'f:labels': { 'f:a': {} } },
        }),
        entry('bob', 'Apply', 'v1', { 'f:metadata': { 'f:labels': { 'f:b': {} } } }),
      ]);
      const removed = await apply(session(), cm.path, cm.config(undefined, { labels: { a: '1' } }), {
        manager: 'alice',
      });
      expect(removed.json.metadata).to.not.have.property('annotations');
    });

    it('parses a YAML body', async () => {
      const cm = configMap();
      const name = cm.path.split('/').pop()!;
      const answer = await session().raw('PATCH', `${cm.path}?fieldManager=yaml`, {
        body: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n  b: two\n`,
        contentType: 'application/apply-patch+yaml',
      });
      expectStatus(answer, 201);
      expect(answer.json.data).to.deep.equal({ a: '1', b: 'two' });
    });

    it('stores nothing on a dry-run apply', async () => {
      const cm = configMap();
      const dry = await apply(session(), cm.path, cm.config({ a: '1' }), { manager: 'alice', dryRun: true });
      expectStatus(dry, 201);
      expect(managedFields(dry.json)).to.have.length(1);
      expectStatus(await session().raw('GET', cm.path), 404);
    });

    it('requires fieldManager for apply with 422 Invalid on PatchOptions', async () => {
      const cm = configMap();
      const answer = await apply(session(), cm.path, cm.config({ a: '1' }));
      expect(answer.json).to.deep.equal({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        code: 422,
        reason: 'Invalid',
        message: 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
        details: {
          group: 'meta.k8s.io',
          kind: 'PatchOptions',
          causes: [
            {
              reason: 'FieldValueRequired',
              message: 'Required value: is required for apply patch',
              field: 'fieldManager',
            },
          ],
        },
      });
    });

    it('refuses force on a patch that is not an apply', async () => {
      const cm = configMap();
      await apply(session(), cm.path, cm.config({ a: '1' }), { manager: 'alice' });
      const answer = await session().raw('PATCH', `${cm.path}?force=true`, {
        body: { data: { a: '2' } },
        contentType: MERGE,
      });
      expectStatus(answer, 422);
      expect(answer.json.message).to.equal(
        'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
      );
    });

    it('refuses a field manager longer than 128 bytes', async () => {
      const cm = configMap();
      const answer = await apply(session(), cm.path, cm.config({ a: '1' }), { manager: 'm'.repeat(129) });
      expectStatus(answer, 422);
      expect(answer.json.details.causes).to.deep.equal([
        { reason: 'FieldValueTooLong', message: 'Too long: may not be more than 128 bytes', field: 'fieldManager' },
      ]);
    });

    it('refuses a configuration of another kind with 400 invalid object type', async () => {
      const cm = configMap();
      const answer = await apply(
        session(),
        cm.path,
        { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } },
        { manager: 'alice' },
      );
      expect(answer.json).to.deep.include({
        code: 400,
        reason: 'BadRequest',
        message: 'invalid object type: /v1, Kind=Secret',
      });
    });

    it('refuses managedFields in the applied configuration', async () => {
      const cm = configMap();
      const answer = await apply(
        session(),
        cm.path,
        cm.config(
          { a: '1' },
          { managedFields: [{ manager: 'x', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: {} }] },
        ),
        { manager: 'alice' },
      );
      expect(answer.json).to.deep.include({
        code: 400,
        reason: 'BadRequest',
        message: 'metadata.managedFields must be nil',
      });
    });

    it('refuses a configuration with a field the schema does not declare, naming it', async () => {
      const cm = configMap();
      const answer = await apply(
        session(),
        cm.path,
        { ...(cm.config({ a: '1' }) as object), spec: { x: 1 } },
        { manager: 'alice' },
      );
      expectStatus(answer, 500);
      expect(answer.json.message).to.match(
        /^failed to create typed patch object \(.*\): \.spec: field not declared in schema$/,
      );
    });

    it('names the manager of a plain write after the User-Agent up to its first slash', async () => {
      const cm = configMap();
      const made = await session().raw('POST', collection(), {
        body: cm.config({ a: '1' }),
        userAgent: 'my-controller/v1.2.3 (linux/amd64) kubernetes/abcdef',
      });
      expect(managedFields(made.json).map((e) => e.manager)).to.deep.equal(['my-controller']);
    });

    it('resets managedFields when an update sends an empty list, and stops tracking', async () => {
      const cm = configMap();
      const made = await apply(session(), cm.path, cm.config({ a: '1' }), { manager: 'alice' });
      const reset = await session().raw('PUT', cm.path, {
        body: { ...made.json, metadata: { ...made.json.metadata, managedFields: [] } },
      });
      expectStatus(reset, 200);
      expect(reset.json.metadata).to.not.have.property('managedFields');
      const after = await apply(session(), cm.path, cm.config({ a: '1', b: '2' }), { manager: 'alice' });
      expect(managedFields(after.json)).to.deep.equal([
        entry('alice', 'Apply', 'v1', { 'f:data': { 'f:a': {}, 'f:b': {} } }),
        entry('before-first-apply', 'Update', 'v1', { 'f:data': { '.': {}, 'f:a': {} } }),
      ]);
    });
  });
}
