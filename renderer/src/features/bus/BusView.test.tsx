import { ModalsProvider } from '@mantine/modals';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { BusExchangeView } from '../../../../shared/bus';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { stubLayout } from '../history/testing/stubLayout';
import { BusView } from './BusView';

const connected = { state: 'connected' as const, url: 'amqp://bridge:***@127.0.0.1:5672', agent: 'tooldeck', queue: 'rockbot.mcp-bridge.tooldeck' };

function exchange(overrides: Partial<BusExchangeView>): BusExchangeView {
  return { id: 1, messageId: 'm1', agent: 'scout', tool: 'echo', server: 'everything', startedAt: Date.now(), latencyMs: 4, outcome: 'ok', recordId: 'r1', ...overrides };
}

stubLayout();
beforeEach(() => window.history.replaceState(null, '', '/bus'));

describe('BusView', () => {
  it('says the bridge is off and starts it with the broker URL and the bridge name', async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend().onSubscribe('bus.watch', (sub) => sub.emit({ status: { state: 'stopped' }, recent: [], perAgent: [] })).answer('bus.start', () => connected);
    renderWithBackend(<BusView />, backend);
    expect(await screen.findByRole('heading', { name: 'The bridge is off' })).toBeVisible();
    const url = screen.getByLabelText(/Broker URL/);
    await user.clear(url);
    await user.type(url, 'amqp://bridge:pw@broker:5672');
    const name = screen.getByRole('textbox', { name: /Bridge name/ });
    await user.clear(name);
    await user.type(name, 'fleet');
    await user.click(screen.getByRole('button', { name: 'Start the bridge' }));
    await waitFor(() => expect(backend.callsTo('bus.start')).toEqual([{ url: 'amqp://bridge:pw@broker:5672', agent: 'fleet', discover: true, trustRbSource: false }]));
  });

  it('shows the masked broker, requests and replies newest first with their outcome, totals per agent, and stops', async () => {
    const user = userEvent.setup();
    const recent = [exchange({ id: 1, tool: 'echo' }), exchange({ id: 2, agent: 'rogue', tool: 'get-sum', outcome: 'execution_failed', latencyMs: 2 }), exchange({ id: 3, tool: 'get-tiny-image', outcome: undefined, latencyMs: undefined })];
    const backend = new FakeBackend()
      .onSubscribe('bus.watch', (sub) => sub.emit({ status: connected, recent, perAgent: [{ agent: 'scout', requests: 1, errors: 0 }, { agent: 'rogue', requests: 1, errors: 1 }] }))
      .answer('bus.stop', () => ({ state: 'stopped' }))
      .answer('bus.deadLetters', () => []);
    renderWithBackend(<BusView />, backend);
    expect(await screen.findByLabelText('Broker')).toHaveTextContent('amqp://bridge:***@127.0.0.1:5672');
    expect(screen.getByLabelText('Connection state')).toHaveTextContent('Connected');
    const rows = within(screen.getByRole('table', { name: 'Requests and replies' })).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell')[2]!.textContent)).toEqual(['get-tiny-image', 'get-sum', 'echo']);
    expect(rows[0]).toHaveTextContent('Running');
    expect(rows[1]).toHaveTextContent('execution_failed');
    expect(rows[2]).toHaveTextContent('Result');
    expect(screen.getByRole('group', { name: 'Agent rogue' })).toHaveTextContent('1 request, 1 error');
    await user.click(screen.getByRole('button', { name: 'Stop the bridge' }));
    await waitFor(() => expect(backend.callsTo('bus.stop')).toHaveLength(1));
  });

  it('lists the dead letters and replays one or purges them', async () => {
    const user = userEvent.setup();
    const letter = { queue: 'rockbot.mcp-bridge.tooldeck.dlq', messageId: 'dead1', type: 'RockBot.Tools.ToolInvokeRequest', source: 'scout', reason: 'rejected', bridgeReason: 'it has no reply_to, so no answer could reach its sender', bodyPreview: '{"toolName":"echo"}' };
    const backend = new FakeBackend()
      .onSubscribe('bus.watch', (sub) => sub.emit({ status: connected, recent: [], perAgent: [] }))
      .answer('bus.deadLetters', () => [letter])
      .answer('bus.replayDeadLetters', () => ({ replayed: 1 }))
      .answer('bus.purgeDeadLetters', () => ({ purged: 1 }));
    renderWithBackend(
      <ModalsProvider>
        <BusView />
      </ModalsProvider>,
      backend,
    );
    const table = await screen.findByRole('table', { name: 'Dead letters' });
    expect(table).toHaveTextContent('rockbot.mcp-bridge.tooldeck.dlq');
    expect(table).toHaveTextContent('it has no reply_to, so no answer could reach its sender');
    await user.click(within(table).getByRole('button', { name: 'Replay dead1' }));
    await waitFor(() => expect(backend.callsTo('bus.replayDeadLetters')).toEqual([{ messageIds: ['dead1'] }]));
    await user.click(screen.getByRole('button', { name: 'Purge' }));
    // Asked once more: nothing is purged until the dialog's Purge.
    const dialog = await screen.findByRole('dialog', { name: 'Purge the dead letter?' });
    expect(backend.callsTo('bus.purgeDeadLetters')).toHaveLength(0);
    await user.click(within(dialog).getByRole('button', { name: 'Purge' }));
    await waitFor(() => expect(backend.callsTo('bus.purgeDeadLetters')).toHaveLength(1));
  });

  it('shows the other bridges on the bus and their tools, each opening its bus: entry in Tools', async () => {
    const user = userEvent.setup();
    const peers = [
      { agent: 'weather', lastSeenAt: Date.now(), servers: [{ serverName: 'forecasts', summary: '2 tools', tools: ['forecast', 'delete_city'] }, { serverName: 'everything', tools: ['echo'] }] },
      { agent: 'archive', lastSeenAt: Date.now(), servers: [] },
    ];
    const backend = new FakeBackend()
      .onSubscribe('bus.watch', (sub) => sub.emit({ status: { ...connected, discovery: true }, recent: [], perAgent: [], peers }))
      .answer('bus.deadLetters', () => []);
    renderWithBackend(<BusView />, backend);
    const table = await screen.findByRole('table', { name: 'Other bridges on the bus' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell').slice(0, 3).map((cell) => cell.textContent))).toEqual([
      ['weather', 'forecasts', 'forecastdelete_city'],
      ['', 'everything', 'echo'],
      ['archive', '—', ''],
    ]);
    await user.click(within(table).getByRole('button', { name: 'forecast' }));
    await waitFor(() => expect(window.location.search).toContain(encodeURIComponent('bus:weather.forecast')));
  });

  it('starts the bridge without discovery when its switch is off, and then shows no other bridges', async () => {
    const user = userEvent.setup();
    const backend = new FakeBackend().onSubscribe('bus.watch', (sub) => sub.emit({ status: { state: 'stopped' }, recent: [], perAgent: [], peers: [] })).answer('bus.start', () => connected);
    renderWithBackend(<BusView />, backend);
    await user.click(await screen.findByRole('switch', { name: /Offer other bridges/ }));
    await user.click(screen.getByRole('button', { name: 'Start the bridge' }));
    await waitFor(() => expect(backend.callsTo('bus.start')).toEqual([expect.objectContaining({ discover: false })]));
    expect(screen.queryByRole('table', { name: 'Other bridges on the bus' })).toBeNull();
  });

  it('starts the bridge trusting rb-source only when asked, and then warns that any publisher can claim any agent', async () => {
    const user = userEvent.setup();
    let status: object = { state: 'stopped' };
    const backend = new FakeBackend()
      .onSubscribe('bus.watch', (sub) => sub.emit({ status, recent: [], perAgent: [], peers: [] }))
      .answer('bus.start', () => (status = { ...connected, trustRbSource: true }))
      .answer('bus.deadLetters', () => []);
    const { unmount } = renderWithBackend(<BusView />, backend);
    await user.click(await screen.findByRole('switch', { name: /Trust rb-source/ }));
    await user.click(screen.getByRole('button', { name: 'Start the bridge' }));
    await waitFor(() => expect(backend.callsTo('bus.start')).toEqual([expect.objectContaining({ trustRbSource: true })]));
    unmount();
    renderWithBackend(<BusView />, backend);
    expect(await screen.findByText(/can call as any agent/)).toBeVisible();
  });

  it('says the calling agent is the broker user it vouches for when rb-source is not trusted', async () => {
    const backend = new FakeBackend().onSubscribe('bus.watch', (sub) => sub.emit({ status: { ...connected, trustRbSource: false }, recent: [], perAgent: [] })).answer('bus.deadLetters', () => []);
    renderWithBackend(<BusView />, backend);
    expect(await screen.findByText(/broker user RabbitMQ vouches for \(user_id\)/)).toBeVisible();
    expect(screen.queryByText(/can call as any agent/)).toBeNull();
  });
});
