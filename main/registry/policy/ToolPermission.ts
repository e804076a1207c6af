import { AppError } from '../../../shared/errors';
import { OperationClass, type PolicyVerdict, type ToolEntry, type Verdict } from '../../../shared/registry';

export interface OperationRule {
  operationClass: OperationClass | '*';
  verdict: Verdict;
}

/**
 * Seed 001 ToolPermission `operation_rules`, reduced to what the registry enforces: which tools a
 * permission covers and the verdict per operation class. `toolRef` is a registry name, `*`, or a
 * prefix ending in `*` (e.g. `mcp:github.*`).
 */
export interface ToolPermission {
  name: string;
  toolRef: string;
  operationRules: OperationRule[];
}

/** A ToolPermission as written in YAML, with the seed's field names. */
export interface RawToolPermission {
  name?: string;
  tool_ref?: string;
  operation_rules?: Array<{ operation_class?: string; verdict?: string }>;
}

/** `approval_required` is the seed's spelling of confirm. */
const VERDICTS: Record<string, Verdict> = { allow: 'allow', deny: 'deny', confirm: 'confirm', approval_required: 'confirm' };
const STRICTNESS: Record<Verdict, number> = { allow: 0, confirm: 1, deny: 2 };

/** Values are trimmed and lowercased; operation_class defaults to `*` and verdict to `allow`; anything else is rejected. */
export function normalizeToolPermission(raw: RawToolPermission): ToolPermission {
  const name = raw.name?.trim() ?? '';
  const toolRef = raw.tool_ref?.trim() || name;
  if (!toolRef) throw new AppError('InvalidInput', 'ToolPermission needs tool_ref (or a name to default it from).');
  const operationRules = (raw.operation_rules ?? []).map((rule, index): OperationRule => {
    const operationClass = rule.operation_class?.trim().toLowerCase() || '*';
    if (operationClass !== '*' && !OperationClass.safeParse(operationClass).success) {
      throw new AppError('InvalidInput', `${name || toolRef}: operation_rules[${index}].operation_class "${rule.operation_class}" is not one of ${OperationClass.options.join(', ')}, *.`);
    }
    const verdict = VERDICTS[rule.verdict?.trim().toLowerCase() || 'allow'];
    if (!verdict) {
      throw new AppError('InvalidInput', `${name || toolRef}: operation_rules[${index}].verdict "${rule.verdict}" is not one of allow, confirm, approval_required, deny.`);
    }
    return { operationClass: operationClass as OperationClass | '*', verdict };
  });
  return { name: name || toolRef, toolRef, operationRules };
}

export function permissionCovers(permission: ToolPermission, toolName: string): boolean {
  const ref = permission.toolRef;
  if (ref === '*' || ref === toolName) return true;
  return ref.endsWith('*') && toolName.startsWith(ref.slice(0, -1));
}

/**
 * Every rule of every covering permission is checked against each of the tool's operation classes;
 * the strictest matching verdict wins (deny > confirm > allow, as the seed says). When nothing
 * matches the call is allowed: a ToolPermission without operation rules is a plain allow in the seed,
 * and rules are the exceptions an operator writes down, so tools nobody has classified stay usable.
 * To hold back a class everywhere, write a `*` permission with a rule for that class.
 */
export function verdictFor(entry: Pick<ToolEntry, 'name' | 'policy'>, permissions: readonly ToolPermission[]): PolicyVerdict {
  let verdict: Verdict = 'allow';
  const reasons: string[] = [];
  for (const permission of permissions) {
    if (!permissionCovers(permission, entry.name)) continue;
    for (const rule of permission.operationRules) {
      for (const operationClass of entry.policy.operationClasses) {
        if (rule.operationClass !== '*' && rule.operationClass !== operationClass) continue;
        reasons.push(`${permission.name}: ${operationClass} → ${rule.verdict}`);
        if (STRICTNESS[rule.verdict] > STRICTNESS[verdict]) verdict = rule.verdict;
      }
    }
  }
  if (reasons.length === 0) {
    reasons.push(`no permission rule covers ${entry.policy.operationClasses.join(', ')}; allowed by default`);
  }
  return { verdict, reasons };
}
