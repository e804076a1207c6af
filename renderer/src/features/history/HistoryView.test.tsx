import { screen, waitFor, within } from '@testing-library/react';
import userEvent, { type UserEvent } from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { BreakdownRow, InvocationListQuery } from '../../../../shared/history';
import type { InvocationRecord } from '../../../../shared/invocation';
import { NavigationProvider } from '../../shell/useSection';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { outcomeOf, toolView } from '../invoke/testing/fixtures';
import { HistoryView } from './HistoryView';
import { stubLayout } from './testing/stubLayout';

const NOW = Date.now();

function call(id: string, overrides: Partial<InvocationRecord> = {}): InvocationRecord {
  return {
    id,
    startedAt: NOW - 60_000,
    sourceKind: 'mcp',
    sourceName: 'everything',
    tool: 'echo',
    argumentsJson: '{"message":"hi"}',
    status: 'ok',
    latencyMs: 3,
    requestBytes: 80,
    responseBytes: 120,
    resultPreview: '{"content":[{"type":"text","text":"Echo: hi"}]}',
    truncated: false,
    ...overrides,
  };
}

function seen(source: string, tool: string): BreakdownRow {
  return { group: { key: `${source}/${tool}`, source, tool }, count: 1, errors: 0, errorRate: 0, p50: 1, p95: 1, p99: 1 };
}

/** A backend holding `records`; list answers newest first and honours the tool filter like the store. */
function backendWith(records: InvocationRecord[]) {
  const byNewest = () => [...records].sort((a, b) => b.startedAt - a.startedAt);
  return new FakeBackend()
    .answer('history.list', (input) => ({ items: byNewest().filter((r) => !(input as InvocationListQuery).tool || r.tool === (input as InvocationListQuery).tool) }))
    .answer('history.count', () => records.length)
    .answer('metrics.breakdown', () => [seen('mcp:everything', 'echo'), seen('mcp:everything', 'get-sum'), seen('a2a:planner', 'plan')])
    .answer('history.get', (input) => ({ record: records.find((r) => r.id === (input as { id: string }).id), transcript: [] }))
    .answer('tools.get', () => toolView({ name: 'mcp:everything.echo', source: { kind: 'mcp', name: 'everything' }, toolName: 'echo' }))
    .answer('history.export', () => '[]');
}

function renderHistory(backend: FakeBackend) {
  return renderWithBackend(
    <NavigationProvider>
      <HistoryView />
    </NavigationProvider>,
    backend,
  );
}

async function choose(user: UserEvent, control: string, ...options: (string | RegExp)[]) {
  await user.click(screen.getByRole('combobox', { name: control }));
  for (const option of options) await user.click(await screen.findByRole('option', { name: option }));
}

/** The newest list query's filter and page size (the paging fields tRPC adds are left out). */
function lastListQuery(backend: FakeBackend): InvocationListQuery {
  const { direction: _direction, cursor: _cursor, ...query } = backend.callsTo('history.list').at(-1) as InvocationListQuery & { direction?: string };
  return query;
}

function dataRows() {
  return within(screen.getByRole('grid', { name: 'Calls' })).getAllByRole('row').slice(1);
}

stubLayout();
beforeEach(() => window.history.replaceState(null, '', '/history'));

describe('HistoryView', () => {
  it('turns the filter controls into the list query and exports with the same filter', async () => {
    const user = userEvent.setup();
    const backend = backendWith([call('c1')]);
    renderHistory(backend);
    await screen.findByRole('grid', { name: 'Calls' });
    expect(lastListQuery(backend)).toEqual({ limit: 200 });

    await choose(user, 'Source', 'mcp:everything');
    await choose(user, 'Tool', 'echo');
    await choose(user, 'Status', /^Error/, 'Timeout');
    const before = Date.now();
    await choose(user, 'Time range', 'Last hour');
    await user.type(screen.getByRole('textbox', { name: 'Search' }), 'boom');

    await waitFor(() => expect(lastListQuery(backend).text).toBe('boom'));
    const query = lastListQuery(backend);
    expect(query).toEqual({ sourceKind: 'mcp', sourceName: 'everything', tool: 'echo', status: ['error', 'timeout'], since: expect.any(Number), text: 'boom', limit: 200 });
    expect(query.since).toBeGreaterThanOrEqual(before - 3_600_000);
    expect(query.since).toBeLessThanOrEqual(Date.now() - 3_600_000);
    const { limit: _limit, ...filter } = query;
    expect(backend.callsTo('history.count').at(-1)).toEqual(filter);

    const clicked: string[] = [];
    URL.createObjectURL = vi.fn(() => 'blob:calls');
    URL.revokeObjectURL = vi.fn();
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.download);
    });
    await user.click(screen.getByRole('button', { name: 'Export' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Export as CSV' }));
    await waitFor(() => expect(clicked).toHaveLength(1));
    expect(clicked[0]).toMatch(/\.csv$/);
    expect(backend.callsTo('history.export')).toEqual([{ filter, format: 'csv' }]);
    click.mockRestore();
  });

  it('puts live calls that match the filters on top and leaves the others out', async () => {
    const user = userEvent.setup();
    const backend = backendWith([call('old', { latencyMs: 11 })]);
    renderHistory(backend);
    await screen.findByText('11 ms');
    await waitFor(() => expect(backend.subscriptionsTo('history.live')).toHaveLength(1));
    const live = backend.subscriptionsTo('history.live')[0]!;

    live.emit(call('new-1', { startedAt: Date.now(), latencyMs: 222 }));
    expect(within(dataRows()[0]!).getByText('222 ms')).toBeInTheDocument();
    expect(within(dataRows()[1]!).getByText('11 ms')).toBeInTheDocument();

    await choose(user, 'Tool', 'echo');
    await waitFor(() => expect(lastListQuery(backend).tool).toBe('echo'));
    live.emit(call('new-2', { startedAt: Date.now(), tool: 'get-sum', latencyMs: 333 }));
    live.emit(call('new-3', { startedAt: Date.now(), latencyMs: 444 }));
    await waitFor(() => expect(within(dataRows()[0]!).getByText('444 ms')).toBeInTheDocument());
    expect(screen.queryByText('333 ms')).not.toBeInTheDocument();
  });

  it('replays the selected call, shows the new outcome and selects the new call', async () => {
    const user = userEvent.setup();
    const original = call('orig', { latencyMs: 12 });
    const records = [original];
    const replayed = outcomeOf({ content: [{ type: 'text', text: 'Echo: hi (again)' }] }, {}, { ...original, id: 'again', startedAt: Date.now(), latencyMs: 9, replayOf: 'orig' });
    const backend = backendWith(records).answer('history.replay', () => {
      records.push(replayed.record);
      return replayed;
    });
    renderHistory(backend);

    await user.click(within(await screen.findByRole('grid', { name: 'Calls' })).getByText('12 ms'));
    expect(window.location.search).toBe('?call=orig');
    const details = screen.getByRole('complementary', { name: 'Call details' });
    await user.click(await within(details).findByRole('button', { name: 'Replay' }));

    expect(backend.callsTo('history.replay')).toEqual([{ id: 'orig' }]);
    const outcome = await within(details).findByRole('region', { name: 'Replay outcome' });
    expect(within(outcome).getByText('Success')).toBeInTheDocument();
    expect(within(outcome).getByText('Echo: hi (again)')).toBeInTheDocument();
    expect(window.location.search).toBe('?call=again');
    const top = dataRows()[0]!;
    expect(top).toHaveAttribute('aria-selected', 'true');
    expect(within(top).getByRole('img', { name: 'Replay of orig' })).toBeInTheDocument();
  });

  it('shows who called and how in a Via column, and filters by the way in and by the caller', async () => {
    const user = userEvent.setup();
    const backend = backendWith([
      call('by-agent', { via: 'gateway', agent: 'planner-bot', startedAt: NOW - 1_000 }),
      call('by-operator', { via: 'cli', startedAt: NOW - 2_000 }),
      call('before-callers', { startedAt: NOW - 3_000 }),
    ]);
    renderHistory(backend);
    await screen.findByRole('grid', { name: 'Calls' });
    expect(screen.getByRole('columnheader', { name: 'Via' })).toBeInTheDocument();
    await waitFor(() => expect(dataRows()).toHaveLength(3));
    const [agentRow, operatorRow, olderRow] = dataRows();
    const viaCell = (row: HTMLElement) => within(row).getAllByRole('cell')[4]!;
    expect(viaCell(agentRow!)).toHaveTextContent('Gatewayplanner-bot');
    expect(within(viaCell(agentRow!)).getByTitle('via Gateway by agent planner-bot')).toBeInTheDocument();
    expect(viaCell(operatorRow!)).toHaveTextContent(/^CLI$/);
    expect(viaCell(olderRow!)).toHaveTextContent(/^$/);
    await user.click(agentRow!);
    expect(await screen.findByText('agent planner-bot via Gateway')).toBeInTheDocument();

    await choose(user, 'Way in', 'Gateway');
    await waitFor(() => expect(lastListQuery(backend)).toEqual({ via: 'gateway', limit: 200 }));
    await choose(user, 'Caller', 'planner-bot');
    await waitFor(() => expect(lastListQuery(backend)).toEqual({ via: 'gateway', agent: 'planner-bot', limit: 200 }));
    await choose(user, 'Caller', 'Operator');
    await waitFor(() => expect(lastListQuery(backend)).toEqual({ via: 'gateway', agent: null, limit: 200 }));
  });
});
