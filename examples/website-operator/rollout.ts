/**
 * How far a Deployment's rollout has got, judged as `kubectl rollout status` judges it.
 * @module
 */
import type { V1Deployment } from '@kubernetes/client-node';

/** A Deployment's rollout: `complete`, still `progressing`, or `failed` (past its progress deadline). */
export interface Rollout {
  readonly state: 'complete' | 'progressing' | 'failed';
  /** For people, in kubectl's words. */
  readonly message: string;
  /** The replicas the Deployment asks for (the API server defaults an unset `spec.replicas` to 1). */
  readonly replicas: number;
  readonly readyReplicas: number;
}

/**
 * The rollout of `deployment` (kubectl's `DeploymentStatusViewer`):
 * - the controller has not seen the latest spec (`status.observedGeneration` < `metadata.generation`):
 *   progressing;
 * - its `Progressing` condition says `ProgressDeadlineExceeded`: failed;
 * - fewer updated replicas than asked, old replicas still running, or fewer available than updated: progressing;
 * - otherwise complete.
 *
 * # Guarantees
 * - Pure and total: any object, even one without `status` (no controller has looked at it yet), gets an answer.
 */
export function rolloutOf(deployment: V1Deployment): Rollout {
  const name = deployment.metadata?.name ?? '';
  const status = deployment.status ?? {};
  const replicas = deployment.spec?.replicas ?? 1;
  const readyReplicas = status.readyReplicas ?? 0;
  const at = (state: Rollout['state'], message: string): Rollout => ({ state, message, replicas, readyReplicas });
  if ((deployment.metadata?.generation ?? 0) > (status.observedGeneration ?? 0)) {
    return at('progressing', `Waiting for deployment "${name}" spec update to be observed...`);
  }
  const progressing = status.conditions?.find((condition) => condition.type === 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded')
    return at('failed', `deployment "${name}" exceeded its progress deadline`);
  const updated = status.updatedReplicas ?? 0;
  const waiting = `Waiting for deployment "${name}" rollout to finish: `;
  if (updated < replicas)
    return at('progressing', `${waiting}${updated} out of ${replicas} new replicas have been updated...`);
  const total = status.replicas ?? 0;
  if (total > updated) return at('progressing', `${waiting}${total - updated} old replicas are pending termination...`);
  const available = status.availableReplicas ?? 0;
  if (available < updated)
    return at('progressing', `${waiting}${available} of ${updated} updated replicas are available...`);
  return at('complete', `deployment "${name}" successfully rolled out`);
}
