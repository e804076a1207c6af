import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Collection, RequestResult, RunEvent, RunSummary } from '../../../../shared/collections';
import { NavigationProvider } from '../../shell/useSection';
import { stubLayout } from '../history/testing/stubLayout';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { CollectionsView } from './CollectionsView';

stubLayout();

const collection: Collection = {
  name: 'smoke',
  variables: { greeting: 'hello', token: '{{secret:API_TOKEN}}' },
  requests: [
    { name: 'echo hello', target: 'mcp:everything', tool: 'echo', arguments: { message: '{{greeting}}' }, assertions: [{ status: 'ok' }], capture: {} },
    { name: 'echo bye', target: 'mcp:everything', tool: 'echo', arguments: { message: 'bye' }, assertions: [{ path: 'text', equals: 'Echo: hello' }], capture: {} },
  ],
};

const passed: RequestResult = { index: 0, name: 'echo hello', tool: 'mcp:everything.echo', status: 'passed', durationMs: 9, latencyMs: 7, assertions: [{ description: 'status ok', passed: true, message: 'status ok' }], captured: {} };
const failed: RequestResult = {
  index: 1,
  name: 'echo bye',
  tool: 'mcp:everything.echo',
  status: 'failed',
  durationMs: 8,
  latencyMs: 6,
  assertions: [{ description: 'text equals "Echo: hello"', passed: false, message: 'expected "Echo: hello"', actual: 'Echo: bye' }],
  captured: {},
};
const summary: RunSummary = {
  runId: 'run-1',
  collection: 'smoke',
  startedAt: 1_700_000_000_000,
  durationMs: 20,
  requests: { total: 2, passed: 1, failed: 1, errored: 0, skipped: 0 },
  assertions: { total: 2, passed: 1, failed: 1 },
  results: [passed, failed],
  connectFailures: [],
  canceled: false,
  ok: false,
};

function backend() {
  return new FakeBackend()
    .answer('collections.list', () => [{ name: 'smoke', requestCount: 2 }])
    .answer('collections.read', () => ({ collection, text: 'name: smoke\n' }))
    .answer('tools.list', () => [])
    .answer('collections.report', () => '<testsuites/>');
}

function renderView(fake: FakeBackend) {
  return renderWithBackend(
    <NavigationProvider>
      <CollectionsView />
    </NavigationProvider>,
    fake,
  );
}

describe('CollectionsView', () => {
  it('runs a collection with the chosen options and shows each request’s state live, then a failing assertion’s actual value', async () => {
    const user = userEvent.setup();
    const fake = backend();
    renderView(fake);

    expect(await screen.findByRole('listitem', { name: 'smoke' })).toBeInTheDocument();
    expect(screen.getByRole('list', { name: 'Collections' })).toBeInTheDocument();
    await user.click(await screen.findByRole('checkbox', { name: 'Stop at first failure' }));
    await user.click(screen.getByRole('button', { name: 'Run' }));

    const [run] = fake.subscriptionsTo('collections.run');
    expect(run!.input).toEqual({ name: 'smoke', concurrency: 1, bail: true });
    const at = 1_700_000_000_000;
    const emit = (event: RunEvent) => run!.emit(event);
    emit({ type: 'run-started', runId: 'run-1', collection: 'smoke', requests: collection.requests.map((r) => ({ name: r.name, tool: 'mcp:everything.echo' })), at });
    emit({ type: 'request-started', runId: 'run-1', index: 0, name: 'echo hello', tool: 'mcp:everything.echo', at });

    const table = await screen.findByRole('table', { name: 'Run results' });
    const rowOf = (name: string) => within(table).getByText(name).closest('tr')!;
    expect(within(rowOf('echo hello')).getByText('running')).toBeInTheDocument();
    expect(within(rowOf('echo bye')).getByText('pending')).toBeInTheDocument();
    expect(screen.getByText('Running: 0 of 2 done')).toBeInTheDocument();

    emit({ type: 'request-finished', runId: 'run-1', result: passed, at });
    expect(within(rowOf('echo hello')).getByText('passed')).toBeInTheDocument();
    expect(screen.getByText('Running: 1 of 2 done')).toBeInTheDocument();

    emit({ type: 'request-started', runId: 'run-1', index: 1, name: 'echo bye', tool: 'mcp:everything.echo', at });
    emit({ type: 'request-finished', runId: 'run-1', result: failed, at });
    emit({ type: 'run-finished', runId: 'run-1', summary, at });

    expect(within(rowOf('echo bye')).getByText('failed')).toBeInTheDocument();
    expect(within(rowOf('echo bye')).getByText('0 passed, 1 failed')).toBeInTheDocument();
    const failure = screen.getByRole('listitem', { name: 'Failed: text equals "Echo: hello"' });
    expect(within(failure).getByText('expected "Echo: hello"')).toBeInTheDocument();
    expect(within(failure).getByText(/Echo: bye/)).toBeInTheDocument();
    expect(screen.getByText(/1 passed, 1 failed, 0 errored, 0 skipped/)).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Download JUnit' }));
    await waitFor(() => expect(fake.callsTo('collections.report')).toEqual([{ runId: 'run-1', format: 'junit' }]));
  });

  it('stops the run at the server when the operator stops it', async () => {
    const user = userEvent.setup();
    const fake = backend();
    renderView(fake);
    await user.click(await screen.findByRole('button', { name: 'Run' }));
    const [run] = fake.subscriptionsTo('collections.run');
    run!.emit({ type: 'run-started', runId: 'run-2', collection: 'smoke', requests: collection.requests.map((r) => ({ name: r.name, tool: 'mcp:everything.echo' })), at: 0 });

    await user.click(await screen.findByRole('button', { name: 'Stop run' }));
    expect(run!.closed).toBe(true);
    const table = screen.getByRole('table', { name: 'Run results' });
    expect(within(table).getAllByText('skipped')).toHaveLength(2);
  });

  it('shows secret references among the variables as secrets', async () => {
    const user = userEvent.setup();
    renderView(backend());
    await user.click(await screen.findByRole('tab', { name: 'Variables' }));
    expect(screen.getByRole('textbox', { name: 'Variable 2 value' })).toHaveValue('{{secret:API_TOKEN}}');
    expect(screen.getAllByText('secret')).toHaveLength(1);
  });
});
