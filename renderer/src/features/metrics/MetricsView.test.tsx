import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { BreakdownQuery, BreakdownRow, LatencySummary, TimeSeriesQuery, TimeSeriesResult } from '../../../../shared/history';
import { NavigationProvider } from '../../shell/useSection';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { stubLayout } from '../history/testing/stubLayout';
import { MetricsView } from './MetricsView';

const WINDOW_TOTALS: LatencySummary = { count: 1234, errors: 37, errorRate: 0.03, p50: 0.42, p95: 7.5, p99: 250 };
const PER_BUCKET: LatencySummary = { count: 2, errors: 1, errorRate: 0.5, p50: 1, p95: 2, p99: 3 };

function row(source: string, tool?: string): BreakdownRow {
  return { group: { key: tool ? `${source}/${tool}` : source, source, ...(tool ? { tool } : {}) }, ...PER_BUCKET };
}

/** Answers like the store: one point per bucket of the window (a single one for the totals). */
function timeSeries(query: TimeSeriesQuery, totals: LatencySummary, perBucket: LatencySummary | undefined): TimeSeriesResult {
  const first = Math.floor(query.since / query.bucketMs);
  const last = Math.floor((query.until - 1) / query.bucketMs);
  const each = last === first ? totals : perBucket;
  const points = each ? Array.from({ length: last - first + 1 }, (_, i) => ({ t: (first + i) * query.bucketMs, ...each })) : [];
  return { since: query.since, until: query.until, bucketMs: query.bucketMs, series: each ? [{ points }] : [] };
}

/** `perBucket: undefined` answers the per-bucket series with nothing, which keeps chart drawing out of a test. */
function metricsBackend({ totals = WINDOW_TOTALS, perBucket = PER_BUCKET as LatencySummary | undefined, everRecorded = 1234 } = {}) {
  return new FakeBackend()
    .answer('metrics.timeSeries', (input) => timeSeries(input as TimeSeriesQuery, totals, perBucket))
    .answer('metrics.breakdown', (input) => (totals.count === 0 ? [] : (input as BreakdownQuery).by === 'tool' ? [row('mcp:everything', 'echo'), row('mcp:everything', 'get-sum')] : [row('mcp:everything')]))
    .answer('metrics.histogram', () => ({ total: 3, buckets: [{ lowerMs: 0, upperMs: 1, count: 2 }, { lowerMs: 1, upperMs: 5, count: 1 }, { lowerMs: 5, upperMs: null, count: 0 }] }))
    .answer('metrics.exporters', () => ({
      settings: { prometheus: { enabled: false, port: 9464 }, otlp: { enabled: false, url: '', intervalMs: 60_000 } },
      status: {},
      tracing: { settings: { otlp: { enabled: false, url: '' } }, status: {} },
    }))
    .answer('history.count', () => everRecorded);
}

function renderMetrics(backend: FakeBackend) {
  return renderWithBackend(
    <NavigationProvider>
      <MetricsView />
    </NavigationProvider>,
    backend,
  );
}

const seriesQueries = (backend: FakeBackend) => backend.callsTo('metrics.timeSeries') as TimeSeriesQuery[];

stubLayout();
beforeEach(() => window.history.replaceState(null, '', '/metrics'));

describe('MetricsView', () => {
  it('shows the totals of the range as KPIs, the four charts, and narrows to a tool picked in the breakdown', async () => {
    const user = userEvent.setup();
    const backend = metricsBackend();
    renderMetrics(backend);

    const dashboard = screen.getByRole('region', { name: 'Metrics dashboard' });
    expect(await within(dashboard).findByText('1,234')).toBeInTheDocument();
    expect(within(within(dashboard).getByRole('group', { name: 'Calls' })).getByText('1,234')).toBeInTheDocument();
    expect(within(dashboard).getByRole('group', { name: 'Error rate' })).toHaveTextContent('3%');
    expect(within(dashboard).getByRole('group', { name: 'p50' })).toHaveTextContent('0.42 ms');
    expect(within(dashboard).getByRole('group', { name: 'p95' })).toHaveTextContent('7.5 ms');
    expect(within(dashboard).getByRole('group', { name: 'p99' })).toHaveTextContent('250 ms');
    for (const chart of ['Latency percentiles', 'Throughput', 'Error rate', 'Latency histogram']) {
      expect(within(dashboard).getByRole('figure', { name: chart })).toBeInTheDocument();
    }

    await user.click(await screen.findByRole('button', { name: 'Filter to mcp:everything/echo' }));
    const echo = { sourceKind: 'mcp', sourceName: 'everything', tool: 'echo' };
    await waitFor(() => expect(seriesQueries(backend).at(-1)?.filter).toEqual(echo));
    expect(backend.callsTo('metrics.histogram').at(-1)).toMatchObject({ filter: echo });
    expect(screen.getByText('Tool: echo (mcp:everything)')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Clear filter' }));
    await waitFor(() => expect(seriesQueries(backend).at(-1)?.filter).toBeUndefined());
  });

  it('narrows every chart and breakdown to one agent when a link names it (?agent=, from the Gateway section), and keeps it on the way to History', async () => {
    window.history.replaceState(null, '', '/metrics?agent=reader');
    const user = userEvent.setup();
    const backend = metricsBackend();
    renderMetrics(backend);
    expect(await screen.findByText('Agent: reader')).toBeInTheDocument();
    await waitFor(() => expect(seriesQueries(backend).at(-1)?.filter).toEqual({ agent: 'reader' }));
    expect(backend.callsTo('metrics.histogram').at(-1)).toMatchObject({ filter: { agent: 'reader' } });
    expect((backend.callsTo('metrics.breakdown') as BreakdownQuery[]).every((query) => query.filter?.agent === 'reader')).toBe(true);

    await user.click(screen.getByRole('button', { name: 'View these calls in History' }));
    expect(new URLSearchParams(window.location.search).get('agent')).toBe('reader');
  });

  it('drops the agent filter when its badge is cleared', async () => {
    window.history.replaceState(null, '', '/metrics?agent=reader');
    const user = userEvent.setup();
    const backend = metricsBackend();
    renderMetrics(backend);
    await user.click(await screen.findByRole('button', { name: 'Clear agent filter' }));
    await waitFor(() => expect(seriesQueries(backend).at(-1)?.filter).toBeUndefined());
  });

  it('picks the bucket size from the range: 15 min → 15 s, 1 h → 1 min, 24 h → 15 min, 7 d → 2 h', async () => {
    const user = userEvent.setup();
    const backend = metricsBackend({ perBucket: undefined });
    renderMetrics(backend);
    const ranges: [string, number, number][] = [
      ['Last hour', 3_600_000, 60_000],
      ['Last 15 minutes', 900_000, 15_000],
      ['Last 24 hours', 86_400_000, 900_000],
      ['Last 7 days', 604_800_000, 7_200_000],
    ];
    for (const [label, span, bucket] of ranges) {
      if (label !== 'Last hour') {
        await user.click(screen.getByRole('combobox', { name: 'Time range' }));
        await user.click(await screen.findByRole('option', { name: label }));
      }
      await waitFor(() => expect(seriesQueries(backend).some((q) => q.bucketMs === bucket && q.until - q.since === span)).toBe(true));
      expect(await screen.findByText(new RegExp(`${label} · `))).toBeInTheDocument();
    }
  });

  it('explains how to get data when nothing was ever recorded', async () => {
    const empty: LatencySummary = { count: 0, errors: 0, errorRate: 0, p50: null, p95: null, p99: null };
    renderMetrics(metricsBackend({ totals: empty, perBucket: empty, everRecorded: 0 }));
    expect(await screen.findByText('No calls recorded yet')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Open Tools' })).toBeInTheDocument();
    expect(within(screen.getByRole('group', { name: 'Calls' })).getByText('0')).toBeInTheDocument();
  });
});
