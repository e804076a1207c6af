import type { LanguageToolStatus, ToolPhase, ToolSchema } from '../../shared/kube';
import { findCondition, setCondition } from './conditions';

/** What the target observed about the tool's workload (a Deployment, or the agents' pods for sidecars). */
export type WorkloadState =
  | { state: 'applyFailed'; message: string }
  | { state: 'failed'; reason: string; message: string }
  | { state: 'waiting'; reason: string; message: string }
  | { state: 'available'; rolloutComplete: boolean; message: string };

export type DiscoveryOutcome = { ok: true; tools: ToolSchema[] } | { ok: false; permanent: boolean; message: string };

export interface ToolObservation {
  generation: number;
  endpoint?: string;
  workload: WorkloadState;
  /** Left out when discovery did not run in this pass; the previous result then stands. */
  discovery?: DiscoveryOutcome;
}

export const READY = 'Ready';
export const DISCOVERED = 'Discovered';

/**
 * Discovery runs once per generation, after the rollout of that generation completed, and again
 * whenever the workload comes back from being unavailable (new pods may serve other tools).
 */
export function needsDiscovery(previous: LanguageToolStatus | undefined, generation: number, workload: WorkloadState): boolean {
  if (workload.state !== 'available' || !workload.rolloutComplete) return false;
  const discovered = findCondition(previous?.conditions, DISCOVERED);
  const ready = findCondition(previous?.conditions, READY);
  return discovered?.status !== 'True' || discovered.observedGeneration !== generation || ready?.status !== 'True';
}

/** The status a tool should have for an observation; equal input gives an equal (deep-equal) status. */
export function computeToolStatus(previous: LanguageToolStatus | undefined, obs: ToolObservation, now?: () => Date): LanguageToolStatus {
  const { generation, workload, discovery } = obs;
  let conditions = previous?.conditions ?? [];

  const ready =
    workload.state === 'available'
      ? { status: 'True' as const, reason: workload.rolloutComplete ? 'Available' : 'RollingOut', message: workload.message }
      : workload.state === 'applyFailed'
        ? { status: 'False' as const, reason: 'ApplyFailed', message: workload.message }
        : { status: 'False' as const, reason: workload.reason, message: workload.message };
  conditions = setCondition(conditions, { type: READY, ...ready, observedGeneration: generation }, now);

  let toolSchemas = previous?.toolSchemas;
  if (discovery?.ok) {
    toolSchemas = discovery.tools;
    conditions = setCondition(conditions, { type: DISCOVERED, status: 'True', reason: 'ToolsListed', message: `${discovery.tools.length} tools listed`, observedGeneration: generation }, now);
  } else if (discovery) {
    const reason = discovery.permanent ? 'DiscoveryFailed' : 'DiscoveryPending';
    conditions = setCondition(conditions, { type: DISCOVERED, status: 'False', reason, message: discovery.message, observedGeneration: generation }, now);
  } else if (!findCondition(conditions, DISCOVERED)) {
    conditions = setCondition(conditions, { type: DISCOVERED, status: 'Unknown', reason: 'WaitingForWorkload', message: 'Discovery runs once the workload is available', observedGeneration: generation }, now);
  }

  const discovered = findCondition(conditions, DISCOVERED);
  const discoveredNow = discovered?.status === 'True';
  let phase: ToolPhase;
  if (workload.state === 'applyFailed' || workload.state === 'failed') phase = 'Failed';
  else if (workload.state === 'waiting') phase = 'Pending';
  else if (!workload.rolloutComplete) phase = discoveredNow ? 'Updating' : 'Pending';
  else if (discovery && !discovery.ok) phase = discovery.permanent ? 'Failed' : 'Pending';
  else phase = discoveredNow && discovered?.observedGeneration === generation ? 'Running' : 'Pending';

  const status: LanguageToolStatus = { phase, conditions, observedGeneration: generation };
  if (obs.endpoint) status.endpoint = obs.endpoint;
  if (toolSchemas) {
    status.toolSchemas = toolSchemas;
    status.availableTools = toolSchemas.map((t) => t.name);
  }
  return status;
}
