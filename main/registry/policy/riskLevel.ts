import { AppError } from '../../../shared/errors';
import { RiskLevel } from '../../../shared/registry';

/** Orloj: `risk_level` defaults to `low`; unknown values are rejected. */
export function normalizeRiskLevel(raw: string | undefined): RiskLevel {
  const value = raw?.trim().toLowerCase();
  if (!value) return 'low';
  const parsed = RiskLevel.safeParse(value);
  if (!parsed.success) throw new AppError('InvalidInput', `risk_level must be one of ${RiskLevel.options.join(', ')}; got "${raw}".`);
  return parsed.data;
}
