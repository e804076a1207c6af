import { ModalsProvider } from '@mantine/modals';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { GatewayAgentOverview, GatewayCallView } from '../../../../shared/gateway';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { stubLayout } from '../history/testing/stubLayout';
import { GatewayView } from './GatewayView';
import { agentNameProblem } from './NewCredentialModal';

const reader: GatewayAgentOverview = { name: 'reader', createdAt: '2026-11-28T10:00:00.000Z', granted: [{ name: 'everything.echo', entry: 'mcp:everything.echo' }], sessions: 1 };
const running = { running: true, url: 'http://127.0.0.1:7411/mcp', host: '127.0.0.1', port: 7411 };

function call(overrides: Partial<GatewayCallView>): GatewayCallView {
  return { id: 'g1', agent: 'reader', tool: 'mcp:everything.echo', startedAt: Date.now(), state: 'done', status: 'ok', latencyMs: 4, recordId: 'r1', ...overrides };
}

function renderGateway(backend: FakeBackend) {
  return renderWithBackend(
    <ModalsProvider>
      <GatewayView />
    </ModalsProvider>,
    backend,
  );
}

stubLayout();
beforeEach(() => window.history.replaceState(null, '', '/gateway'));

describe('GatewayView', () => {
  it('says what to do when the gateway is off and no agent holds a credential, and starts it on the chosen port', async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend()
      .onSubscribe('gateway.watch', (sub) => sub.emit({ status: { running: false }, agents: [] }))
      .onSubscribe('gateway.watchTraffic', (sub) => sub.emit({ sessions: [], calls: [] }))
      .answer('gateway.start', (input) => ({ ...running, port: (input as { port: number }).port }));
    renderGateway(backend);
    expect(await screen.findByRole('heading', { name: 'No agent credentials yet' })).toBeVisible();
    expect(screen.getByRole('heading', { name: 'The gateway is off' })).toBeVisible();
    // The snippet shows the URL the gateway will have, and the stdio line.
    expect(screen.getByLabelText('URL')).toHaveTextContent('http://127.0.0.1:7411/mcp');
    expect(screen.getByLabelText('Header')).toHaveTextContent('Authorization: Bearer NAME:SECRET');

    const port = screen.getByRole('textbox', { name: 'Port' });
    await user.clear(port);
    await user.type(port, '7999');
    await user.click(screen.getByRole('switch', { name: /Serve the gateway/ }));
    await waitFor(() => expect(backend.callsTo('gateway.start')).toEqual([{ port: 7999 }]));
  });

  it('creates a credential after refusing a bad name, and shows it once with a copy button and how to use it', async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend()
      .onSubscribe('gateway.watch', (sub) => sub.emit({ status: running, agents: [reader] }))
      .onSubscribe('gateway.watchTraffic', (sub) => sub.emit({ sessions: [], calls: [] }))
      .answer('gateway.createCredential', (input) => ({ credential: `${(input as { name: string }).name}:s3cr3t` }))
      .answer('gateway.declaredAgents', () => ['builder', 'reader']);
    renderGateway(backend);
    await user.click(await screen.findByRole('button', { name: 'New credential' }));
    const dialog = await screen.findByRole('dialog', { name: 'New agent credential' });
    const name = within(dialog).getByRole('textbox', { name: 'Agent name' });
    await user.type(name, 'bad name');
    expect(within(dialog).getByText('An agent name is 1–64 letters, digits, dots, dashes or underscores, starting with a letter or digit.')).toBeVisible();
    expect(within(dialog).getByRole('button', { name: 'Create credential' })).toBeDisabled();

    await user.clear(name);
    await user.type(name, 'reader');
    expect(within(dialog).getByText(/reader already holds a credential: the new one replaces it/)).toBeVisible();
    // The workspace's agents without a live credential are offered (reader has one), beside the field rather than over the buttons.
    await user.clear(name);
    const declared = within(dialog).getByRole('group', { name: 'Agents the workspace declares' });
    expect(within(declared).queryByRole('button', { name: 'reader' })).toBeNull();
    await user.click(within(declared).getByRole('button', { name: 'builder' }));
    expect(name).toHaveValue('builder');
    await user.click(within(dialog).getByRole('button', { name: 'Create credential' }));

    const shown = await screen.findByRole('dialog', { name: 'Credential for builder' });
    expect(within(shown).getByLabelText('New credential')).toHaveTextContent('builder:s3cr3t');
    expect(within(shown).getByRole('button', { name: 'Copy credential' })).toBeVisible();
    expect(within(shown).getByLabelText('Header')).toHaveTextContent('Authorization: Bearer builder:s3cr3t');
    expect(within(shown).getByText(/shown this once/)).toBeVisible();
    expect(backend.callsTo('gateway.createCredential')).toEqual([{ name: 'builder' }]);

    // Closed, it is gone: opening the dialog again asks for a name.
    await user.click(within(shown).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByText('builder:s3cr3t')).toBeNull());
    await user.click(screen.getByRole('button', { name: 'New credential' }));
    expect(await screen.findByRole('dialog', { name: 'New agent credential' })).toBeVisible();
  });

  it('lists agents with their granted tools on expand, links to History and Metrics by agent, and revokes after a confirmation', async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend()
      .onSubscribe('gateway.watch', (sub) => sub.emit({ status: running, agents: [reader, { name: 'old', createdAt: '2026-11-27T10:00:00.000Z', revokedAt: '2026-11-28T09:00:00.000Z', granted: [], sessions: 0 }] }))
      .onSubscribe('gateway.watchTraffic', (sub) => sub.emit({ sessions: [], calls: [] }))
      .answer('gateway.revoke', () => undefined)
      .answer('agents.list', () => [
        { name: 'reader', doors: { credential: { createdAt: reader.createdAt } }, models: ['mock/*', 'openai/gpt-4o'], toolCount: 1 },
        { name: 'old', doors: {}, models: [], toolCount: 0 },
      ]);
    renderGateway(backend);
    const row = await screen.findByRole('row', { name: 'reader' });
    expect(within(row).getByText('Live')).toBeVisible();
    expect(within(screen.getByRole('row', { name: 'old' })).getByText('Revoked')).toBeVisible();
    expect(within(screen.getByRole('row', { name: 'old' })).getByRole('button', { name: 'Revoke old' })).toBeDisabled();

    await user.click(within(row).getByRole('button', { name: '1 granted tools of reader' }));
    expect(screen.getByLabelText('Tools granted to reader')).toHaveTextContent('everything.echo');

    await user.click(within(row).getByRole('button', { name: 'Revoke reader' }));
    const confirm = await screen.findByRole('dialog', { name: 'Revoke reader?' });
    await user.click(within(confirm).getByRole('button', { name: 'Revoke' }));
    await waitFor(() => expect(backend.callsTo('gateway.revoke')).toEqual([{ name: 'reader' }]));

    await user.click(within(row).getByRole('button', { name: 'Metrics of reader' }));
    expect(`${window.location.pathname}${window.location.search}`).toBe('/metrics?agent=reader');
    await user.click(within(row).getByRole('button', { name: 'History of reader' }));
    expect(`${window.location.pathname}${window.location.search}`).toBe('/history?agent=reader');

    // Each agent's models (deny by default: none), and its name opens what it may do and why.
    expect(await within(row).findByText('models: mock/*, openai/gpt-4o')).toBeVisible();
    expect(within(screen.getByRole('row', { name: 'old' })).getByText('no model')).toBeVisible();
    await user.click(within(row).getByRole('button', { name: 'reader' }));
    expect(`${window.location.pathname}${window.location.search}`).toBe('/agentRights?agent=reader');
  });

  it('shows calls as they happen: running, held with its approval, done with latency and outcome', async () => {
    const backend = new FakeBackend()
      .onSubscribe('gateway.watch', (sub) => sub.emit({ status: running, agents: [reader] }))
      .onSubscribe('gateway.watchTraffic', (sub) => sub.emit({ sessions: [], calls: [] }));
    renderGateway(backend);
    expect(await screen.findByRole('heading', { name: 'No calls yet' })).toBeVisible();
    const traffic = backend.subscriptionsTo('gateway.watchTraffic')[0]!;
    traffic.emit({
      sessions: [{ id: 's1', agent: 'reader', era: '2025-11-25', clientName: 'claude-code', openedAt: Date.now(), lastActiveAt: Date.now(), calls: 3 }],
      calls: [
        call({ id: 'g3', state: 'running', status: undefined, latencyMs: undefined, recordId: undefined }),
        call({ id: 'g2', tool: 'mcp:everything.get-sum', state: 'held', approval: 'reader-get-sum-7f3a', status: undefined, latencyMs: undefined, recordId: undefined }),
        call({ id: 'g1', latencyMs: 1250 }),
      ],
    });
    const table = await screen.findByRole('table', { name: 'Live calls' });
    expect(within(table).getByRole('row', { name: 'reader mcp:everything.echo Running' })).toBeVisible();
    const held = within(table).getByRole('row', { name: 'reader mcp:everything.get-sum Held' });
    expect(within(held).getByLabelText('Approval reader-get-sum-7f3a')).toHaveTextContent('reader-get-sum-7f3a');
    const done = within(table).getByRole('row', { name: 'reader mcp:everything.echo Done' });
    expect(done).toHaveTextContent('1.25 s');
    expect(within(done).getByText('OK')).toBeVisible();
    expect(within(screen.getByRole('table', { name: 'Sessions' })).getByText('claude-code')).toBeVisible();
    const endpoint = screen.getByRole('region', { name: 'Gateway endpoint' });
    expect(within(endpoint).getByRole('group', { name: 'Held' })).toHaveTextContent('1');
    expect(within(endpoint).getByRole('group', { name: 'Running' })).toHaveTextContent('1');
    expect(within(endpoint).getByRole('group', { name: 'Sessions' })).toHaveTextContent('1');

    await userEvent.setup().click(within(done).getByRole('button', { name: 'Open call g1 in History' }));
    expect(`${window.location.pathname}${window.location.search}`).toBe('/history?call=r1');
  });
});

describe('agentNameProblem', () => {
  it('accepts names an agent credential can carry and explains the others', () => {
    expect(agentNameProblem('reader')).toBeUndefined();
    expect(agentNameProblem('team.bot-2_x')).toBeUndefined();
    expect(agentNameProblem('')).toBeUndefined();
    expect(agentNameProblem('a:b')).toMatch(/^An agent name is/);
    expect(agentNameProblem('-x')).toMatch(/starting with a letter or digit\.$/);
  });
});
