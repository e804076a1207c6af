import { useMemo } from 'react';
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { LatencyHistogram } from '../../../../shared/history';
import { ChartCard } from './ChartCard';
import { ChartTooltip } from './ChartTooltip';
import { AXIS_PROPS, CURSOR_FILL, GRID_STROKE, SERIES_COLOR } from './chartStyle';
import { formatBound, formatCount } from './formatMetric';

interface HistogramBar {
  label: string;
  range: string;
  count: number;
}

/** Buckets from the first to the last one with calls, so the shape fills the chart. */
export function histogramBars(histogram: LatencyHistogram): HistogramBar[] {
  const { buckets } = histogram;
  const first = buckets.findIndex((b) => b.count > 0);
  if (first < 0) return [];
  const last = buckets.findLastIndex((b) => b.count > 0);
  return buckets.slice(first, last + 1).map((b) => ({
    label: b.upperMs === null ? `>${formatBound(b.lowerMs)}` : `≤${formatBound(b.upperMs)}`,
    range: b.upperMs === null ? `over ${formatBound(b.lowerMs)}` : `${formatBound(b.lowerMs)} – ${formatBound(b.upperMs)}`,
    count: b.count,
  }));
}

/** How many calls took how long, in the exporters' latency buckets. */
export function LatencyHistogramChart({ histogram, height = 220 }: { histogram: LatencyHistogram | undefined; height?: number }) {
  const bars = useMemo(() => (histogram ? histogramBars(histogram) : []), [histogram]);
  return (
    <ChartCard title="Latency histogram" subtitle="Calls per latency bucket" height={height} empty={bars.length ? undefined : 'No calls in this range'}>
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 600, height }}>
        <BarChart data={bars} margin={{ top: 6, right: 8, bottom: 0, left: 0 }} barCategoryGap="12%">
          <CartesianGrid stroke={GRID_STROKE} strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="label" {...AXIS_PROPS} interval="preserveStartEnd" minTickGap={12} />
          <YAxis {...AXIS_PROPS} axisLine={false} width={48} allowDecimals={false} tickFormatter={(v: number) => formatCount(v)} />
          <Tooltip
            cursor={{ fill: CURSOR_FILL }}
            isAnimationActive={false}
            content={(props) => (
              <ChartTooltip {...props} formatLabel={(label) => bars.find((b) => b.label === label)?.range ?? String(label)} formatValue={(v) => `${formatCount(v)} calls`} />
            )}
          />
          <Bar dataKey="count" name="calls" fill={SERIES_COLOR.histogram} radius={[3, 3, 0, 0]} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}
