import type { ToolApproval } from '../../shared/approvals';
import type { ApprovalHolder, HoldRequest } from '../approvals/ApprovalHolder';
import type { HeldForApproval, InvocationRequest } from '../registry/InvocationPipeline';

/** A held call as the approval it asks for: the agent, the tool, its exact arguments, the rule that required it. */
export function holdRequestFor(held: HeldForApproval, agent: string, taskRef: string): HoldRequest {
  const { entry, verdict } = held;
  return {
    agent,
    tool: entry.name,
    operationClass: entry.policy.operationClasses.join(', '),
    input: held.arguments,
    reason: verdict.reasons.join('; '),
    risk: entry.policy.riskLevel,
    policyVersion: held.policyVersion,
    taskRef,
  };
}

export interface AgentApprovalOptions {
  /** The agent went away (hung up, its session ended, its credential revoked) or its deadline passed: the approval ends Denied. */
  signal?: AbortSignal;
  /** The approval exists (Pending): a door tells its agent which approval it waits on. */
  onPending?: (approval: ToolApproval) => void;
}

/**
 * The one approval hook every agent door hands the pipeline (`InvocationRequest.approval`): an
 * `approval_required` verdict for an agent holds the exact call as an Orloj ToolApproval until a
 * person decides. `taskRef` says where the call came from (`<door>/<agent>/<session>`); the
 * pipeline judges the call again — grants and policy — once the decision arrives.
 */
export function agentApprovalHook(approvals: ApprovalHolder, agent: string, taskRef: string, options: AgentApprovalOptions = {}): NonNullable<InvocationRequest['approval']> {
  return (held) => approvals.hold(holdRequestFor(held, agent, taskRef), options).then(() => undefined);
}
