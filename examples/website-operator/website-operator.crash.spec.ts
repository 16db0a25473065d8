/**
 * The website operator's planted bug of the intermediate-states class (Sieve, OSDI '22): its finalizer removed
 * before the cleanup is durable. Its marble specs pass with the bug (`website-operator.marbles.spec.ts` runs them
 * against it); a seeded simulation that crashes the operator mid-reconcile catches it with the crash-safety oracle,
 * shrinks it to a few steps and replays it exactly.
 */
import { expect } from 'chai';
import type { V1ConfigMap } from '@kubernetes/client-node';
import * as fc from 'fast-check';
import type { ControllerDefinition } from '../../src/index.js';
import {
  simulate,
  type SimulateOptions,
  type SimulationWorld,
  type Workload,
  type WorkloadStep,
} from '../../src/testing/index.js';
import { websiteController } from './controller.js';
import { websiteCrd } from './crd.js';
import { batchedRemovals, clusterRecords } from './spec-helpers.js';
import { CONFIG_MAP, WEBSITE, type Website } from './website.js';

/** The namespace the records live in: the operator watches `default` only. */
const DNS = 'dns';

/** The operator, its records kept in the cluster; with `bug`, their removals batched (acknowledged once queued). */
const operator = (bug: boolean): ControllerDefinition => ({
  name: 'websites',
  start: (context) => {
    const records = clusterRecords(context.client<V1ConfigMap>(CONFIG_MAP).inNamespace(DNS));
    return websiteController({
      namespace: 'default',
      records: bug ? batchedRemovals(records, context.scheduler) : records,
      print: () => undefined,
    }).start(context);
  },
});

const site = (name: string): Website => ({
  apiVersion: WEBSITE.apiVersion,
  kind: WEBSITE.kind,
  metadata: { name, namespace: 'default' },
  spec: { content: `<h1>${name}</h1>` },
});
/** Websites made and deleted. */
const websites: Workload<Website> = {
  resource: WEBSITE,
  maxSteps: 4,
  step: fc.oneof(
    fc.constantFrom('blog', 'shop').map((name): WorkloadStep<Website> => ({ op: 'create', object: site(name) })),
    fc
      .constantFrom('blog', 'shop')
      .map((name): WorkloadStep<Website> => ({ op: 'delete', name, namespace: 'default' })),
  ),
};

/**
 * What crash safety compares: the records that outlive their Website, and the Websites without a record; both
 * empty without crashes. Not the Websites themselves: a crash that delays a deletion makes a user's create of the
 * same name meet the old Website and fail, which is no fault of the operator.
 */
const recordsOfWebsites = ({ server }: SimulationWorld) => {
  const websites = server(WEBSITE, 'default').map((website) => `default.${website.metadata?.name}`);
  const records = server(CONFIG_MAP, DNS).map((record) => record.metadata?.name ?? '');
  return {
    outliving: records.filter((record) => !websites.includes(record)),
    missing: websites.filter((website) => !records.includes(website)),
  };
};

const options: SimulateOptions = {
  seed: 1,
  runs: 100,
  duration: 20_000,
  settle: 20_000,
  workload: websites,
  objects: [websiteCrd()],
  // A Website deleted and made again finds its old objects gone, not controlled by the old one.
  cluster: { ownerGC: true, namespaces: [DNS] },
  faults: { kinds: ['crash'], min: 1, max: 2 },
  invariants: { crashSafe: recordsOfWebsites },
};

describe('the website-operator example: intermediate states (planted bug)', function () {
  this.timeout(180_000);

  it('ends where a run without crashes ends, whatever write it crashes at', () => {
    expect(simulate(operator(false), { ...options, runs: 60 }).failure?.message).to.equal(undefined);
  });

  it('passes the planted bug when nothing crashes, as its marble specs do', () => {
    expect(simulate(operator(true), { ...options, runs: 20, faults: false }).failure?.message).to.equal(undefined);
  });

  it('catches a finalizer removed before its cleanup is durable, shrunk to a few steps, and replays it exactly', () => {
    const report = simulate(operator(true), options);
    const failure = report.failure!;
    expect(failure.violations).to.have.length(1);
    expect(failure.violations[0]).to.equal(
      'crash safety does not hold: with its crashes the run ends in {"outliving":["default.blog"],"missing":[]}, without them in {"outliving":[],"missing":[]}',
    );
    // A Website, its deletion, and a crash at the write that takes the finalizer off.
    expect(failure.steps.length).to.be.at.most(3);
    expect(failure.trace.some((line) => / controller crashed at PATCH \S+\/websites\/blog /.test(line))).to.equal(true);
    const again = simulate(operator(true), { ...options, seed: failure.seed, path: failure.path });
    expect(again.failure!.trace.join('\n')).to.equal(failure.trace.join('\n'));
  });
});
