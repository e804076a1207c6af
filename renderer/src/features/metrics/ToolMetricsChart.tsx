import { Group, Paper, Text } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { Bar, CartesianGrid, ComposedChart, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { InvocationRecord } from '../../../../shared/invocation';
import { useTRPC } from '../../rpc/client';
import { splitSource } from '../history/historyFilter';
import { LegendDot } from './ChartCard';
import { ChartTooltip } from './ChartTooltip';
import { AXIS_PROPS, CURSOR_FILL, GRID_STROKE, SERIES_COLOR } from './chartStyle';
import { formatBucketTime, formatCount, formatLatency, formatPercent } from './formatMetric';
import { HOUR_MS, MINUTE_MS, wholeWindowBucketMs } from './timeRange';
import { useLiveNow } from './useLiveNow';

export interface ToolMetricsChartProps {
  /** `kind:name`, e.g. `mcp:everything`. */
  source: string;
  /** The tool's own name at its source, e.g. `echo`. */
  tool: string;
  height?: number;
}

/** One tool's last hour: calls per minute as bars, p50/p95 latency as lines, updated as it is called. */
export function ToolMetricsChart({ source, tool, height = 140 }: ToolMetricsChartProps) {
  const trpc = useTRPC();
  const filter = useMemo(() => ({ ...splitSource(source), tool }), [source, tool]);
  const accept = useCallback((r: InvocationRecord) => r.tool === tool && `${r.sourceKind}:${r.sourceName}` === source, [source, tool]);
  const { now } = useLiveNow({ live: true, accept, tickMs: MINUTE_MS });
  const since = now - HOUR_MS;

  const summary = useQuery({ ...trpc.metrics.timeSeries.queryOptions({ since, until: now, bucketMs: wholeWindowBucketMs(now), filter }), placeholderData: keepPreviousData });
  const series = useQuery({ ...trpc.metrics.timeSeries.queryOptions({ since, until: now, bucketMs: MINUTE_MS, filter }), placeholderData: keepPreviousData });
  const kpi = summary.data?.series[0]?.points[0];
  const points = series.data?.series[0]?.points ?? [];
  const empty = summary.data !== undefined && (kpi?.count ?? 0) === 0;

  return (
    <Paper withBorder radius="md" p="sm" role="figure" aria-label={`Calls and latency of ${tool}, last hour`}>
      <Group justify="space-between" mb={4} gap="xs">
        <Text size="xs" fw={600}>
          Last hour
        </Text>
        {kpi && kpi.count > 0 ? (
          <Group gap="md">
            <Stat label="calls" value={formatCount(kpi.count)} />
            <Stat label="errors" value={formatPercent(kpi.errorRate)} color={kpi.errorRate > 0 ? 'red' : undefined} />
            <Stat label="p50" value={formatLatency(kpi.p50)} />
            <Stat label="p95" value={formatLatency(kpi.p95)} />
          </Group>
        ) : null}
      </Group>
      {empty ? (
        <Text size="xs" c="dimmed" py="md" ta="center">
          No calls in the last hour. Calls from anywhere (this form, the CLI, replays) show up here.
        </Text>
      ) : (
        <>
          <div style={{ height }}>
            <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 480, height }}>
              <ComposedChart data={points} margin={{ top: 4, right: 4, bottom: 0, left: 0 }}>
                <CartesianGrid stroke={GRID_STROKE} strokeDasharray="3 3" vertical={false} />
                <XAxis dataKey="t" {...AXIS_PROPS} tickFormatter={(t: number) => formatBucketTime(t, MINUTE_MS, HOUR_MS)} minTickGap={40} />
                <YAxis yAxisId="latency" {...AXIS_PROPS} axisLine={false} width={66} tickFormatter={(v: number) => formatLatency(v)} />
                <YAxis yAxisId="calls" orientation="right" {...AXIS_PROPS} axisLine={false} width={32} allowDecimals={false} />
                <Tooltip
                  cursor={{ fill: CURSOR_FILL }}
                  isAnimationActive={false}
                  content={(props) => (
                    <ChartTooltip {...props} formatLabel={(t) => formatBucketTime(Number(t), MINUTE_MS, HOUR_MS)} formatValue={(v, name) => (name === 'calls' ? formatCount(v) : formatLatency(v))} />
                  )}
                />
                <Bar yAxisId="calls" dataKey="count" name="calls" fill={SERIES_COLOR.ok} fillOpacity={0.35} maxBarSize={10} isAnimationActive={false} />
                <Line yAxisId="latency" type="monotone" dataKey="p50" name="p50" stroke={SERIES_COLOR.p50} strokeWidth={1.8} dot={false} isAnimationActive={false} />
                <Line yAxisId="latency" type="monotone" dataKey="p95" name="p95" stroke={SERIES_COLOR.p95} strokeWidth={1.5} dot={false} isAnimationActive={false} />
              </ComposedChart>
            </ResponsiveContainer>
          </div>
          <Group gap="sm" mt={4}>
            <LegendDot color={SERIES_COLOR.ok} label="calls / min" />
            <LegendDot color={SERIES_COLOR.p50} label="p50" />
            <LegendDot color={SERIES_COLOR.p95} label="p95" />
          </Group>
        </>
      )}
    </Paper>
  );
}

function Stat({ label, value, color }: { label: string; value: string; color?: string }) {
  return (
    <Text size="xs" c="dimmed">
      {label}{' '}
      <Text span size="xs" fw={600} ff="monospace" c={color ?? 'var(--mantine-color-text)'}>
        {value}
      </Text>
    </Text>
  );
}
