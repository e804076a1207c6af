import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ApprovalName, DEFAULT_APPROVAL_TTL_MS, type ToolApproval, type ToolApprovalStatus } from '../../shared/approvals';
import { AppError, reasonOf } from '../../shared/errors';
import { formatDuration } from '../registry/policy/duration';
import { approvalInputDigest } from './approvalInputDigest';
import type { HoldRequest } from './ApprovalHolder';

/**
 * What every approval store shares, wherever it keeps approvals (the data dir's files, or
 * ToolApproval objects in a cluster): how a held call becomes an approval, what each end means for
 * the call, the binding check before an approved call runs, and the rules for names, deciders and
 * comments. A store only decides where approvals live and how their ends travel.
 */

/** Decided approvals kept for the inbox's history; older ones are removed as new ones end. */
export const DEFAULT_KEEP_DECIDED = 500;
/** As ApprovalDecision's comment allows. */
export const MAX_COMMENT_LENGTH = 2000;
export const MAX_DECIDER_LENGTH = 200;
/** Who ends an approval that no person decided: the agent went away, or Tooldeck stopped. */
export const TOOLDECK_DECIDER = 'tooldeck';

export type ApprovalVerdict = 'approve' | 'deny';

/**
 * How an approval ended, in its own file. It is published with an atomic create-if-absent, so the
 * first end written — a person's decision, the holder's expiry, or a cancellation — is the only one,
 * whichever process wrote it.
 */
export const DecisionRecord = z.object({
  phase: z.enum(['Approved', 'Denied', 'Expired']),
  decided_by: z.string().optional(),
  decided_at: z.string(),
  comment: z.string().optional(),
  /** Denied because the call was canceled (the agent disconnected, the gateway stopped), not by a person. */
  canceled: z.boolean().optional(),
});
export type DecisionRecord = z.infer<typeof DecisionRecord>;

export function withDecision(approval: ToolApproval, record: DecisionRecord): ToolApproval {
  const status: ToolApprovalStatus = {
    phase: record.phase,
    ...(record.phase === 'Approved' ? { decision: 'approved' as const } : record.phase === 'Denied' ? { decision: 'denied' as const } : {}),
    ...(record.decided_by !== undefined ? { decided_by: record.decided_by } : {}),
    decided_at: record.decided_at,
    expires_at: approval.status.expires_at,
    ...(record.comment !== undefined ? { comment: record.comment } : {}),
  };
  return { ...approval, status };
}

export function canceledRecord(now: number, why: string): DecisionRecord {
  return { phase: 'Denied', decided_by: TOOLDECK_DECIDER, decided_at: iso(now), comment: `Canceled: ${why}`, canceled: true };
}

export function canceledError(name: string | undefined, why: string): AppError {
  const reason = why.replace(/^Canceled: /, '');
  return new AppError('PolicyDenied', `${name ? `Approval ${name} was canceled` : 'The call was canceled'} while it waited for a person's decision (${reason}); the call did not run.`, { step: 'canceled' });
}

export function notPending(name: string, status: ToolApprovalStatus): AppError {
  const how =
    status.phase === 'Expired'
      ? `it expired at ${status.expires_at}`
      : status.phase === 'Pending'
        ? 'it is being decided'
        : `it was ${status.phase === 'Approved' ? 'approved' : 'denied'}${status.decided_by ? ` by ${status.decided_by}` : ''}${status.decided_at ? ` at ${status.decided_at}` : ''}${status.decided_by === TOOLDECK_DECIDER && status.comment ? ` (${status.comment})` : ''}`;
  return new AppError('AlreadyExists', `Approval ${name} is no longer Pending: ${how}.`, { step: 'decided' });
}

export function notFound(name: string): AppError {
  return new AppError('NotFound', `No approval named ${name}.`);
}

export function checkedName(name: string): string {
  if (!ApprovalName.safeParse(name).success) {
    throw new AppError('InvalidInput', `"${printable(name, 80)}" is not an approval name: one is 1 to 63 lowercase letters, digits and dashes, starting with a letter or digit.`);
  }
  return name;
}

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_IN_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_IN_NAME = /[\u0000-\u001f\u007f-\u009f]/;

export function checkedDecider(decidedBy: string): string {
  const decider = typeof decidedBy === 'string' ? decidedBy.trim() : '';
  if (!decider) throw new AppError('InvalidInput', 'Say who decides (decided_by): a name of 1 to 200 characters.');
  if (decider.length > MAX_DECIDER_LENGTH) throw new AppError('InvalidInput', `decided_by may have at most ${MAX_DECIDER_LENGTH} characters; it has ${decider.length}.`);
  if (CONTROL_IN_NAME.test(decider)) throw new AppError('InvalidInput', 'decided_by contains control characters; give a plain name.');
  return decider;
}

export function checkedComment(comment: string | undefined): string | undefined {
  if (comment === undefined) return undefined;
  if (typeof comment !== 'string') throw new AppError('InvalidInput', 'A comment is text.');
  if (comment.length > MAX_COMMENT_LENGTH) throw new AppError('InvalidInput', `A comment may have at most ${MAX_COMMENT_LENGTH} characters; this one has ${comment.length}.`);
  if (CONTROL_IN_TEXT.test(comment)) throw new AppError('InvalidInput', 'The comment contains control characters (other than line breaks and tabs); write it as plain text.');
  return comment.trim() || undefined;
}

/** `<agent>-<tool>-<random>`, each part cut to fit ApprovalName's 63 characters. */
export function approvalName(agent: string, tool: string): string {
  const suffix = randomBytes(5).toString('hex');
  const agentPart = slug(agent, 20) || 'agent';
  const toolPart = slug(tool, 63 - agentPart.length - suffix.length - 2) || 'tool';
  return `${agentPart}-${toolPart}-${suffix}`;
}

function slug(text: string, max: number): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, Math.max(0, max))
    .replace(/^-+|-+$/g, '');
}

export function byInboxOrder(a: ToolApproval, b: ToolApproval): number {
  const aPending = a.status.phase === 'Pending';
  const bPending = b.status.phase === 'Pending';
  if (aPending !== bPending) return aPending ? -1 : 1;
  if (aPending) return a.status.expires_at.localeCompare(b.status.expires_at) || a.metadata.name.localeCompare(b.metadata.name);
  const aAt = a.status.decided_at ?? a.status.expires_at;
  const bAt = b.status.decided_at ?? b.status.expires_at;
  return bAt.localeCompare(aAt) || a.metadata.name.localeCompare(b.metadata.name);
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function printable(text: string, max: number): string {
  const shown = JSON.stringify(String(text)).slice(1, -1);
  return shown.length > max ? `${shown.slice(0, max)}…` : shown;
}

/**
 * The approval for a held call, Pending from `now`: its name, Orloj's spec, and the binding to the
 * exact call (the digest of its arguments, the policy version). InvalidInput for a bad time to live
 * or arguments that are not JSON.
 */
/**
 * What every store checks before it holds a call — Tooldeck stopping, the call already canceled,
 * arguments that cannot become an approval — and the approval it then publishes. Throws the
 * AppError the call ends with.
 */
export function prepareHold(request: HoldRequest, signal: AbortSignal | undefined, closed: boolean, now: number): { approval: ToolApproval; ttlMs: number } {
  if (closed) throw canceledError(undefined, 'Tooldeck is stopping');
  if (signal?.aborted) throw canceledError(undefined, reasonOf(signal.reason, 'the call was canceled'));
  return newApproval(request, now);
}

export function newApproval(request: HoldRequest, now: number): { approval: ToolApproval; ttlMs: number } {
  const ttlMs = request.ttlMs ?? DEFAULT_APPROVAL_TTL_MS;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new AppError('InvalidInput', `An approval's time to live must be a positive number of milliseconds, not ${ttlMs}.`);
  let digest: string;
  try {
    digest = approvalInputDigest(request.input);
  } catch (error) {
    throw new AppError('InvalidInput', `The arguments of a held call must be JSON: ${reasonOf(error)}`);
  }
  const approval: ToolApproval = {
    apiVersion: 'orloj.dev/v1',
    kind: 'ToolApproval',
    metadata: { name: approvalName(request.agent, request.tool), created_at: iso(now) },
    spec: {
      task_ref: request.taskRef,
      tool: request.tool,
      operation_class: request.operationClass,
      agent: request.agent,
      input: request.input,
      reason: request.reason,
      ttl: formatDuration(ttlMs),
    },
    status: { phase: 'Pending', expires_at: iso(now + ttlMs) },
    binding: { input_digest: digest, policy_version: request.policyVersion, ...(request.risk ? { risk: request.risk } : {}) },
  };
  return { approval, ttlMs };
}

/**
 * What an ended approval means for its held call: resolves when it may run — approved, and the
 * approval as the store holds it now (`bound`) is still the one made for this call (agent, tool,
 * argument digest, policy version) under the rules in force — and otherwise throws the
 * PolicyDenied sentence saying which end it came to. `bound` undefined (unreadable, gone) fails closed.
 */
export function concludeHold(held: ToolApproval, request: HoldRequest, record: DecisionRecord, bound: ToolApproval | undefined, policyNow: string | undefined, where: string): void {
  const name = held.metadata.name;
  if (record.phase === 'Expired') {
    throw new AppError('PolicyDenied', `Approval ${name} expired: nobody decided within ${held.spec.ttl}, so the call did not run.`, { step: 'expired' });
  }
  if (record.phase === 'Denied') {
    if (record.canceled) throw canceledError(name, record.comment ?? 'the call was canceled');
    const by = record.decided_by ? ` by ${record.decided_by}` : '';
    throw new AppError('PolicyDenied', `Approval ${name} was denied${by}${record.comment ? `: ${record.comment}` : ''}; the call did not run.`, { step: 'denied' });
  }
  const expected = held.binding;
  if (!bound || bound.binding.input_digest !== expected.input_digest || bound.binding.policy_version !== expected.policy_version || bound.spec.agent !== request.agent || bound.spec.tool !== request.tool) {
    throw new AppError('PolicyDenied', `Approval ${name} was approved, but its ${where} no longer matches the held call (agent, tool, arguments or policy version changed); the call did not run.`, { step: 'binding' });
  }
  if (policyNow !== undefined && policyNow !== expected.policy_version) {
    throw new AppError('PolicyDenied', `Approval ${name} was approved under policy version ${expected.policy_version}, but the policy changed (now ${policyNow}) while the call waited; it did not run: call again to be judged under the rules in force.`, { step: 'binding' });
  }
}
