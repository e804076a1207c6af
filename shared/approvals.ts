import { z } from 'zod';

/**
 * An approval in Orloj's `ToolApproval` shape: a call an agent made that policy says a person must
 * approve first (`approval_required`), held until someone decides. Tooldeck binds each approval to
 * the exact call — the agent, the tool, the RFC 8785 digest of its arguments and the policy version
 * it was judged under — and one approval lets exactly one call run: other arguments need their own.
 * Orloj's names (snake_case) are kept so its API clients read these as they read Orloj's.
 */
export const ApprovalPhase = z.enum(['Pending', 'Approved', 'Denied', 'Expired']);
export type ApprovalPhase = z.infer<typeof ApprovalPhase>;

/** Approval names are file names in the data dir and path segments in the API: a closed alphabet. */
export const ApprovalName = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'an approval name is lowercase letters, digits and dashes');

export const ToolApprovalSpec = z.object({
  /** What the held call belongs to: the agent's gateway session (or the run), as Orloj names the task. */
  task_ref: z.string(),
  /** The registry name of the tool (`mcp:files.delete_file`). */
  tool: z.string(),
  operation_class: z.string(),
  agent: z.string(),
  /** The exact arguments of the held call. */
  input: z.record(z.string(), z.unknown()),
  /** The rule that required approval (the policy's deciding reasons). */
  reason: z.string(),
  /** Go duration as Orloj writes it (`10m`). */
  ttl: z.string(),
});
export type ToolApprovalSpec = z.infer<typeof ToolApprovalSpec>;

export const ToolApprovalStatus = z.object({
  phase: ApprovalPhase,
  decision: z.enum(['approved', 'denied']).optional(),
  decided_by: z.string().optional(),
  decided_at: z.string().optional(),
  expires_at: z.string(),
  comment: z.string().optional(),
});
export type ToolApprovalStatus = z.infer<typeof ToolApprovalStatus>;

/** What ties an approval to one call: checked again when the decision arrives, before the call runs. */
export const ApprovalBinding = z.object({
  /** SHA-256 (hex) of the arguments in RFC 8785 canonical JSON. */
  input_digest: z.string(),
  /** The policy version the call was judged under: an approval given under other rules does not count. */
  policy_version: z.string(),
  /** The tool's risk as the registry rates it, for the inbox. */
  risk: z.string().optional(),
});

export const ToolApproval = z.object({
  apiVersion: z.literal('orloj.dev/v1'),
  kind: z.literal('ToolApproval'),
  metadata: z.object({ name: ApprovalName, created_at: z.string() }),
  spec: ToolApprovalSpec,
  status: ToolApprovalStatus,
  /** Tooldeck's binding to the exact call (not part of Orloj's object; its clients ignore it). */
  binding: ApprovalBinding,
});
export type ToolApproval = z.infer<typeof ToolApproval>;

export const ApprovalDecision = z.object({
  name: ApprovalName,
  decision: z.enum(['approve', 'deny']),
  comment: z.string().max(2000).optional(),
});
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;

/** Ten minutes, Orloj's default `ttl`. */
export const DEFAULT_APPROVAL_TTL_MS = 10 * 60_000;
