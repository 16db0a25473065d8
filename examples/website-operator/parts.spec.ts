/**
 * The website operator's pure parts: conditions (a property), the rollout judgement, the defaults ConfigMap, the
 * desired objects, the record store and the options.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import type { V1ConfigMap, V1Deployment } from '@kubernetes/client-node';
import { firstValueFrom } from 'rxjs';
import { conditions as meta } from '../../src/index.js';
import { changedConditions, rolloutConditions, setConditions, type ConditionUpdate } from './conditions.js';
import { BUILT_IN_IMAGE, parseDefaults, resolveWebsite } from './defaults.js';
import { contentHash, desiredObjects } from './desired.js';
import { resolveOptions } from './options.js';
import { fileRecords, type DnsRecord } from './records.js';
import { rolloutOf } from './rollout.js';
import { conditionEvent } from './status.js';
import { websiteId, type Website } from './website.js';

const types = ['Ready', 'Progressing', 'Degraded'] as const;
const update: fc.Arbitrary<ConditionUpdate> = fc.record({
  type: fc.constantFrom(...types),
  status: fc.constantFrom('True' as const, 'False' as const),
  reason: fc.constantFrom('A', 'B'),
  message: fc.string({ maxLength: 5 }),
});

describe('website-operator conditions', () => {
  it("moves a condition's lastTransitionTime exactly when its status flips, whatever the updates", () => {
    fc.assert(
      fc.property(fc.array(fc.array(update, { maxLength: 4 }), { maxLength: 8 }), (rounds) => {
        let conditions = setConditions(undefined, [], 1, 0);
        rounds.forEach((updates, round) => {
          const now = meta.time((round + 1) * 1000);
          const next = setConditions(conditions, updates, round + 2, (round + 1) * 1000);
          for (const condition of next) {
            const before = conditions.find((c) => c.type === condition.type);
            const flipped = before === undefined || before.status !== condition.status;
            expect(condition.lastTransitionTime).to.equal(flipped ? now : before.lastTransitionTime);
          }
          expect(next.map((c) => c.type)).to.deep.equal(types.filter((type) => next.some((c) => c.type === type)));
          conditions = next;
        });
      }),
    );
  });

  it('keeps conditions of other types as they are, after its own', () => {
    const foreign = {
      type: 'example.com/Audited',
      status: 'True' as const,
      reason: 'Done',
      message: '',
      lastTransitionTime: meta.time(0),
    };
    const next = setConditions(
      [foreign],
      [{ type: 'Ready', status: 'False', reason: 'RollingOut', message: 'm' }],
      3,
      5000,
    );
    expect(next).to.deep.equal([
      {
        type: 'Ready',
        status: 'False',
        reason: 'RollingOut',
        message: 'm',
        lastTransitionTime: '1970-01-01T00:00:05Z',
        observedGeneration: 3,
      },
      foreign,
    ]);
  });

  it("cuts messages at the API's 32768 characters and writes times in whole seconds", () => {
    const [ready] = setConditions(
      undefined,
      [{ type: 'Ready', status: 'True', reason: 'Available', message: 'x'.repeat(40_000) }],
      1,
      1999,
    );
    expect(ready!.message).to.have.length(32768);
    expect(ready!.lastTransitionTime).to.equal('1970-01-01T00:00:01Z');
  });

  it('turns condition changes into Events: Ready, NotReady, RollingOut, a Degraded reason, Recovered; nothing else', () => {
    const at = (type: string, status: 'True' | 'False', reason = 'R') => ({
      type,
      status,
      reason,
      message: `${type} ${status}`,
      lastTransitionTime: '',
    });
    const events = (before: ReturnType<typeof at>[], after: ReturnType<typeof at>[]) =>
      changedConditions(before, after)
        .map(conditionEvent)
        .map((e) => (e === undefined ? '-' : `${e.type} ${e.reason}`));
    expect(events([], [at('Ready', 'False'), at('Progressing', 'True'), at('Degraded', 'False')])).to.deep.equal([
      '-',
      'Normal RollingOut',
      '-',
    ]);
    expect(events([at('Ready', 'False')], [at('Ready', 'True')])).to.deep.equal(['Normal Ready']);
    expect(events([at('Ready', 'True')], [at('Ready', 'False')])).to.deep.equal(['Warning NotReady']);
    expect(events([at('Degraded', 'True', 'ApplyFailed')], [at('Degraded', 'True', 'NotOwned')])).to.deep.equal([
      'Warning NotOwned',
    ]);
    expect(events([at('Degraded', 'True', 'ApplyFailed')], [at('Degraded', 'False', 'AsExpected')])).to.deep.equal([
      'Normal Recovered',
    ]);
    expect(events([at('Progressing', 'True', 'A')], [at('Progressing', 'False', 'B')])).to.deep.equal(['-']);
  });
});

describe('website-operator rollouts (kubectl rollout status)', () => {
  const deployment = (generation: number, status: NonNullable<V1Deployment['status']>, replicas = 2): V1Deployment => ({
    metadata: { name: 'web', generation },
    spec: { replicas, selector: {}, template: {} },
    status,
  });

  it('judges each stage of a rollout as kubectl does', () => {
    const cases: Array<[V1Deployment, string, string]> = [
      [
        deployment(2, { observedGeneration: 1 }),
        'progressing',
        'Waiting for deployment "web" spec update to be observed...',
      ],
      [
        deployment(1, { observedGeneration: 1, updatedReplicas: 1 }),
        'progressing',
        'Waiting for deployment "web" rollout to finish: 1 out of 2 new replicas have been updated...',
      ],
      [
        deployment(1, { observedGeneration: 1, updatedReplicas: 2, replicas: 3 }),
        'progressing',
        'Waiting for deployment "web" rollout to finish: 1 old replicas are pending termination...',
      ],
      [
        deployment(1, { observedGeneration: 1, updatedReplicas: 2, replicas: 2, availableReplicas: 1 }),
        'progressing',
        'Waiting for deployment "web" rollout to finish: 1 of 2 updated replicas are available...',
      ],
      [
        deployment(1, { observedGeneration: 1, updatedReplicas: 2, replicas: 2, availableReplicas: 2 }),
        'complete',
        'deployment "web" successfully rolled out',
      ],
      [
        deployment(1, {
          observedGeneration: 1,
          conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }],
        }),
        'failed',
        'deployment "web" exceeded its progress deadline',
      ],
      [
        { metadata: { name: 'web' } },
        'progressing',
        'Waiting for deployment "web" rollout to finish: 0 out of 1 new replicas have been updated...',
      ],
    ];
    for (const [object, state, message] of cases) expect(rolloutOf(object)).to.deep.include({ state, message });
  });

  it('gives Ready, Progressing and Degraded for each state', () => {
    const of = (state: 'complete' | 'progressing' | 'failed') =>
      rolloutConditions({ state, message: 'm', replicas: 2, readyReplicas: 1 }).map(
        (c) => `${c.type}=${c.status}/${c.reason}`,
      );
    expect(of('complete')).to.deep.equal([
      'Ready=True/Available',
      'Progressing=False/RolloutComplete',
      'Degraded=False/AsExpected',
    ]);
    expect(of('progressing')).to.deep.equal([
      'Ready=False/RollingOut',
      'Progressing=True/RollingOut',
      'Degraded=False/AsExpected',
    ]);
    expect(of('failed')).to.deep.equal([
      'Ready=False/ProgressDeadlineExceeded',
      'Progressing=False/ProgressDeadlineExceeded',
      'Degraded=True/ProgressDeadlineExceeded',
    ]);
  });
});

describe('website-operator defaults', () => {
  const configMap = (data: Record<string, string>): V1ConfigMap => ({
    metadata: { name: 'website-defaults', namespace: 'web' },
    data,
  });
  const website = (spec: Partial<NonNullable<Website['spec']>>): Website => ({
    metadata: { name: 'blog', namespace: 'web', uid: 'u' },
    spec: spec as Website['spec'],
  });

  it('reads image, replicas and labels (a YAML mapping)', () => {
    expect(
      parseDefaults(configMap({ image: ' nginx:1 ', replicas: '3', labels: 'team: web\ntier: "1"\n' })),
    ).to.deep.equal({
      image: 'nginx:1',
      replicas: 3,
      labels: { team: 'web', tier: '1' },
    });
  });

  it('refuses unknown keys, bad replicas and labels the API server would refuse, naming the ConfigMap and the key', () => {
    const refusal = (data: Record<string, string>, binaryData?: Record<string, string>) => {
      try {
        parseDefaults({ ...configMap(data), ...(binaryData ? { binaryData } : {}) });
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(refusal({ replica: '2' })).to.equal(
      'ConfigMap web/website-defaults: unknown key(s) "replica"; the keys are image, replicas, labels',
    );
    expect(refusal({ replicas: '2.5' })).to.equal(
      'ConfigMap web/website-defaults: replicas must be a whole number from 0 to 1000, got "2.5"',
    );
    expect(refusal({ replicas: '' })).to.match(/replicas must be a whole number/);
    expect(refusal({ image: ' ' })).to.equal('ConfigMap web/website-defaults: image must not be empty');
    expect(refusal({}, { image: 'bmdpbng=' })).to.equal(
      'ConfigMap web/website-defaults: binaryData is not read ("image"); put the defaults in data',
    );
    expect(refusal({ labels: '- a\n- b\n' })).to.equal(
      'ConfigMap web/website-defaults: labels must be a YAML mapping of label keys to values',
    );
    expect(refusal({ labels: 'bad key: x\n' })).to.match(/^ConfigMap web\/website-defaults: labels: .*bad key/);
    expect(refusal({ labels: 'team: [\n' })).to.match(/^ConfigMap web\/website-defaults: labels is not YAML: /);
  });

  it('lets the spec win, then the defaults, then the built-in image; leaves replicas unset when neither says', () => {
    expect(
      resolveWebsite(website({ content: 'c', image: 'mine' }), configMap({ image: 'theirs', replicas: '2' })),
    ).to.deep.equal({
      resolved: { content: 'c', image: 'mine', replicas: 2, labels: {} },
    });
    expect(resolveWebsite(website({ content: 'c' }), undefined)).to.deep.equal({
      resolved: { content: 'c', image: BUILT_IN_IMAGE, replicas: undefined, labels: {} },
    });
    expect(resolveWebsite(website({ content: 'c', replicas: 0 }), configMap({ replicas: '2' }))).to.deep.nested.include(
      { 'resolved.replicas': 0 },
    );
  });

  it('says why a Website cannot be resolved instead of throwing', () => {
    expect(resolveWebsite(website({}), undefined)).to.deep.nested.include({ 'unresolvable.reason': 'InvalidSpec' });
    expect(resolveWebsite(website({ content: 'c', defaultsConfigMap: 'mine' }), undefined)).to.deep.equal({
      unresolvable: {
        reason: 'DefaultsNotFound',
        message: 'the defaults ConfigMap mine named by spec.defaultsConfigMap does not exist',
      },
    });
    expect(resolveWebsite(website({ content: 'c' }), configMap({ replicas: '-1' }))).to.deep.nested.include({
      'unresolvable.reason': 'InvalidDefaults',
    });
  });
});

describe('website-operator desired objects', () => {
  const id = websiteId({ metadata: { name: 'blog', namespace: 'web', uid: 'uid-1', generation: 4 } });

  it("are equal for equal inputs, labelled with the defaults under the operator's own labels, and controlled by the Website", () => {
    const resolved = {
      content: 'hi',
      image: 'nginx:1',
      replicas: undefined,
      labels: { team: 'web', 'app.kubernetes.io/name': 'mine' },
    };
    const objects = desiredObjects(id, resolved);
    expect(desiredObjects(id, resolved)).to.deep.equal(objects);
    expect(objects.deployment.metadata?.labels).to.deep.equal({
      team: 'web',
      'app.kubernetes.io/name': 'website',
      'app.kubernetes.io/instance': 'blog',
      'app.kubernetes.io/managed-by': 'website-operator',
    });
    expect(objects.deployment.spec).to.not.have.property('replicas');
    expect(objects.deployment.spec?.selector.matchLabels).to.deep.equal({
      'app.kubernetes.io/name': 'website',
      'app.kubernetes.io/instance': 'blog',
    });
    expect(objects.deployment.spec?.template.metadata?.annotations).to.deep.equal({
      'example.rxkube.io/content-sha256': contentHash('hi'),
    });
    for (const object of [objects.configMap, objects.deployment, objects.service]) {
      expect(object.metadata?.ownerReferences).to.deep.equal([
        {
          apiVersion: 'example.rxkube.io/v1alpha1',
          kind: 'Website',
          name: 'blog',
          uid: 'uid-1',
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }
  });
});

describe('website-operator file records', () => {
  let directory: string;
  beforeEach(() => {
    directory = join(mkdtempSync(join(tmpdir(), 'records-')), 'nested');
  });
  afterEach(() => rmSync(join(directory, '..'), { recursive: true, force: true }));

  it('writes a record once, rewrites it only when it changes, and removes it idempotently', async () => {
    const records = fileRecords(directory);
    const record: DnsRecord = {
      hostname: 'blog.web.example',
      type: 'A',
      value: '10.0.0.1',
      website: { namespace: 'web', name: 'blog', uid: 'u' },
    };
    expect(await firstValueFrom(records.put(record))).to.equal('created');
    expect(await firstValueFrom(records.put(record))).to.equal('unchanged');
    expect(await firstValueFrom(records.put({ ...record, value: '10.0.0.2' }))).to.equal('updated');
    expect(JSON.parse(readFileSync(records.where('web', 'blog'), 'utf8'))).to.deep.include({ value: '10.0.0.2' });
    expect(await firstValueFrom(records.remove('web', 'blog'))).to.equal(true);
    expect(await firstValueFrom(records.remove('web', 'blog'))).to.equal(false);
  });
});

describe('website-operator options', () => {
  it('refuses what would fail later, naming the option', () => {
    expect(() => resolveOptions({ namespace: 'Web' })).to.throw(TypeError, 'namespace must be a DNS label, got "Web"');
    expect(() => resolveOptions({ domain: 'bad_domain' })).to.throw(TypeError, 'domain must be a DNS name');
    expect(() => resolveOptions({ fieldManager: '' })).to.throw(TypeError, 'fieldManager must be 1 to 128 bytes');
    expect(() => resolveOptions({ workers: 1.5 })).to.throw(RangeError, 'workers must be an integer >= 1, got 1.5');
    expect(() => resolveOptions({ resyncPeriodMs: 0 })).to.throw(
      RangeError,
      'resyncPeriodMs must be a finite number of ms > 0, got 0',
    );
    expect(resolveOptions({ namespace: '' }).namespace).to.equal(undefined);
  });
});
