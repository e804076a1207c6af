import { describe, expect, it } from 'vitest';
import type { ToolPolicy } from '../../../shared/registry';
import { normalizeToolPermission, verdictFor, type ToolPermission } from './ToolPermission';

const tool = (name: string, operationClasses: ToolPolicy['operationClasses']) => ({ name, policy: { riskLevel: 'low' as const, operationClasses } });

describe('normalizeToolPermission (Orloj ToolPermission.operation_rules)', () => {
  it('trims and lowercases; operation_class defaults to *, verdict to allow; approval_required means confirm', () => {
    expect(
      normalizeToolPermission({
        name: 'db-guard',
        tool_ref: ' mcp:postgres.* ',
        operation_rules: [{ operation_class: ' WRITE ', verdict: 'Approval_Required' }, { verdict: 'deny' }, { operation_class: 'read' }],
      }),
    ).toEqual({
      name: 'db-guard',
      toolRef: 'mcp:postgres.*',
      operationRules: [
        { operationClass: 'write', verdict: 'confirm' },
        { operationClass: '*', verdict: 'deny' },
        { operationClass: 'read', verdict: 'allow' },
      ],
    });
  });

  it('tool_ref defaults to the name; invalid classes and verdicts are rejected', () => {
    expect(normalizeToolPermission({ name: 'http:crm.delete_lead' }).toolRef).toBe('http:crm.delete_lead');
    expect(() => normalizeToolPermission({ tool_ref: 'x', operation_rules: [{ operation_class: 'execute' }] })).toThrow(/operation_rules\[0\]\.operation_class "execute"/);
    expect(() => normalizeToolPermission({ tool_ref: 'x', operation_rules: [{ verdict: 'maybe' }] })).toThrow(/operation_rules\[0\]\.verdict "maybe"/);
    expect(() => normalizeToolPermission({})).toThrow(/needs tool_ref/);
  });
});

describe('verdictFor: the strictest matching verdict wins (deny > confirm > allow)', () => {
  const permissions: ToolPermission[] = [
    { name: 'writes-need-ok', toolRef: '*', operationRules: [{ operationClass: 'write', verdict: 'confirm' }, { operationClass: 'delete', verdict: 'confirm' }] },
    { name: 'no-github-deletes', toolRef: 'mcp:github.*', operationRules: [{ operationClass: 'delete', verdict: 'deny' }] },
    { name: 'reads-fine', toolRef: 'mcp:github.get_issue', operationRules: [{ operationClass: '*', verdict: 'allow' }] },
  ];

  it('denies when any matching rule denies, and says which', () => {
    expect(verdictFor(tool('mcp:github.delete_repo', ['delete']), permissions)).toEqual({
      verdict: 'deny',
      reasons: ['writes-need-ok: delete → approval_required', 'no-github-deletes: delete → deny'],
      rules: [
        { name: 'writes-need-ok', verdict: 'confirm', operationClass: 'delete' },
        { name: 'no-github-deletes', verdict: 'deny', operationClass: 'delete' },
      ],
    });
  });

  it('asks for confirmation when the strictest match is confirm, over every class the tool has', () => {
    expect(verdictFor(tool('http:crm.update_lead', ['read', 'write']), permissions).verdict).toBe('confirm');
  });

  it('allows when only allow rules match', () => {
    expect(verdictFor(tool('mcp:github.get_issue', ['read']), permissions)).toEqual({ verdict: 'allow', reasons: ['reads-fine: read → allow'], rules: [{ name: 'reads-fine', verdict: 'allow', operationClass: 'read' }] });
  });

  it('allows by default when no rule matches, and says so', () => {
    expect(verdictFor(tool('mcp:time.now', ['read']), permissions)).toEqual({
      verdict: 'allow',
      reasons: ['no permission rule covers read; allowed by default'],
      rules: [],
    });
    expect(verdictFor(tool('mcp:time.now', ['read']), []).verdict).toBe('allow');
  });

  it('counts a server-marked destructive tool as needing approval, and names the file of a rule', () => {
    const destructive = { ...tool('mcp:fs.remove', ['delete']), annotations: { destructiveHint: true } };
    expect(verdictFor(destructive, [])).toMatchObject({ verdict: 'confirm', rules: [{ name: 'destructiveHint', verdict: 'confirm' }] });
    expect(verdictFor({ ...destructive, annotations: { destructiveHint: true, readOnlyHint: true } }, []).verdict).toBe('allow');
    const inFile: ToolPermission[] = [{ name: 'no-removes', toolRef: 'mcp:fs.*', operationRules: [{ operationClass: 'delete', verdict: 'deny' }], file: 'policy/fs.yaml' }];
    expect(verdictFor(destructive, inFile)).toMatchObject({ verdict: 'deny', reasons: [expect.any(String), 'no-removes (policy/fs.yaml): delete → deny'] });
  });

  it('a permission for another tool does not apply', () => {
    const onlyCrm: ToolPermission[] = [{ name: 'crm', toolRef: 'http:crm.delete_lead', operationRules: [{ operationClass: '*', verdict: 'deny' }] }];
    expect(verdictFor(tool('http:crm.delete_lead_note', ['delete']), onlyCrm).verdict).toBe('allow');
  });
});
