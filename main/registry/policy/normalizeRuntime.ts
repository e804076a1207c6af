import { AppError } from '../../../shared/errors';
import { IsolationMode, Jitter, type RiskLevel, type RuntimePolicy } from '../../../shared/registry';
import { durationMs } from './duration';
import { isElevatedRisk } from '../../../shared/policy';

/** `spec.runtime` of an Orloj Tool, as written in YAML. */
export interface RawRuntime {
  timeout?: string | number;
  isolation_mode?: string;
  retry?: {
    max_attempts?: number;
    backoff?: string | number;
    max_backoff?: string | number;
    jitter?: string;
  };
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_BACKOFF_MS = 30_000;

/**
 * Orloj runtime defaults: timeout 30s, isolation sandboxed for high/critical risk and none
 * otherwise, retry max_attempts 1, backoff 0s, max_backoff 30s, jitter none. Empty or zero values
 * count as unset (Go zero values), so `timeout: 0` means the default, not "no timeout".
 */
export function normalizeRuntime(raw: RawRuntime | undefined, riskLevel: RiskLevel = 'low'): RuntimePolicy {
  const timeoutMs = optionalDuration(raw?.timeout, 'runtime.timeout') || DEFAULT_TIMEOUT_MS;
  if (timeoutMs < 0) throw new AppError('InvalidInput', `runtime.timeout must be positive, got ${String(raw?.timeout)}.`);

  const retry = raw?.retry;
  const maxAttempts = retry?.max_attempts || 1;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new AppError('InvalidInput', `runtime.retry.max_attempts must be a whole number of at least 1, got ${String(retry?.max_attempts)}.`);
  }
  const backoffMs = optionalDuration(retry?.backoff, 'runtime.retry.backoff') ?? 0;
  const maxBackoffMs = optionalDuration(retry?.max_backoff, 'runtime.retry.max_backoff') || DEFAULT_MAX_BACKOFF_MS;
  if (backoffMs < 0 || maxBackoffMs < 0) throw new AppError('InvalidInput', 'runtime.retry.backoff and max_backoff must not be negative.');

  return {
    timeoutMs,
    isolationMode: oneOf(IsolationMode.options, raw?.isolation_mode, 'runtime.isolation_mode') ?? (isElevatedRisk(riskLevel) ? 'sandboxed' : 'none'),
    retry: { maxAttempts, backoffMs, maxBackoffMs, jitter: oneOf(Jitter.options, retry?.jitter, 'runtime.retry.jitter') ?? 'none' },
  };
}

function optionalDuration(value: string | number | undefined, field: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  return durationMs(value, field);
}

function oneOf<T extends string>(allowed: readonly T[], value: string | undefined, field: string): T | undefined {
  const normalized = value?.trim().toLowerCase();
  if (!normalized) return undefined;
  if (!(allowed as readonly string[]).includes(normalized)) {
    throw new AppError('InvalidInput', `${field} must be one of ${allowed.join(', ')}; got "${value}".`);
  }
  return normalized as T;
}
