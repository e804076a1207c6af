import { describe, expect, it } from 'vitest';
import { applyDefaults } from './applyDefaults';
import type { ToolPermissionObject } from './kinds/normalizeToolPermissionResource';
import { permissionPlan } from './resourcePolicy';

const permission = (spec: Record<string, unknown>) => applyDefaults({ apiVersion: 'orloj.dev/v1', kind: 'ToolPermission', metadata: { name: 'p' }, spec }) as unknown as ToolPermissionObject;

describe('permissionPlan', () => {
  it('enforces a permission scoped to agents on those agents’ calls (target_agents), and says the operator’s are not governed', () => {
    const plan = permissionPlan(permission({ tool_ref: 'mcp:github.*', apply_mode: 'scoped', target_agents: ['planner-bot', 'triage-bot'], operation_rules: [{ operation_class: 'write', verdict: 'deny' }] }), []);
    expect(plan.permission).toEqual({ name: 'p', toolRef: 'mcp:github.*', operationRules: [{ operationClass: 'write', verdict: 'deny' }], targetAgents: ['planner-bot', 'triage-bot'] });
    expect(plan.message).toBe("applies only to calls made by agents planner-bot, triage-bot; the operator's own calls are not governed by it");
  });

  it('enforces a global permission on every caller, and leaves one without operation rules unenforced', () => {
    expect(permissionPlan(permission({ tool_ref: 'mcp:github.*', operation_rules: [{ operation_class: 'write', verdict: 'deny' }] }), []).permission).not.toHaveProperty('targetAgents');
    expect(permissionPlan(permission({ tool_ref: 'mcp:github.*', apply_mode: 'scoped', target_agents: ['planner-bot'] }), []).permission).toBeUndefined();
  });
});
