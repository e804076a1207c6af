import { parseDuration } from '../../registry/policy/duration';
import type { IssuePath, ResourceIssues } from './ResourceIssues';

export type RawObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is RawObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value as it appears in a message: strings quoted, long ones cut. */
export function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${shown(value)}`;
}

export function readObject(value: unknown, path: IssuePath, issues: ResourceIssues): RawObject | undefined {
  if (value === undefined || value === null) return undefined;
  if (isPlainObject(value)) return value;
  issues.error(path, `must be a mapping, got ${typeName(value)}`);
  return undefined;
}

/** A string, trimmed; undefined when absent. Empty after trimming counts as absent (Go zero value). */
export function readString(value: unknown, path: IssuePath, issues: ResourceIssues): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    issues.error(path, `must be a string, got ${typeName(value)}`);
    return undefined;
  }
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** Items trimmed, empty ones dropped; `dedupe` keeps the first of equal items (case-insensitive if asked). */
export function readStringList(value: unknown, path: IssuePath, issues: ResourceIssues, dedupe: 'exact' | 'caseInsensitive' | 'none' = 'exact'): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    issues.error(path, `must be a list of strings, got ${typeName(value)}`);
    return undefined;
  }
  const result: string[] = [];
  const seen = new Set<string>();
  value.forEach((item, index) => {
    const text = readString(item, [...path, index], issues);
    if (text === undefined) return;
    const key = dedupe === 'caseInsensitive' ? text.toLowerCase() : text;
    if (dedupe !== 'none' && seen.has(key)) return;
    seen.add(key);
    result.push(text);
  });
  return result;
}

export function readInteger(value: unknown, path: IssuePath, issues: ResourceIssues): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    issues.error(path, `must be a whole number, got ${typeName(value)}`);
    return undefined;
  }
  return value;
}

/** One of `allowed` after trimming and lowercasing (Orloj normalizes enums that way). */
export function readEnum<T extends string>(value: unknown, path: IssuePath, issues: ResourceIssues, allowed: readonly T[]): T | undefined {
  const text = readString(value, path, issues);
  if (text === undefined) return undefined;
  const normalized = text.toLowerCase();
  if ((allowed as readonly string[]).includes(normalized)) return normalized as T;
  issues.error(path, `${shown(value)} is not one of ${allowed.join(', ')}`);
  return undefined;
}

/**
 * A Go duration string (Orloj); returns its milliseconds. Numbers are refused: Orloj's fields
 * are strings, and a bare 30 says neither seconds nor milliseconds.
 */
export function readDuration(value: unknown, path: IssuePath, issues: ResourceIssues): { text: string; ms: number } | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    issues.error(path, `${shown(value)} is not a duration: write it as a string with a unit, e.g. "30s"`);
    return undefined;
  }
  if (value.trim() === '') return undefined;
  try {
    return { text: value.trim(), ms: parseDuration(value) };
  } catch {
    issues.error(path, `${shown(value)} is not a duration: expected numbers with units (ns, us, ms, s, m, h), e.g. "30s", "1m30s", "250ms"`);
    return undefined;
  }
}

/** Drops undefined fields, so stored objects hold only what is set. */
export function compact<T extends RawObject>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}
