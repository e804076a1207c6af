import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { toolView } from '../invoke/testing/fixtures';
import { explainRisk, ToolDetail } from './ToolDetail';

describe('ToolDetail risk', () => {
  it('says why a delete-class tool is allowed and that its low risk is only the default', async () => {
    const user = userEvent.setup();
    // As the registry builds it from a server that says only "not read-only": MCP reads a missing
    // destructiveHint as destructive, so the class is delete; no Tool resource, so risk_level is
    // Orloj's default; no ToolPermission, so the verdict is allow (isDestructive wants an explicit hint).
    const tool = toolView({ name: 'mcp:demo.drop_table', toolName: 'drop_table', annotations: { readOnlyHint: false }, policy: { riskLevel: 'low', operationClasses: ['delete'] } });
    expect(tool.verdict.verdict).toBe('allow');
    renderWithBackend(<ToolDetail tool={tool} />, new FakeBackend());

    // The header's green badge (the Invoke panel repeats it).
    expect(screen.getAllByRole('button', { name: 'Policy for you: allow' }).length).toBeGreaterThan(0);
    // Never a bare "risk: low" beside the green badge.
    expect(screen.queryByText('risk: low')).not.toBeInTheDocument();
    const risk = screen.getByText('risk: low (default — no risk_level set)');
    expect(screen.getByText('delete allowed: no rule covers it')).toBeInTheDocument();

    await user.hover(risk);
    const tooltip = await screen.findByRole('tooltip');
    expect(tooltip).toHaveTextContent('No Tool resource sets a risk_level for this tool, so Orloj’s default, low, applies');
    expect(tooltip).toHaveTextContent('Operation class delete: from the server’s annotations (not read-only and no destructiveHint, which MCP reads as destructive)');
    expect(tooltip).toHaveTextContent('it does not decide the verdict');
  });

  it("draws the server's behaviour hints as overridden when a Tool resource declares the class, and the class as declared", () => {
    // server-everything's trigger-long-running-operation: read-only and idempotent by its annotations, write by the example's Tool resource.
    const tool = toolView({
      name: 'mcp:everything.trigger-long-running-operation',
      toolName: 'trigger-long-running-operation',
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
      policy: { riskLevel: 'medium', operationClasses: ['write'], setBy: { riskLevel: true, operationClasses: true } },
    });
    renderWithBackend(<ToolDetail tool={tool} />, new FakeBackend());
    expect(screen.queryByText('read-only')).not.toBeInTheDocument();
    expect(screen.queryByText('idempotent')).not.toBeInTheDocument();
    expect(screen.getByText('server hints overridden: read-only, idempotent')).toBeInTheDocument();
    expect(screen.getByLabelText(/^server hints overridden: read-only, idempotent: .*a Tool's declared class wins over the server's annotations/)).toBeInTheDocument();
    expect(screen.getByText('write · declared')).toBeInTheDocument();
    // A hint that says nothing of the class stays.
    expect(screen.getByText('open world')).toBeInTheDocument();
  });

  it("names each agent granted the tool with the verdict for it, beside the operator's, linked to its rights", async () => {
    const user = userEvent.setup();
    const tool = toolView({ name: 'mcp:everything.get-tiny-image', toolName: 'get-tiny-image', annotations: { readOnlyHint: true } });
    const agent = (name: string, tools: Array<{ name: string; verdict: string }>) => ({ name, doors: {}, tools: tools.map((entry) => ({ ...entry, grantedBy: [] })), models: [], sessions: [], recentCalls: [] });
    const backend = new FakeBackend()
      .answer('agents.list', () => [
        { name: 'assistant', doors: {}, models: [], toolCount: 3 },
        { name: 'reader', doors: {}, models: [], toolCount: 1 },
        { name: 'idle', doors: {}, models: [], toolCount: 0 },
      ])
      .answer('agents.show', (input) =>
        (input as { name: string }).name === 'assistant'
          ? agent('assistant', [{ name: 'mcp:everything.get-tiny-image', verdict: 'approval_required' }, { name: 'mcp:everything.echo', verdict: 'allow' }])
          : agent('reader', [{ name: 'mcp:everything.echo', verdict: 'allow' }]),
      );
    renderWithBackend(<ToolDetail tool={tool} />, backend);
    const verdicts = await screen.findByLabelText('Verdicts for agents');
    expect(verdicts).toHaveTextContent('For agents granted it:for assistant: approval_required');
    expect(verdicts).not.toHaveTextContent('reader');
    expect(backend.callsTo('agents.show')).not.toContainEqual({ name: 'idle' });
    expect(screen.getAllByRole('button', { name: 'Policy for you: allow' }).length).toBeGreaterThan(0);
    await user.click(screen.getByRole('button', { name: 'for assistant: approval_required' }));
    expect(`${window.location.pathname}${window.location.search}`).toBe('/agentRights?agent=assistant');
  });

  it('names the permission that allows a delete class a Tool resource set, and does not call its low risk a default', () => {
    const tool = toolView(
      { name: 'mcp:demo.purge', toolName: 'purge', policy: { riskLevel: 'low', operationClasses: ['delete'] } },
      [{ name: 'ops-may-delete', toolRef: 'mcp:demo.*', operationRules: [{ operationClass: 'delete', verdict: 'allow' }] }],
    );
    renderWithBackend(<ToolDetail tool={tool} />, new FakeBackend());
    expect(screen.getByText('risk: low (Tool resource or default)')).toBeInTheDocument();
    expect(screen.getByText('delete allowed by ops-may-delete')).toBeInTheDocument();
  });

  it('adds nothing beside a read tool, and shows a configured level as set', () => {
    renderWithBackend(<ToolDetail tool={toolView()} />, new FakeBackend());
    expect(screen.getByText('risk: low (default — no risk_level set)')).toBeInTheDocument();
    expect(screen.queryByText(/allowed: no rule covers it/)).not.toBeInTheDocument();

    const high = explainRisk({ policy: { riskLevel: 'high', operationClasses: ['write'] } });
    expect(high.label).toBe('risk: high');
    expect(high.why[0]).toBe('risk_level high is set by a Tool resource (the default is low).');
    expect(high.mismatch).toBe(false);
  });

  it('says a low risk is the Tool resource’s choice when the registry knows a Tool resource set it', () => {
    const chosen = explainRisk({ policy: { riskLevel: 'low', operationClasses: ['delete'], setBy: { riskLevel: true, operationClasses: true } } });
    expect(chosen.label).toBe('risk: low (set by a Tool resource)');
    expect(chosen.why[0]).toBe('risk_level low is set by a Tool resource.');
    expect(chosen.why[1]).toBe('Operation classes delete: set by a Tool resource (operation_classes).');
    expect(chosen.mismatch).toBe(true);

    // Classes from a Tool resource, risk_level left out: the low is Orloj's default, not a choice.
    const classesOnly = explainRisk({ policy: { riskLevel: 'low', operationClasses: ['delete'], setBy: { riskLevel: false, operationClasses: true } } });
    expect(classesOnly.label).toBe('risk: low (default — no risk_level set)');
    expect(classesOnly.why[0]).toMatch(/^No Tool resource sets a risk_level/);
    expect(classesOnly.why[1]).toBe('Operation classes delete: set by a Tool resource (operation_classes).');

    // Nothing configured, and classes that look configured (the default for low is read): still the default.
    const nothing = explainRisk({ annotations: { readOnlyHint: true }, policy: { riskLevel: 'low', operationClasses: ['read'], setBy: { riskLevel: false, operationClasses: false } } });
    expect(nothing.label).toBe('risk: low (default — no risk_level set)');
    expect(nothing.why[1]).toBe('Operation class read: from the server’s annotations.');
  });
});
