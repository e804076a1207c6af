import { AppError } from '../../../shared/errors';

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const WHOLE = /^[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/;
const PART = /(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;

/**
 * Parses a Go duration string (Orloj `runtime.timeout`, `retry.backoff`: "30s", "1m30s",
 * "250ms", "2h", "1.5h") into milliseconds. As in Go, a unit is required on every number except
 * the bare "0", and only a leading sign is allowed.
 */
export function parseDuration(text: string): number {
  const value = text.trim();
  if (value === '0' || value === '+0' || value === '-0') return 0;
  if (!WHOLE.test(value)) {
    throw new AppError(
      'InvalidInput',
      `Invalid duration "${text}": expected numbers with units (ns, us, ms, s, m, h), e.g. "30s", "1m30s", "250ms".`,
    );
  }
  let total = 0;
  for (const [, amount, unit] of value.matchAll(PART)) total += Number(amount) * UNIT_MS[unit!]!;
  return value.startsWith('-') ? -total : total;
}

/** A duration from config: a Go duration string, or a number already in milliseconds. */
export function durationMs(value: string | number, field: string): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new AppError('InvalidInput', `${field} must be a finite number of milliseconds.`);
    return value;
  }
  try {
    return parseDuration(value);
  } catch (error) {
    throw new AppError('InvalidInput', `${field}: ${(error as Error).message}`);
  }
}

/**
 * Milliseconds as a Go duration the way Orloj writes one in a spec ("10m", "1h30m", "45s",
 * "1500ms"): units that are zero are left out, and a part of a second is written in milliseconds.
 */
export function formatDuration(ms: number): string {
  const whole = Math.max(0, Math.round(ms));
  if (whole === 0) return '0s';
  if (whole % 1000 !== 0) return `${whole}ms`;
  const hours = Math.floor(whole / 3_600_000);
  const minutes = Math.floor((whole % 3_600_000) / 60_000);
  const seconds = Math.floor((whole % 60_000) / 1000);
  return `${hours ? `${hours}h` : ''}${minutes ? `${minutes}m` : ''}${seconds ? `${seconds}s` : ''}`;
}
