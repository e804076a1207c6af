import type { AppError } from '../../../shared/errors';
import type { RetryPolicy } from '../../../shared/registry';

/**
 * Delay before the attempt after failed attempt `n` (1-based): d = min(max_backoff, backoff·2^(n-1)),
 * then jitter — none: d; full: uniform in [0, d]; equal: d/2 + uniform in [0, d/2]. `random` returns
 * [0, 1) like Math.random and is injected so tests pin the jitter.
 */
export function backoffDelay(n: number, retry: RetryPolicy, random: () => number): number {
  const delay = Math.min(retry.maxBackoffMs, retry.backoffMs * 2 ** (n - 1));
  switch (retry.jitter) {
    case 'none':
      return delay;
    case 'full':
      return random() * delay;
    case 'equal':
      return delay / 2 + random() * (delay / 2);
  }
}

/** Only retryable errors are retried, and never beyond max_attempts attempts in total. */
export function shouldRetry(error: AppError, attempt: number, retry: RetryPolicy): boolean {
  return error.retryable && attempt < retry.maxAttempts;
}
