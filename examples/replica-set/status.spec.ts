/**
 * The PodSet's status, as kube-controller-manager's `calculateStatus` computes a ReplicaSet's, with the one
 * difference kept on purpose: a sync that did not try leaves `ReplicaFailure` alone.
 */
import { expect } from 'chai';
import type { V1Pod } from '@kubernetes/client-node';
import { calculateStatus, REPLICA_FAILURE, rfc3339, type StatusInputs } from './status.js';

const ready = (name: string): V1Pod => ({
  metadata: { name },
  status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
});
const pending = (name: string): V1Pod => ({ metadata: { name }, status: { phase: 'Pending' } });
const failure = {
  type: REPLICA_FAILURE,
  status: 'True' as const,
  reason: 'FailedCreate',
  message: 'quota',
  lastTransitionTime: '2026-01-01T00:00:00Z',
};
const inputs = (over: Partial<StatusInputs>): StatusInputs => ({
  current: undefined,
  generation: 3,
  activePods: [ready('a'), pending('b')],
  outcome: 'ok',
  selector: 'app=web',
  now: Date.parse('2026-02-02T10:00:00.500Z'),
  ...over,
});

describe('the replica-set example: status', () => {
  it('counts replicas and ready replicas, and reports the generation acted on and the selector', () => {
    expect(calculateStatus(inputs({}))).to.deep.equal({
      replicas: 2,
      readyReplicas: 1,
      observedGeneration: 3,
      selector: 'app=web',
    });
  });

  it('adds ReplicaFailure for a failed sync, stamped to the second', () => {
    const status = calculateStatus(inputs({ outcome: { reason: 'FailedCreate', message: 'quota exceeded' } }));
    expect(status.conditions).to.deep.equal([
      {
        type: REPLICA_FAILURE,
        status: 'True',
        reason: 'FailedCreate',
        message: 'quota exceeded',
        lastTransitionTime: '2026-02-02T10:00:00Z',
      },
    ]);
  });

  it('keeps an existing ReplicaFailure of the same reason as it is, and replaces one of another reason', () => {
    const current = { conditions: [failure] };
    expect(
      calculateStatus(inputs({ current, outcome: { reason: 'FailedCreate', message: 'new words' } })).conditions,
    ).to.deep.equal([failure]);
    expect(
      calculateStatus(inputs({ current, outcome: { reason: 'FailedDelete', message: 'gone' } })).conditions![0],
    ).to.deep.include({ reason: 'FailedDelete', message: 'gone' });
  });

  it('removes ReplicaFailure after a sync that managed its pods, keeps it after one that did not try, and keeps other conditions', () => {
    const other = { type: 'Progressing', status: 'True' as const };
    const current = { conditions: [other, failure] };
    expect(calculateStatus(inputs({ current, outcome: 'ok' })).conditions).to.deep.equal([other]);
    expect(calculateStatus(inputs({ current, outcome: 'skipped' })).conditions).to.deep.equal([other, failure]);
  });

  it('writes RFC 3339 times to the second, as metav1.Time', () => {
    expect(rfc3339(Date.parse('2026-02-02T10:00:00.999Z'))).to.equal('2026-02-02T10:00:00Z');
  });
});
