import { callerAgent, type Caller } from './caller';
import { LOCK_FILE_NAME, LOCK_RULE_NAME, type ToolHold } from './lock';
import type { OperationClass, PolicyVerdict, RiskLevel, ToolAnnotations, ToolEntry, Verdict, VerdictRule } from './registry';

export interface OperationRule {
  operationClass: OperationClass | '*';
  verdict: Verdict;
}

/**
 * Orloj ToolPermission `operation_rules`, reduced to what the registry enforces: which tools a
 * permission covers and the verdict per operation class. `toolRef` is a registry name, `*`, or a
 * prefix ending in `*` (e.g. `mcp:github.*`). Normalized from YAML in main/registry/policy.
 */
export interface ToolPermission {
  name: string;
  toolRef: string;
  operationRules: OperationRule[];
  /** The workspace file it is written in, so a verdict can point at it. */
  file?: string;
  /**
   * Orloj's `apply_mode: scoped`: the rules apply only to calls these agents make, never to the
   * operator's own. Absent: the permission applies to every caller (`apply_mode: global`).
   */
  targetAgents?: readonly string[];
}

/** Whether a permission's rules apply to a call by `caller` (the operator when absent, as views ask). */
export function permissionAppliesTo(permission: Pick<ToolPermission, 'targetAgents'>, caller: Caller | undefined): boolean {
  if (permission.targetAgents === undefined) return true;
  const agent = caller ? callerAgent(caller) : undefined;
  return agent !== undefined && permission.targetAgents.includes(agent);
}

const STRICTNESS: Record<Verdict, number> = { allow: 0, confirm: 1, deny: 2 };

export function permissionCovers(permission: ToolPermission, toolName: string): boolean {
  const ref = permission.toolRef;
  if (ref === '*' || ref === toolName) return true;
  return ref.endsWith('*') && toolName.startsWith(ref.slice(0, -1));
}

/** A server's own warning, trusted only to ask for more care: read-only wins over destructive. */
export function isDestructive(entry: Pick<ToolEntry, 'annotations'>): boolean {
  return entry.annotations?.destructiveHint === true && entry.annotations.readOnlyHint !== true;
}

/**
 * A tool's effective verdict, the one every view and the pipeline use. Every rule of every covering
 * permission is checked against each of the tool's operation classes (which Tool resources and the
 * server's annotations decide), and a tool its server marks destructive needs confirmation; the
 * strictest match wins (deny > confirm > allow, as Orloj says). When nothing matches the call is
 * allowed: a ToolPermission without operation rules is a plain allow in Orloj, and rules are the
 * exceptions an operator writes down, so tools nobody has classified stay usable. To hold back a
 * class everywhere, write a `*` permission with a rule for that class.
 */
export function verdictFor(entry: Pick<ToolEntry, 'name' | 'policy' | 'annotations'>, permissions: readonly ToolPermission[], caller?: Caller): PolicyVerdict {
  let verdict: Verdict = 'allow';
  const reasons: string[] = [];
  const rules: VerdictRule[] = [];
  const match = (rule: VerdictRule, reason: string) => {
    rules.push(rule);
    reasons.push(reason);
    if (STRICTNESS[rule.verdict] > STRICTNESS[verdict]) verdict = rule.verdict;
  };
  if (isDestructive(entry)) match({ name: 'destructiveHint', verdict: 'confirm' }, 'its server marks it destructive (annotations.destructiveHint) → approval_required');
  for (const permission of permissions) {
    if (!permissionCovers(permission, entry.name) || !permissionAppliesTo(permission, caller)) continue;
    for (const rule of permission.operationRules) {
      for (const operationClass of entry.policy.operationClasses) {
        if (rule.operationClass !== '*' && rule.operationClass !== operationClass) continue;
        match(
          { name: permission.name, verdict: rule.verdict, operationClass, ...(permission.file ? { file: permission.file } : {}) },
          `${permission.name}${permission.file ? ` (${permission.file})` : ''}: ${operationClass} → ${inOrlojWords(rule.verdict)}`,
        );
      }
    }
  }
  if (reasons.length === 0) {
    reasons.push(`no permission rule covers ${entry.policy.operationClasses.join(', ')}; allowed by default`);
  }
  return { verdict, reasons, rules };
}

/** The reasons of the rules that decided the verdict (the strictest matches), for a refusal. */
export function decidingReasons(verdict: PolicyVerdict): string[] {
  if (verdict.rules.length === 0) return verdict.reasons;
  return verdict.reasons.filter((_, index) => verdict.rules[index]?.verdict === verdict.verdict);
}

/**
 * The verdict with the lockfile's hold: a tool held for review needs its definition confirmed (or
 * approved), a rejected definition is denied. The hold is one more rule, named after the lockfile,
 * so every view lists it with the others and links it to the file.
 */
export function withHold(verdict: PolicyVerdict, hold: ToolHold | undefined): PolicyVerdict {
  if (!hold) return verdict;
  const ruleVerdict: Verdict = hold.state === 'rejected' ? 'deny' : 'confirm';
  const rule: VerdictRule = { name: LOCK_RULE_NAME, verdict: ruleVerdict, file: LOCK_FILE_NAME };
  const reason = `${LOCK_FILE_NAME}: ${hold.state === 'rejected' ? 'rejected' : 'held for review'}: ${hold.reason} → ${inOrlojWords(ruleVerdict)}`;
  // Without matched rules the only reason is "allowed by default", which no longer holds.
  const reasons = verdict.rules.length === 0 ? [reason] : [...verdict.reasons, reason];
  const strictest = STRICTNESS[ruleVerdict] > STRICTNESS[verdict.verdict] ? ruleVerdict : verdict.verdict;
  return { verdict: strictest, reasons, rules: [...verdict.rules, rule], hold };
}

/** The verdict as the other rules decide it: what still applies once the held definition is confirmed. */
export function withoutHold(verdict: PolicyVerdict): PolicyVerdict {
  if (!verdict.hold) return verdict;
  const kept = verdict.rules.map((rule, index) => ({ rule, reason: verdict.reasons[index] })).filter((item) => item.rule.name !== LOCK_RULE_NAME);
  const strictest = kept.reduce<Verdict>((worst, item) => (STRICTNESS[item.rule.verdict] > STRICTNESS[worst] ? item.rule.verdict : worst), 'allow');
  return { verdict: strictest, reasons: kept.map((item) => item.reason ?? ''), rules: kept.map((item) => item.rule) };
}

/** Orloj: high and critical are the elevated risk levels (sandboxed by default, write by default). */
export function isElevatedRisk(level: RiskLevel): boolean {
  return level === 'high' || level === 'critical';
}

/** Orloj's operation class for a tool that configures none: read, or write at an elevated risk level. */
export function defaultOperationClass(level: RiskLevel): OperationClass {
  return isElevatedRisk(level) ? 'write' : 'read';
}

/**
 * The class an MCP server's hints describe, read with MCP's own defaults (readOnlyHint false,
 * destructiveHint true once the tool is not read-only): readOnlyHint → read, destructive → delete,
 * otherwise write. Undefined when neither hint is present, so the Orloj risk default applies.
 */
export function operationClassFromAnnotations(annotations: ToolAnnotations | undefined): OperationClass | undefined {
  if (annotations?.readOnlyHint === undefined && annotations?.destructiveHint === undefined) return undefined;
  if (annotations.readOnlyHint === true) return 'read';
  return (annotations.destructiveHint ?? true) ? 'delete' : 'write';
}

/** A verdict in Orloj's words, as every reason, card, CLI line and doc says it (Tooldeck's `confirm` is Orloj's `approval_required`). */
export function inOrlojWords(verdict: Verdict): 'allow' | 'approval_required' | 'deny' {
  return verdict === 'confirm' ? 'approval_required' : verdict;
}
