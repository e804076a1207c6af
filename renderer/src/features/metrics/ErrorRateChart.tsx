import { useMemo } from 'react';
import { Area, AreaChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ChartCard } from './ChartCard';
import { ChartTooltip } from './ChartTooltip';
import { AXIS_PROPS, GRID_STROKE, SERIES_COLOR } from './chartStyle';
import { formatBucketSize, formatBucketTime, formatPercent } from './formatMetric';
import { SPARSE_POINTS, type TimeSeriesChartProps } from './LatencyChart';

/** Axis tops whose quarters are round percentages (1%, 2.5%, 5%, 10%, 15%, 20%, 25%). */
const AXIS_TOPS = [0.04, 0.1, 0.2, 0.4, 0.6, 0.8, 1];

/** Share of calls per bucket whose status is not ok; buckets without calls have no rate. */
export function ErrorRateChart({ points, bucketMs, spanMs, height = 220 }: TimeSeriesChartProps) {
  const data = useMemo(() => points.map((p) => ({ t: p.t, errorRate: p.count > 0 ? p.errorRate : null })), [points]);
  const hasData = points.some((p) => p.count > 0);
  const peak = Math.max(0, ...points.map((p) => (p.count > 0 ? p.errorRate : 0)));
  const top = AXIS_TOPS.find((t) => t >= peak * 1.1) ?? 1;
  const sparse = points.filter((p) => p.count > 0).length <= SPARSE_POINTS;
  return (
    <ChartCard title="Error rate" subtitle={`Not-ok calls per ${formatBucketSize(bucketMs)}`} height={height} empty={hasData ? undefined : 'No calls in this range'}>
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 600, height }}>
        <AreaChart data={data} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
          <defs>
            <linearGradient id="error-rate-fill" x1="0" y1="0" x2="0" y2="1">
              <stop offset="0%" stopColor={SERIES_COLOR.errorRate} stopOpacity={0.35} />
              <stop offset="100%" stopColor={SERIES_COLOR.errorRate} stopOpacity={0.02} />
            </linearGradient>
          </defs>
          <CartesianGrid stroke={GRID_STROKE} strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="t" {...AXIS_PROPS} tickFormatter={(t: number) => formatBucketTime(t, bucketMs, spanMs)} minTickGap={48} />
          <YAxis {...AXIS_PROPS} axisLine={false} width={48} domain={[0, top]} ticks={[0, top / 4, top / 2, (3 * top) / 4, top]} tickFormatter={(v: number) => formatPercent(v)} />
          <Tooltip
            cursor={{ stroke: GRID_STROKE }}
            isAnimationActive={false}
            content={(props) => <ChartTooltip {...props} formatLabel={(t) => formatBucketTime(Number(t), bucketMs, spanMs)} formatValue={(v) => formatPercent(v)} />}
          />
          <Area type="monotone" dataKey="errorRate" name="error rate" stroke={SERIES_COLOR.errorRate} strokeWidth={1.8} fill="url(#error-rate-fill)" dot={sparse ? { r: 2.5, fill: SERIES_COLOR.errorRate } : false} connectNulls={false} isAnimationActive={false} />
        </AreaChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}
