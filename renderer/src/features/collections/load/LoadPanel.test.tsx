import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { Collection } from '../../../../../shared/collections';
import type { LoadSummary, LoadTick } from '../../../../../shared/loadRuns';
import { NavigationProvider } from '../../../shell/useSection';
import { stubLayout } from '../../history/testing/stubLayout';
import { FakeBackend, renderWithBackend } from '../../invoke/testing/FakeBackend';
import { CollectionsView } from '../CollectionsView';

stubLayout();

const collection: Collection = { name: 'smoke', variables: {}, requests: [{ name: 'echo', target: 'mcp:everything', tool: 'echo', arguments: { message: 'hi' }, assertions: [], capture: {} }] };
const tick = (second: number, extra: Partial<LoadTick> = {}): LoadTick => ({
  second,
  at: 1_700_000_000_000 + second * 1000,
  asked: 20,
  sent: 20,
  completed: 20,
  errors: 0,
  errorsByCode: {},
  p50: 1.2,
  p95: 3.4,
  p99: 8.1,
  max: 9,
  inFlight: 1,
  waiting: 0,
  ...extra,
});
const figures = { p50: 1.3, p75: 2, p90: 3, p95: 3.5, p99: 8.2, p999: 12.5, max: 13, mean: 1.8 };
const summary: LoadSummary = {
  runId: 'load-1',
  collection: 'smoke',
  startedAt: 1_700_000_000_000,
  durationMs: 2_004,
  settings: { rps: 20, durationMs: 2_000, rampUpMs: 0, concurrency: 100, thresholds: ['p95<200ms', 'error_rate<1%'] },
  scheduled: 40,
  sent: 40,
  requests: 40,
  dropped: 0,
  askedRps: 20,
  achievedRps: 19.5,
  errors: 1,
  errorsByCode: { Timeout: 1 },
  latency: figures,
  serviceTime: figures,
  perRequest: [{ name: 'echo', tool: 'mcp:everything.echo', requests: 40, errors: 1, latency: figures }],
  thresholds: [
    { expression: 'p95<200ms', passed: true, actual: 3.5, message: 'p95 3.5 ms meets < 200 ms' },
    { expression: 'error_rate<1%', passed: false, actual: 0.025, message: 'error_rate 2.5% fails < 1%' },
  ],
  timeline: [tick(1), tick(2, { errors: 1, errorsByCode: { Timeout: 1 } })],
  connectFailures: [],
  canceled: false,
  ok: false,
};

function renderView() {
  const fake = new FakeBackend()
    .answer('collections.list', () => [{ name: 'smoke', requestCount: 1 }])
    .answer('collections.read', () => ({ collection, text: 'name: smoke\n' }))
    .answer('tools.list', () => [])
    .answer('collections.stopLoad', () => ({ stopped: true }));
  renderWithBackend(
    <NavigationProvider>
      <CollectionsView />
    </NavigationProvider>,
    fake,
  );
  return fake;
}

describe('Load test in the Collections section', () => {
  it('starts a load run with the settings, shows it second by second, stops it at the server and shows the verdict', async () => {
    const user = userEvent.setup();
    const fake = renderView();
    await user.click(await screen.findByText('Load test'));
    const rate = screen.getByRole('textbox', { name: 'Rate' });
    await user.clear(rate);
    await user.type(rate, '20');
    const duration = screen.getByRole('textbox', { name: 'Duration' });
    await user.clear(duration);
    await user.type(duration, '2');
    expect(screen.getByText('About 40 calls.')).toBeInTheDocument();
    await user.type(screen.getByRole('combobox', { name: 'Thresholds' }), 'p95 < soon{Enter}');
    expect(await screen.findByText(/is not a threshold/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Start load test' }));

    const [load] = fake.subscriptionsTo('collections.load');
    expect(load!.input).toEqual({ name: 'smoke', rps: 20, durationMs: 2_000, rampUpMs: 0, concurrency: 100, thresholds: ['p95<200ms', 'error_rate<1%'] });
    load!.emit({ type: 'load-started', runId: 'load-1', collection: 'smoke', settings: summary.settings, at: 0 });
    load!.emit({ type: 'load-tick', runId: 'load-1', tick: tick(1) });
    const panel = await screen.findByLabelText('Load run');
    expect(within(panel).getByRole('status')).toHaveTextContent('20/s for 2 s, at most 100 in flight · 1 s of 2 s');
    expect(within(screen.getByRole('group', { name: 'p95' })).getByText('3.4 ms')).toBeInTheDocument();
    expect(within(screen.getByRole('figure', { name: 'Thresholds' })).getAllByText('waiting for the end of the run')).toHaveLength(2);

    await user.click(within(panel).getByRole('button', { name: 'Stop' }));
    await waitFor(() => expect(fake.callsTo('collections.stopLoad')).toEqual([{ runId: 'load-1' }]));
    // Two calls were in flight when Stop was pressed: sent, canceled, and not measured.
    load!.emit({ type: 'load-finished', runId: 'load-1', summary: { ...summary, sent: summary.requests + 2 }, at: 0 });

    expect(await within(panel).findByText('1 threshold failed')).toBeInTheDocument();
    expect(within(screen.getByRole('group', { name: 'Calls' })).getByText('2 canceled by Stop')).toBeInTheDocument();
    expect(within(screen.getByRole('group', { name: 'Throughput' })).getByText('19.5/s')).toBeInTheDocument();
    expect(within(screen.getByRole('group', { name: 'p99.9' })).getByText('13 ms')).toBeInTheDocument();
    expect(within(screen.getByRole('figure', { name: 'Thresholds' })).getByText('error_rate 2.5% fails < 1%')).toBeInTheDocument();
    expect(within(screen.getByRole('table', { name: 'Per request' })).getByText('mcp:everything.echo')).toBeInTheDocument();
    expect(load!.closed).toBe(true);
  });
});
