import { Group, SegmentedControl } from '@mantine/core';
import { useState } from 'react';
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { TimeSeriesPoint } from '../../../../shared/history';
import { ChartCard, LegendDot } from './ChartCard';
import { ChartTooltip } from './ChartTooltip';
import { AXIS_PROPS, GRID_STROKE, SERIES_COLOR } from './chartStyle';
import { formatBucketSize, formatBucketTime, formatLatency } from './formatMetric';

export interface TimeSeriesChartProps {
  points: TimeSeriesPoint[];
  bucketMs: number;
  spanMs: number;
  height?: number;
}

const PERCENTILES = ['p50', 'p95', 'p99'] as const;

/** With this few non-empty buckets, lines between them mislead (and lone points vanish): draw dots too. */
export const SPARSE_POINTS = 30;

/** p50/p95/p99 per bucket as lines; empty buckets leave gaps rather than dropping to zero. */
export function LatencyChart({ points, bucketMs, spanMs, height = 220 }: TimeSeriesChartProps) {
  const [scale, setScale] = useState<'linear' | 'log'>('linear');
  const hasData = points.some((p) => p.count > 0);
  const sparse = points.filter((p) => p.count > 0).length <= SPARSE_POINTS;
  return (
    <ChartCard
      title="Latency percentiles"
      subtitle={`Per ${formatBucketSize(bucketMs)} bucket`}
      height={height}
      empty={hasData ? undefined : 'No calls in this range'}
      aside={
        <Group gap="sm">
          {PERCENTILES.map((p) => (
            <LegendDot key={p} color={SERIES_COLOR[p]} label={p} />
          ))}
          <SegmentedControl
            size="xs"
            value={scale}
            onChange={(v) => setScale(v as typeof scale)}
            data={[
              { value: 'linear', label: 'Linear' },
              { value: 'log', label: 'Log' },
            ]}
            aria-label="Latency scale"
          />
        </Group>
      }
    >
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 600, height }}>
        <LineChart data={points} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid stroke={GRID_STROKE} strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="t" {...AXIS_PROPS} tickFormatter={(t: number) => formatBucketTime(t, bucketMs, spanMs)} minTickGap={48} />
          <YAxis
            {...AXIS_PROPS}
            axisLine={false}
            width={68}
            scale={scale}
            domain={scale === 'log' ? ['auto', 'auto'] : [0, 'auto']}
            allowDataOverflow={scale === 'log'}
            tickFormatter={(v: number) => formatLatency(v)}
          />
          <Tooltip
            cursor={{ stroke: GRID_STROKE }}
            isAnimationActive={false}
            content={(props) => <ChartTooltip {...props} formatLabel={(t) => formatBucketTime(Number(t), bucketMs, spanMs)} formatValue={(v) => formatLatency(v)} />}
          />
          {PERCENTILES.map((p) => (
            <Line key={p} type="monotone" dataKey={p} name={p} stroke={SERIES_COLOR[p]} strokeWidth={p === 'p50' ? 2 : 1.6} dot={sparse ? { r: 2.5, fill: SERIES_COLOR[p] } : false} activeDot={{ r: 3.5 }} isAnimationActive={false} />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}
