import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { TimeSeriesQuery } from '../../../../shared/history';
import { FakeBackend, renderWithBackend } from '../invoke/testing/FakeBackend';
import { stubLayout } from '../history/testing/stubLayout';
import { ToolMetricsChart } from './ToolMetricsChart';

stubLayout();

describe('ToolMetricsChart', () => {
  it("asks for the tool's last hour per minute and shows its totals", async () => {
    const backend = new FakeBackend().answer('metrics.timeSeries', (input) => {
      const q = input as TimeSeriesQuery;
      return { since: q.since, until: q.until, bucketMs: q.bucketMs, series: [{ points: [{ t: 0, count: 47, errors: 0, errorRate: 0, p50: 0.3, p95: 1.5, p99: 2 }] }] };
    });
    renderWithBackend(<ToolMetricsChart source="mcp:everything" tool="echo" />, backend);

    expect(await screen.findByText('47')).toBeInTheDocument();
    expect(screen.getByText('1.5 ms')).toBeInTheDocument();
    expect(screen.getByRole('figure', { name: 'Calls and latency of echo, last hour' })).toBeInTheDocument();
    await waitFor(() => expect(backend.callsTo('metrics.timeSeries').length).toBeGreaterThanOrEqual(2));
    const queries = backend.callsTo('metrics.timeSeries') as TimeSeriesQuery[];
    for (const q of queries) {
      expect(q.filter).toEqual({ sourceKind: 'mcp', sourceName: 'everything', tool: 'echo' });
      expect(q.until - q.since).toBe(3_600_000);
    }
    expect(queries.some((q) => q.bucketMs === 60_000)).toBe(true);
  });
});
