import { IsolationMode, Jitter } from '../../../shared/registry';
import type { PartialToolRuntime } from '../../../shared/resources/mcpServer';
import { normalizeRuntime, type RawRuntime } from '../../registry/policy/normalizeRuntime';
import { compact, readDuration, readEnum, readInteger, readObject } from './fieldReaders';
import type { IssuePath, ResourceIssues } from './ResourceIssues';

/**
 * Reads an Orloj `runtime` block field by field, so each problem is reported at its own path;
 * what passes is exactly what normalizeRuntime (the registry's reading) accepts. Returns the block
 * as written, trimmed and lowercased, without defaults.
 */
export function readRuntime(value: unknown, path: IssuePath, issues: ResourceIssues): PartialToolRuntime | undefined {
  const raw = readObject(value, path, issues);
  if (!raw) return undefined;
  const timeout = readPolicyDuration(raw.timeout, [...path, 'timeout'], issues, (text) => ({ timeout: text }), 'must be positive');
  const isolation = readEnum(raw.isolation_mode, [...path, 'isolation_mode'], issues, IsolationMode.options);
  const retryRaw = readObject(raw.retry, [...path, 'retry'], issues);
  let retry: PartialToolRuntime['retry'];
  if (retryRaw) {
    const attemptsPath = [...path, 'retry', 'max_attempts'];
    let maxAttempts = readInteger(retryRaw.max_attempts, attemptsPath, issues);
    if (maxAttempts !== undefined && !accepted({ retry: { max_attempts: maxAttempts } })) {
      issues.error(attemptsPath, `must be at least 1 (0 means the default, 1), got ${maxAttempts}`);
      maxAttempts = undefined;
    }
    retry = compact({
      max_attempts: maxAttempts,
      backoff: readPolicyDuration(retryRaw.backoff, [...path, 'retry', 'backoff'], issues, (text) => ({ retry: { backoff: text } }), 'must not be negative'),
      max_backoff: readPolicyDuration(retryRaw.max_backoff, [...path, 'retry', 'max_backoff'], issues, (text) => ({ retry: { max_backoff: text } }), 'must not be negative'),
      jitter: readEnum(retryRaw.jitter, [...path, 'retry', 'jitter'], issues, Jitter.options),
    });
  }
  return compact({ timeout, isolation_mode: isolation, retry });
}

function readPolicyDuration(value: unknown, path: IssuePath, issues: ResourceIssues, asRuntime: (text: string) => RawRuntime, problem: string): string | undefined {
  const duration = readDuration(value, path, issues);
  if (!duration) return undefined;
  if (!accepted(asRuntime(duration.text))) {
    issues.error(path, `"${duration.text}" ${problem}`);
    return undefined;
  }
  return duration.text;
}

function accepted(runtime: RawRuntime): boolean {
  try {
    normalizeRuntime(runtime);
    return true;
  } catch {
    return false;
  }
}
