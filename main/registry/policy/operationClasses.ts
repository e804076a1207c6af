import { AppError } from '../../../shared/errors';
import { OperationClass, type RiskLevel, type ToolAnnotations } from '../../../shared/registry';
import { defaultOperationClass, operationClassFromAnnotations } from '../../../shared/policy';

/**
 * Orloj: operation_classes are trimmed, lowercased and deduplicated; invalid values are
 * rejected; an empty list defaults to ["read"] for low/medium risk and ["write"] for high/critical.
 */
export function normalizeOperationClasses(raw: readonly string[] | undefined, riskLevel: RiskLevel): OperationClass[] {
  const classes: OperationClass[] = [];
  for (const item of raw ?? []) {
    const value = item.trim().toLowerCase();
    if (!value) continue;
    const parsed = OperationClass.safeParse(value);
    if (!parsed.success) throw new AppError('InvalidInput', `operation_classes: "${item}" is not one of ${OperationClass.options.join(', ')}.`);
    if (!classes.includes(parsed.data)) classes.push(parsed.data);
  }
  if (classes.length > 0) return classes;
  return [defaultOperationClass(riskLevel)];
}


/** Whether a Tool resource wrote operation_classes (blank entries are not classes: defaults apply). */
export function areOperationClassesSet(explicit: readonly string[] | undefined): boolean {
  return explicit?.some((value) => value.trim() !== '') === true;
}

/**
 * Explicit classes (the operator's word) replace the server's hints entirely; hints only fill in
 * when no classes were configured. A server cannot talk its way out of an operator's classification.
 */
export function resolveOperationClasses(
  explicit: readonly string[] | undefined,
  annotations: ToolAnnotations | undefined,
  riskLevel: RiskLevel,
): OperationClass[] {
  if (areOperationClassesSet(explicit)) return normalizeOperationClasses(explicit, riskLevel);
  const hinted = operationClassFromAnnotations(annotations);
  return hinted ? [hinted] : normalizeOperationClasses(undefined, riskLevel);
}
