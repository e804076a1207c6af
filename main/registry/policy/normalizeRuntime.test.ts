import { describe, expect, it } from 'vitest';
import { normalizeRuntime } from './normalizeRuntime';
import { normalizeRiskLevel } from './riskLevel';

describe('normalizeRuntime (Orloj Tool runtime defaults)', () => {
  it('defaults: timeout 30s, isolation none, retry max_attempts 1, backoff 0s, max_backoff 30s, jitter none', () => {
    expect(normalizeRuntime(undefined)).toEqual({
      timeoutMs: 30_000,
      isolationMode: 'none',
      retry: { maxAttempts: 1, backoffMs: 0, maxBackoffMs: 30_000, jitter: 'none' },
    });
  });

  it('isolation_mode defaults to sandboxed for high/critical risk and none for low/medium', () => {
    expect(normalizeRuntime({}, 'high').isolationMode).toBe('sandboxed');
    expect(normalizeRuntime({}, 'critical').isolationMode).toBe('sandboxed');
    expect(normalizeRuntime({}, 'medium').isolationMode).toBe('none');
    expect(normalizeRuntime({ isolation_mode: 'WASM' }, 'critical').isolationMode).toBe('wasm');
  });

  it('reads durations and retry settings as written in YAML', () => {
    expect(normalizeRuntime({ timeout: '1m30s', retry: { max_attempts: 4, backoff: '250ms', max_backoff: '5s', jitter: 'Equal' } })).toEqual({
      timeoutMs: 90_000,
      isolationMode: 'none',
      retry: { maxAttempts: 4, backoffMs: 250, maxBackoffMs: 5000, jitter: 'equal' },
    });
  });

  it('treats empty and zero values as unset, like Go zero values', () => {
    expect(normalizeRuntime({ timeout: '', retry: { max_attempts: 0, max_backoff: '0s' } })).toMatchObject({
      timeoutMs: 30_000,
      retry: { maxAttempts: 1, maxBackoffMs: 30_000 },
    });
  });

  it('rejects what it cannot honour, naming the field', () => {
    expect(() => normalizeRuntime({ timeout: 'forever' })).toThrow(/runtime\.timeout: Invalid duration "forever"/);
    expect(() => normalizeRuntime({ timeout: '-5s' })).toThrow(/runtime\.timeout must be positive/);
    expect(() => normalizeRuntime({ isolation_mode: 'vm' })).toThrow(/runtime\.isolation_mode must be one of none, sandboxed, container, wasm; got "vm"/);
    expect(() => normalizeRuntime({ retry: { jitter: 'random' } })).toThrow(/runtime\.retry\.jitter must be one of none, full, equal/);
    expect(() => normalizeRuntime({ retry: { max_attempts: 2.5 } })).toThrow(/max_attempts must be a whole number/);
    expect(() => normalizeRuntime({ retry: { backoff: '-1s' } })).toThrow(/must not be negative/);
  });
});

describe('normalizeRiskLevel (Orloj: risk_level defaults to low)', () => {
  it('defaults, normalizes and rejects', () => {
    expect(normalizeRiskLevel(undefined)).toBe('low');
    expect(normalizeRiskLevel(' High ')).toBe('high');
    expect(() => normalizeRiskLevel('extreme')).toThrow(/risk_level must be one of low, medium, high, critical/);
  });
});
