import type { HoldRequest } from '../approvals/ApprovalHolder';
import type { HeldForApproval } from '../registry/InvocationPipeline';

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
