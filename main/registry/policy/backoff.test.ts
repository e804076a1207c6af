import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors';
import type { RetryPolicy } from '../../../shared/registry';
import { backoffDelay, shouldRetry } from './backoff';

const policy = (jitter: RetryPolicy['jitter']): RetryPolicy => ({ maxAttempts: 5, backoffMs: 100, maxBackoffMs: 1000, jitter });

describe('backoffDelay (Orloj retry.backoff / max_backoff / jitter)', () => {
  it('doubles from backoff and stops at max_backoff without jitter', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, policy('none'), () => 0.5))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('full jitter picks uniformly in [0, d]', () => {
    expect(backoffDelay(3, policy('full'), () => 0)).toBe(0);
    expect(backoffDelay(3, policy('full'), () => 0.25)).toBe(100);
    expect(backoffDelay(3, policy('full'), () => 0.999)).toBeCloseTo(399.6);
  });

  it('equal jitter keeps half and randomizes the other half: d/2 + [0, d/2]', () => {
    expect(backoffDelay(3, policy('equal'), () => 0)).toBe(200);
    expect(backoffDelay(3, policy('equal'), () => 0.5)).toBe(300);
    expect(backoffDelay(5, policy('equal'), () => 0.999)).toBeCloseTo(999.5);
  });

  it('a zero backoff (the Orloj default) retries immediately', () => {
    expect(backoffDelay(4, { maxAttempts: 5, backoffMs: 0, maxBackoffMs: 30_000, jitter: 'full' }, () => 0.7)).toBe(0);
  });
});

describe('shouldRetry', () => {
  it('retries only retryable errors and only up to max_attempts attempts in total', () => {
    const timeout = new AppError('Timeout', 'slow');
    const failed = new AppError('ExecutionFailed', 'broken');
    expect(shouldRetry(timeout, 1, policy('none'))).toBe(true);
    expect(shouldRetry(timeout, 4, policy('none'))).toBe(true);
    expect(shouldRetry(timeout, 5, policy('none'))).toBe(false);
    expect(shouldRetry(failed, 1, policy('none'))).toBe(false);
    expect(shouldRetry(new AppError('ConnectionFailed', 'reset'), 1, { ...policy('none'), maxAttempts: 1 })).toBe(false);
  });
});
