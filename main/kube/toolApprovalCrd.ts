import type { OpenApiSchema } from '../../shared/crdSchemas';
import { TOOLDECK_FIELD_MANAGER } from '../../shared/kube';
import type { CustomResourceDefinition } from './crds';

/** Orloj's API group: a ToolApproval in the cluster is Orloj's object, read by Orloj's clients as Orloj writes it. */
export const ORLOJ_GROUP = 'orloj.dev';
export const ORLOJ_VERSION = 'v1';
export const TOOL_APPROVALS_PLURAL = 'toolapprovals';
export const TOOL_APPROVAL_CRD_NAME = `${TOOL_APPROVALS_PLURAL}.${ORLOJ_GROUP}`;

/** Where Tooldeck keeps what binds an approval to its call, beside Orloj's spec (Orloj's clients ignore annotations). */
export const APPROVAL_ANNOTATIONS = {
  inputDigest: 'tooldeck.dev/input-digest',
  policyVersion: 'tooldeck.dev/policy-version',
  risk: 'tooldeck.dev/risk',
  /** The gateway replica (pod) holding the call. */
  holder: 'tooldeck.dev/holder',
} as const;

const text = (description: string): OpenApiSchema => ({ type: 'string', description });

/**
 * Orloj's ToolApproval (`spec {task_ref, tool, operation_class, agent, input, reason, ttl}`, `status
 * {phase, decision, decided_by, decided_at, expires_at, comment}`), with the API server holding the
 * rules a file cannot: the spec never changes after creation (an approval is bound to the call it
 * was made for), and a decided approval is never decided again.
 */
export const toolApprovalSchema: OpenApiSchema = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      description: 'The held call: who made it, which tool, its exact arguments, and the rule that wants a person to decide.',
      required: ['tool', 'agent', 'input', 'ttl'],
      'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'spec is immutable: a ToolApproval is bound to the call it was made for' }],
      properties: {
        task_ref: text('What the held call belongs to: the agent session or run.'),
        tool: text('The registry name of the tool.'),
        operation_class: text('The operation classes of the call (read, write, delete, admin).'),
        agent: text('The agent that made the call.'),
        input: { type: 'object', description: 'The exact arguments of the held call.', 'x-kubernetes-preserve-unknown-fields': true },
        reason: text('The rule that required approval.'),
        ttl: { type: 'string', description: 'How long the call waits for a decision (Go duration, Orloj default 10m).', default: '10m', pattern: '^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$' },
      },
    },
    status: {
      type: 'object',
      description: 'The decision. Written through the status subresource by whoever may decide; the gateway that holds the call may not.',
      // A new ToolApproval reads Pending (kubectl's Phase column too): its creator cannot write status.
      default: { phase: 'Pending' },
      'x-kubernetes-validations': [
        { rule: "!has(oldSelf.phase) || oldSelf.phase == 'Pending' || self == oldSelf", message: 'a decided ToolApproval cannot be decided again' },
        { rule: "!has(self.phase) || !(self.phase in ['Approved', 'Denied']) || (has(self.decided_by) && has(self.decided_at) && has(self.decision))", message: 'a decision names decided_by, decided_at and decision' },
        { rule: "!has(self.decision) || (self.decision == 'approved') == (self.phase == 'Approved')", message: 'decision and phase disagree' },
      ],
      properties: {
        phase: { type: 'string', enum: ['Pending', 'Approved', 'Denied', 'Expired'] },
        decision: { type: 'string', enum: ['approved', 'denied'] },
        decided_by: { type: 'string', maxLength: 256 },
        decided_at: { type: 'string', format: 'date-time' },
        expires_at: { type: 'string', format: 'date-time' },
        comment: { type: 'string', maxLength: 2000 },
      },
    },
  },
};

/** The `toolapprovals.orloj.dev` CRD `tooldeck kube install --gateway` applies. */
export function toolApprovalCrd(): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: TOOL_APPROVAL_CRD_NAME, labels: { 'app.kubernetes.io/managed-by': TOOLDECK_FIELD_MANAGER } },
    spec: {
      group: ORLOJ_GROUP,
      scope: 'Namespaced',
      names: { kind: 'ToolApproval', listKind: 'ToolApprovalList', plural: TOOL_APPROVALS_PLURAL, singular: 'toolapproval', shortNames: ['toolapp'], categories: ['orloj'] },
      versions: [
        {
          name: ORLOJ_VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: toolApprovalSchema },
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Agent', type: 'string', jsonPath: '.spec.agent' },
            { name: 'Tool', type: 'string', jsonPath: '.spec.tool' },
            { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        },
      ],
    },
  };
}
