import type { WorkloadState } from '../reconcile/toolStatus';
import type { DeploymentObject } from './toolResources';

/**
 * Reads readiness from what the deployment controller reports: available once a replica is ready
 * (or the Available condition holds); the rollout is complete once the controller has observed the
 * current generation and updated every replica.
 */
export function observeDeployment(dep: DeploymentObject | undefined, label: string): WorkloadState {
  if (!dep) return { state: 'waiting', reason: 'DeploymentMissing', message: `Deployment ${label} not found` };
  const status = dep.status ?? {};
  const desired = dep.spec?.replicas ?? 1;
  const progressing = status.conditions?.find((c) => c.type === 'Progressing');
  if (progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded') {
    return { state: 'failed', reason: 'ProgressDeadlineExceeded', message: progressing.message ?? `Deployment ${label} made no progress` };
  }
  const ready = status.readyReplicas ?? 0;
  const available = ready >= 1 || status.conditions?.some((c) => c.type === 'Available' && c.status === 'True') === true;
  const summary = `${ready}/${desired} replicas ready`;
  if (!available) return { state: 'waiting', reason: 'DeploymentUnavailable', message: `Deployment ${label}: ${summary}` };
  const rolloutComplete = (status.observedGeneration ?? 0) >= (dep.metadata.generation ?? 0) && (status.updatedReplicas ?? 0) >= desired;
  return { state: 'available', rolloutComplete, message: `Deployment ${label}: ${summary}` };
}
