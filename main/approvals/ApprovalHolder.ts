import type { ToolApproval } from '../../shared/approvals';

/** A call the policy says needs a person's approval, as the way in that holds it describes it. */
export interface HoldRequest {
  agent: string;
  /** The registry name of the tool. */
  tool: string;
  operationClass: string;
  /** The exact (validated) arguments of the call. */
  input: Record<string, unknown>;
  /** The policy's deciding reasons, joined: the rule that required approval. */
  reason: string;
  risk?: string;
  /** The version of the rules that judged the call (see EffectivePolicy.version). */
  policyVersion: string;
  /** The agent's session or the run the call belongs to. */
  taskRef: string;
  /** Default: DEFAULT_APPROVAL_TTL_MS. */
  ttlMs?: number;
}

export interface HoldOptions {
  /** The agent disconnected, canceled or the gateway is stopping: the approval ends Denied and the call never runs. */
  signal?: AbortSignal;
  /** The approval now exists (Pending): e.g. to tell the agent which approval it waits on. */
  onPending?(approval: ToolApproval): void;
}

/**
 * Holds a call until a person decides. Resolves with the Approved approval, consumed by this call
 * (its binding matched the call); rejects with an AppError('PolicyDenied') whose message says
 * which end it came to: denied (by whom, with the comment), expired, or canceled.
 */
export interface ApprovalHolder {
  hold(request: HoldRequest, options?: HoldOptions): Promise<ToolApproval>;
}

/** What the inbox (the console, `tooldeck approvals`, Orloj's API) reads and decides, wherever approvals are kept. */
export interface ApprovalInbox {
  /** Every approval, Pending ones first (soonest to expire first), then decided ones, newest first. */
  list(): Promise<ToolApproval[]>;
  /** One approval as it stands now; NotFound when there is none by that name. */
  get(name: string): Promise<ToolApproval>;
  /**
   * Approves or denies a Pending approval; the first decision wins everywhere. One no longer
   * Pending is AlreadyExists (step `decided`) saying how it ended.
   */
  decide(name: string, verdict: 'approve' | 'deny', decidedBy: string, comment?: string): Promise<ToolApproval>;
  /** Told after any change to any approval: read list() again. Returns the unsubscribe. */
  onChange(listener: () => void): () => void;
}

/**
 * Where approvals live: the data dir's files (ApprovalBook) or ToolApproval objects in a cluster
 * (ClusterApprovals). The gateway holds calls through it, the inbox reads and decides through it.
 */
export interface ApprovalStore extends ApprovalHolder, ApprovalInbox {
  /** Calls still held end Denied (canceled) and never run. */
  close(): Promise<void>;
}
