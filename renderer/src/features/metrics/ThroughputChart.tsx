import { Group } from '@mantine/core';
import { useMemo } from 'react';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ChartCard, LegendDot } from './ChartCard';
import { ChartTooltip } from './ChartTooltip';
import { AXIS_PROPS, CURSOR_FILL, GRID_STROKE, SERIES_COLOR } from './chartStyle';
import { formatBucketSize, formatBucketTime, formatCount } from './formatMetric';
import type { TimeSeriesChartProps } from './LatencyChart';

/** Calls per bucket, stacked: the ones that succeeded and the ones that did not. */
export function ThroughputChart({ points, bucketMs, spanMs, height = 220 }: TimeSeriesChartProps) {
  const data = useMemo(() => points.map((p) => ({ t: p.t, ok: p.count - p.errors, errors: p.errors })), [points]);
  const hasData = points.some((p) => p.count > 0);
  return (
    <ChartCard
      title="Throughput"
      subtitle={`Calls per ${formatBucketSize(bucketMs)}`}
      height={height}
      empty={hasData ? undefined : 'No calls in this range'}
      aside={
        <Group gap="sm">
          <LegendDot color={SERIES_COLOR.ok} label="ok" />
          <LegendDot color={SERIES_COLOR.errors} label="not ok" />
        </Group>
      }
    >
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 600, height }}>
        <BarChart data={data} margin={{ top: 6, right: 8, bottom: 0, left: 0 }} barCategoryGap="18%">
          <CartesianGrid stroke={GRID_STROKE} strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="t" {...AXIS_PROPS} tickFormatter={(t: number) => formatBucketTime(t, bucketMs, spanMs)} minTickGap={48} />
          <YAxis {...AXIS_PROPS} axisLine={false} width={48} allowDecimals={false} tickFormatter={(v: number) => formatCount(v)} />
          <Tooltip
            cursor={{ fill: CURSOR_FILL }}
            isAnimationActive={false}
            content={(props) => <ChartTooltip {...props} formatLabel={(t) => formatBucketTime(Number(t), bucketMs, spanMs)} formatValue={(v) => formatCount(v)} />}
          />
          <Bar dataKey="ok" name="ok" stackId="calls" fill={SERIES_COLOR.ok} isAnimationActive={false} maxBarSize={24} />
          <Bar dataKey="errors" name="not ok" stackId="calls" fill={SERIES_COLOR.errors} isAnimationActive={false} maxBarSize={24} radius={[2, 2, 0, 0]} />
        </BarChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}
