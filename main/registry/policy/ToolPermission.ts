import { AppError } from '../../../shared/errors';
import type { OperationRule, ToolPermission } from '../../../shared/policy';
import { OperationClass, type Verdict } from '../../../shared/registry';

export { isDestructive, permissionCovers, verdictFor } from '../../../shared/policy';
export type { OperationRule, ToolPermission };

/** A ToolPermission as written in YAML, with Orloj's field names. */
export interface RawToolPermission {
  name?: string;
  tool_ref?: string;
  operation_rules?: Array<{ operation_class?: string; verdict?: string }>;
}

/** `approval_required` is Orloj's spelling of confirm. */
const VERDICTS: Record<string, Verdict> = { allow: 'allow', deny: 'deny', confirm: 'confirm', approval_required: 'confirm' };

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

