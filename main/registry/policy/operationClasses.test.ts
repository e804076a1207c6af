import { describe, expect, it } from 'vitest';
import { operationClassFromAnnotations } from '../../../shared/policy';
import { normalizeOperationClasses, resolveOperationClasses } from './operationClasses';

describe('normalizeOperationClasses (Orloj: trimmed, lowercased, deduplicated, invalid rejected)', () => {
  it('normalizes', () => {
    expect(normalizeOperationClasses([' Read', 'WRITE ', 'read', ''], 'low')).toEqual(['read', 'write']);
  });

  it('defaults to read for low/medium risk and write for high/critical', () => {
    expect(normalizeOperationClasses(undefined, 'low')).toEqual(['read']);
    expect(normalizeOperationClasses([], 'medium')).toEqual(['read']);
    expect(normalizeOperationClasses([], 'high')).toEqual(['write']);
    expect(normalizeOperationClasses(['  '], 'critical')).toEqual(['write']);
  });

  it('rejects values outside read, write, delete, admin', () => {
    expect(() => normalizeOperationClasses(['read', 'execute'], 'low')).toThrow(/"execute" is not one of read, write, delete, admin/);
  });
});

describe('MCP annotations as operation classes', () => {
  it('readOnlyHint → read, destructiveHint → delete, non-destructive update → write (MCP defaults)', () => {
    expect(operationClassFromAnnotations({ readOnlyHint: true, destructiveHint: true })).toBe('read');
    expect(operationClassFromAnnotations({ destructiveHint: true })).toBe('delete');
    expect(operationClassFromAnnotations({ readOnlyHint: false })).toBe('delete');
    expect(operationClassFromAnnotations({ readOnlyHint: false, destructiveHint: false })).toBe('write');
    expect(operationClassFromAnnotations({ idempotentHint: true })).toBeUndefined();
    expect(operationClassFromAnnotations(undefined)).toBeUndefined();
  });

  it('explicit classes win over hints; hints win over the risk default', () => {
    expect(resolveOperationClasses(['admin'], { readOnlyHint: true }, 'low')).toEqual(['admin']);
    expect(resolveOperationClasses(undefined, { readOnlyHint: true }, 'critical')).toEqual(['read']);
    expect(resolveOperationClasses([], { destructiveHint: true }, 'low')).toEqual(['delete']);
    expect(resolveOperationClasses(undefined, { openWorldHint: true }, 'high')).toEqual(['write']);
  });
});
