import { describe, expect, it } from 'vitest';
import { agentCaller, operatorCaller } from '../../../shared/caller';
import type { ToolHold } from '../../../shared/lock';
import { createToolEntry } from '../createToolEntry';
import { EffectivePolicy } from './EffectivePolicy';
import type { ToolPermission } from './ToolPermission';

const entry = createToolEntry({ source: { kind: 'mcp', name: 'fs' }, tool: { name: 'remove', annotations: { destructiveHint: false, readOnlyHint: false } }, config: { operation_classes: ['delete'] } });
const denyDeletes: ToolPermission[] = [{ name: 'no-removes', toolRef: 'mcp:fs.*', operationRules: [{ operationClass: 'delete', verdict: 'deny' }] }];

describe('EffectivePolicy verdicts', () => {
  it('answers from its cache while the permission list and the hold are the same, and anew once either is replaced', () => {
    let permissions: readonly ToolPermission[] = [];
    let hold: ToolHold | undefined = undefined;
    const policy = new EffectivePolicy({ permissions: () => permissions, holds: () => hold });

    const allowed = policy.verdict(entry);
    expect(allowed.verdict).toBe('allow');
    expect(policy.verdict(entry)).toBe(allowed);

    permissions = denyDeletes;
    const denied = policy.verdict(entry);
    expect(denied.verdict).toBe('deny');
    expect(denied.reasons).toEqual(['no-removes: delete → deny']);

    permissions = [];
    hold = { source: 'mcp:fs', tool: 'remove', state: 'new', hash: `sha256:${'0'.repeat(64)}`, changes: [], reason: 'a new tool, not yet in tooldeck.lock' };
    const held = policy.verdict(entry);
    expect(held.verdict).toBe('confirm');
    expect(held.hold).toBe(hold);
  });

  it('applies a permission scoped to agents to those agents’ calls only, never to the operator’s or another agent’s', () => {
    const scoped: ToolPermission[] = [{ ...denyDeletes[0]!, name: 'planner-no-removes', targetAgents: ['planner-bot'] }];
    const policy = new EffectivePolicy({ permissions: () => scoped });
    expect(policy.verdict(entry, agentCaller('planner-bot', 'gateway')).verdict).toBe('deny');
    expect(policy.verdict(entry, agentCaller('planner-bot', 'gateway')).reasons).toEqual(['planner-no-removes: delete → deny']);
    expect(policy.verdict(entry, agentCaller('triage-bot', 'gateway')).verdict).toBe('allow');
    expect(policy.verdict(entry, operatorCaller('ui')).verdict).toBe('allow');
    // What views show (no caller) is the operator's verdict.
    expect(policy.verdict(entry).verdict).toBe('allow');
    // An agent named like the operator is still an agent: only target_agents decide.
    expect(policy.verdict(entry, agentCaller('operator', 'bus')).verdict).toBe('allow');
  });
});
