import { AppError } from '../../../shared/errors';
import { RiskLevel } from '../../../shared/registry';

/** Whether a Tool resource wrote a risk_level (a blank one is not a setting: the default applies). */
export function isRiskLevelSet(raw: string | undefined): raw is string {
  return raw !== undefined && raw.trim() !== '';
}

/** Orloj: `risk_level` defaults to `low`; unknown values are rejected. */
export function normalizeRiskLevel(raw: string | undefined): RiskLevel {
  if (!isRiskLevelSet(raw)) return 'low';
  const value = raw.trim().toLowerCase();
  const parsed = RiskLevel.safeParse(value);
  if (!parsed.success) throw new AppError('InvalidInput', `risk_level must be one of ${RiskLevel.options.join(', ')}; got "${raw}".`);
  return parsed.data;
}
