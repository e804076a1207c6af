import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AgentListItem, AgentView } from '../../../../shared/agents';
import type { InvocationRecord } from '../../../../shared/invocation';
import { stubLayout } from '../history/testing/stubLayout';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { AgentRightsView } from './AgentRightsView';

const podOrigin = { kind: 'ClawPod', file: 'agents.claw-pod.yml', rule: 'services.assistant.x-claw.tools: mcp:everything allow [echo, get-sum, get-tiny-image]' } as const;
const permissionOrigin = { kind: 'ToolPermission', file: 'permissions.yaml', rule: 'ToolPermission assistant-images-need-approval: tool_ref mcp:everything.get-tiny-image, target_agents [assistant]' } as const;
const languageAgentOrigin = { kind: 'LanguageAgent', file: 'agent.yaml', rule: 'LanguageAgent assistant: spec.tools everything' } as const;

function record(overrides: Partial<InvocationRecord>): InvocationRecord {
  return { id: 'r1', startedAt: Date.UTC(2026, 11, 8, 9, 30), sourceKind: 'mcp', sourceName: 'everything', tool: 'echo', argumentsJson: '{}', status: 'ok', latencyMs: 12, requestBytes: 10, responseBytes: 20, resultPreview: '', truncated: false, via: 'gateway', agent: 'assistant', ...overrides };
}

const assistant: AgentView = {
  name: 'assistant',
  doors: { credential: { createdAt: '2026-12-08T09:00:00.000Z' }, bus: true },
  tools: [
    { name: 'mcp:everything.echo', grantedBy: [podOrigin, languageAgentOrigin], verdict: 'allow' },
    { name: 'mcp:everything.get-tiny-image', grantedBy: [podOrigin, permissionOrigin, languageAgentOrigin], verdict: 'approval_required' },
    { name: 'mcp:everything.trigger-long-running-operation', grantedBy: [languageAgentOrigin], verdict: 'deny', withheld: 'policy denies it for assistant' },
  ],
  models: [],
  sessions: [{ id: 'sess-1', agent: 'assistant', era: '2025-11-25', clientName: 'claude-code', openedAt: Date.UTC(2026, 11, 8, 9, 0), lastActiveAt: Date.UTC(2026, 11, 8, 9, 30), calls: 2 }],
  recentCalls: [record({ id: 'r1' }), record({ id: 'r2', tool: 'get-tiny-image', status: 'denied', via: 'bus' })],
};

const reader: AgentView = { name: 'reader', doors: {}, tools: [], models: ['mock/*'], dailyTokenBudget: 5000, tokensToday: 1200, sessions: [], recentCalls: [] };

function listItem(view: AgentView): AgentListItem {
  return { name: view.name, doors: view.doors, models: view.models, toolCount: view.tools.length };
}

function backendWith(...views: AgentView[]) {
  const byName = new Map(views.map((view) => [view.name, view]));
  return new FakeBackend()
    .answer('agents.list', () => [...byName.values()].map(listItem))
    .answer('agents.show', (input) => {
      const view = byName.get((input as { name: string }).name);
      if (!view) throw { code: 'NotFound', message: `No agent named ${(input as { name: string }).name}.`, retryable: false };
      return view;
    })
    .answer('agents.grantModels', (input) => {
      const { name, models, dailyTokens } = input as { name: string; models: string[]; dailyTokens?: number | null };
      const view = byName.get(name)!;
      const { dailyTokenBudget: _previous, ...rest } = view;
      byName.set(name, { ...rest, models, ...(dailyTokens ? { dailyTokenBudget: dailyTokens } : {}) });
      return models;
    });
}

const here = () => `${window.location.pathname}${window.location.search}`;

stubLayout(1400, 900);
beforeEach(() => window.history.replaceState(null, '', '/agentRights'));

describe('AgentRightsView', () => {
  it('says where tools are granted and where a credential is made when there is no agent', async () => {
    const user = userEvent.setup();
    renderWithBackend(<AgentRightsView />, backendWith());
    expect(await screen.findByRole('heading', { name: 'No agents yet' })).toBeVisible();
    expect(screen.getByText(/claw-pod\.yml .* ToolPermission scoped to it .* LanguageAgent/)).toBeVisible();
    await user.click(screen.getByRole('button', { name: 'Open Gateway' }));
    expect(here()).toBe('/gateway');
  });

  it('lists agents with their doors, tool counts and models, and shows the first one’s tools: the verdict for it and every place that grants each', async () => {
    const user = userEvent.setup();
    const backend = backendWith(assistant, reader);
    renderWithBackend(<AgentRightsView />, backend);

    const list = await screen.findByRole('list', { name: 'Agents' });
    const assistantRow = within(list).getByRole('listitem', { name: 'assistant' });
    expect(assistantRow).toHaveAttribute('aria-current', 'true');
    expect(within(assistantRow).getByRole('group', { name: 'Doors of assistant' })).toHaveTextContent('credentialbus');
    expect(assistantRow).toHaveTextContent('3 tools');
    expect(assistantRow).toHaveTextContent('no model');
    const readerRow = within(list).getByRole('listitem', { name: 'reader' });
    expect(within(readerRow).getByRole('group', { name: 'Doors of reader' })).toHaveTextContent('no door yet');
    expect(readerRow).toHaveTextContent('models: mock/*');

    const tools = await screen.findByRole('table', { name: 'Tools granted to assistant' });
    const image = within(tools).getByRole('row', { name: /^mcp:everything\.get-tiny-image/ });
    expect(within(image).getByLabelText('Verdict for assistant: approval_required')).toHaveTextContent('approval_required');
    const origins = within(image).getByRole('list', { name: 'Where mcp:everything.get-tiny-image is granted' });
    expect(within(origins).getAllByRole('listitem').map((item) => item.getAttribute('aria-label'))).toEqual(['ClawPod agents.claw-pod.yml', 'ToolPermission permissions.yaml', 'LanguageAgent agent.yaml']);
    expect(origins).toHaveTextContent('target_agents [assistant]');
    expect(within(within(tools).getByRole('row', { name: /^mcp:everything\.echo/ })).getByLabelText('Verdict for assistant: allow')).toBeVisible();

    // A granted tool policy denies for the agent is listed, not offered, and says why.
    const denied = within(tools).getByRole('row', { name: /^mcp:everything\.trigger-long-running-operation/ });
    expect(within(denied).getByLabelText('Verdict for assistant: deny')).toBeVisible();
    expect(within(denied).getByText('not offered')).toBeVisible();
    expect(within(denied).getByLabelText('Why mcp:everything.trigger-long-running-operation is not offered')).toHaveTextContent('policy denies it for assistant');

    // Each file opens in Resources.
    await user.click(within(origins).getByRole('button', { name: 'permissions.yaml' }));
    expect(here()).toBe('/resources?file=permissions.yaml');

    // Picking another agent puts it in the URL and reads it.
    window.history.replaceState(null, '', '/agentRights');
    await user.click(readerRow);
    expect(here()).toBe('/agentRights?agent=reader');
    expect(await screen.findByRole('heading', { name: 'reader' })).toBeVisible();
    expect(backend.callsTo('agents.show')).toContainEqual({ name: 'reader' });
    expect(screen.getByText(/Nothing is granted to reader: it may call no tool\./)).toBeVisible();
    expect(screen.getByRole('button', { name: 'create a credential in Gateway' })).toBeVisible();
    expect(screen.getByLabelText('Daily token budget')).toHaveValue('5,000');
    expect(screen.getByText('1200 of 5000 spent today (UTC)')).toBeVisible();
  }, 45_000);

  it('grants models (deny by default until then) with a daily budget, and refuses a pattern the backend would', async () => {
    const user = userEvent.setup();
    const backend = backendWith(assistant);
    renderWithBackend(<AgentRightsView />, backend);
    const models = await screen.findByRole('region', { name: 'Models' });
    expect(within(models).getByLabelText('Models granted to assistant')).toHaveTextContent('deny by default: no model');
    const save = within(models).getByRole('button', { name: 'Save models' });
    expect(save).toBeDisabled();

    const patterns = within(models).getByRole('combobox', { name: 'Model patterns' });
    // Pasted rather than typed key by key: the test is about the grant, not the keyboard, and stays quick on a loaded machine.
    await user.click(patterns);
    await user.paste('mock/gpt$4');
    await user.keyboard('{Enter}');
    expect(within(models).getByText(/^"mock\/gpt\$4": a model pattern is <provider>\/<model>/)).toBeVisible();
    expect(save).toBeDisabled();
    await user.keyboard('{Backspace}');
    await user.paste('mock/*');
    await user.keyboard('{Enter}');
    await user.click(within(models).getByRole('textbox', { name: 'Daily token budget' }));
    await user.paste('5000');
    await user.click(save);
    await waitFor(() => expect(backend.callsTo('agents.grantModels')).toEqual([{ name: 'assistant', models: ['mock/*'], dailyTokens: 5000 }]));
    // The view reads the agent again: what is stored now shows.
    await waitFor(() => expect(within(screen.getByRole('region', { name: 'Models' })).getByLabelText('Models granted to assistant')).toHaveTextContent('May use mock/*'));
    expect(within(screen.getByRole('listitem', { name: 'assistant' })).getByText('models: mock/*')).toBeVisible();
  }, 45_000);

  it('leaves a cluster agent’s models to its LanguageAgent annotation', async () => {
    const clusterAgent: AgentView = { name: 'planner', doors: { cluster: true }, tools: [], models: ['openai/*'], sessions: [], recentCalls: [] };
    renderWithBackend(<AgentRightsView />, backendWith(clusterAgent));
    const models = await screen.findByRole('region', { name: 'Models' });
    expect(within(models).getByLabelText('Models granted to planner')).toHaveTextContent('May use openai/*');
    expect(within(models).getByText(/tooldeck\.dev\/models/)).toBeVisible();
    expect(within(models).getByRole('combobox', { name: 'Model patterns' })).toBeDisabled();
    expect(within(models).getByRole('button', { name: 'Save models' })).toBeDisabled();
  });

  it('shows open sessions and recent calls, each call a link to its record in History', async () => {
    const user = userEvent.setup();
    renderWithBackend(<AgentRightsView />, backendWith(assistant));
    const sessions = await screen.findByRole('list', { name: 'Sessions of assistant' });
    expect(sessions).toHaveTextContent('claude-code');
    const calls = screen.getByRole('table', { name: 'Recent calls of assistant' });
    const denied = within(calls).getByRole('row', { name: 'mcp:everything.get-tiny-image denied' });
    expect(within(denied).getByText('Denied')).toBeVisible();
    expect(denied).toHaveTextContent('bus');
    await user.click(within(calls).getByRole('button', { name: 'Open call r1 in History' }));
    expect(here()).toBe('/history?call=r1');
  });

  it('reads the agents again when the gateway says grants, credentials or sessions changed', async () => {
    const backend = backendWith(assistant);
    renderWithBackend(<AgentRightsView />, backend);
    await screen.findByRole('table', { name: 'Tools granted to assistant' });
    const before = backend.callsTo('agents.list').length;
    backend.subscriptionsTo('gateway.watch')[0]!.emit({ status: { running: false }, agents: [] });
    await waitFor(() => expect(backend.callsTo('agents.list').length).toBeGreaterThan(before));
  });

  it('reads the shown agent again as each of its calls is recorded', async () => {
    const backend = backendWith(assistant, reader);
    renderWithBackend(<AgentRightsView />, backend);
    await screen.findByRole('table', { name: 'Tools granted to assistant' });
    const live = backend.subscriptionsTo('history.live')[0]!;
    const shown = () => backend.callsTo('agents.show').length;
    const before = shown();
    live.emit(record({ id: 'r10', agent: 'assistant' }));
    await waitFor(() => expect(shown()).toBe(before + 1));
    expect(backend.callsTo('agents.show').at(-1)).toEqual({ name: 'assistant' });
  });

  it('says so when the agent asked for in the URL does not exist', async () => {
    window.history.replaceState(null, '', '/agentRights?agent=ghost');
    renderWithBackend(<AgentRightsView />, backendWith(assistant));
    expect(await screen.findByText('No agent named ghost.')).toBeVisible();
  });
});
