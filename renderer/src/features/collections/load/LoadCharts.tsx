import { Group } from '@mantine/core';
import { useMemo } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { LoadTick } from '../../../../../shared/loadRuns';
import { ChartCard, LegendDot } from '../../metrics/ChartCard';
import { ChartTooltip } from '../../metrics/ChartTooltip';
import { AXIS_PROPS, CURSOR_FILL, GRID_STROKE, SERIES_COLOR } from '../../metrics/chartStyle';
import { formatCount, formatLatency } from '../../metrics/formatMetric';

const HEIGHT = 200;
const ASKED_COLOR = 'var(--mantine-color-gray-5)';
const CODE_COLORS = ['var(--mantine-color-red-6)', 'var(--mantine-color-orange-6)', 'var(--mantine-color-yellow-6)', 'var(--mantine-color-pink-6)', 'var(--mantine-color-grape-6)'];
const second = (s: unknown) => `${s} s`;

/** Calls finished each second against the arrivals the schedule asked for. */
export function LoadThroughputChart({ ticks }: { ticks: readonly LoadTick[] }) {
  const data = useMemo(() => ticks.map((t) => ({ second: t.second, asked: t.asked, done: t.completed, inFlight: t.inFlight })), [ticks]);
  return (
    <ChartCard
      title="Throughput"
      subtitle="Calls finished per second, against the rate asked"
      height={HEIGHT}
      empty={ticks.length ? undefined : 'Waiting for the first second'}
      aside={
        <Group gap="sm">
          <LegendDot color={SERIES_COLOR.ok} label="done" />
          <LegendDot color={ASKED_COLOR} label="asked" />
        </Group>
      }
    >
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 500, height: HEIGHT }}>
        <LineChart data={data} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid stroke={GRID_STROKE} strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="second" {...AXIS_PROPS} tickFormatter={second} minTickGap={32} />
          <YAxis {...AXIS_PROPS} axisLine={false} width={48} allowDecimals={false} tickFormatter={(v: number) => formatCount(v)} />
          <Tooltip cursor={{ stroke: GRID_STROKE }} isAnimationActive={false} content={(props) => <ChartTooltip {...props} formatLabel={second} formatValue={(v) => formatCount(v)} />} />
          <Line type="stepAfter" dataKey="asked" name="asked" stroke={ASKED_COLOR} strokeDasharray="4 3" strokeWidth={1.5} dot={false} isAnimationActive={false} />
          <Line type="linear" dataKey="done" name="done" stroke={SERIES_COLOR.ok} strokeWidth={2} dot={data.length < 30 ? { r: 2.5 } : false} isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

/** p50/p95/p99 of the calls finished each second, from their intended send times. */
export function LoadLatencyChart({ ticks }: { ticks: readonly LoadTick[] }) {
  const data = useMemo(() => ticks.map((t) => ({ second: t.second, p50: t.p50, p95: t.p95, p99: t.p99 })), [ticks]);
  return (
    <ChartCard
      title="Latency percentiles"
      subtitle="Per second, from each call's intended send time"
      height={HEIGHT}
      empty={ticks.length ? undefined : 'Waiting for the first second'}
      aside={
        <Group gap="sm">
          {(['p50', 'p95', 'p99'] as const).map((p) => (
            <LegendDot key={p} color={SERIES_COLOR[p]} label={p} />
          ))}
        </Group>
      }
    >
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 500, height: HEIGHT }}>
        <LineChart data={data} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid stroke={GRID_STROKE} strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="second" {...AXIS_PROPS} tickFormatter={second} minTickGap={32} />
          <YAxis {...AXIS_PROPS} axisLine={false} width={64} domain={[0, 'auto']} tickFormatter={(v: number) => formatLatency(v)} />
          <Tooltip cursor={{ stroke: GRID_STROKE }} isAnimationActive={false} content={(props) => <ChartTooltip {...props} formatLabel={second} formatValue={(v) => formatLatency(v)} />} />
          {(['p50', 'p95', 'p99'] as const).map((p) => (
            <Line key={p} type="linear" dataKey={p} name={p} stroke={SERIES_COLOR[p]} strokeWidth={p === 'p50' ? 2 : 1.6} dot={false} connectNulls={false} isAnimationActive={false} />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

/** Failed calls each second, stacked by error code. */
export function LoadErrorsChart({ ticks }: { ticks: readonly LoadTick[] }) {
  const codes = useMemo(() => [...new Set(ticks.flatMap((t) => Object.keys(t.errorsByCode)))].sort(), [ticks]);
  const data = useMemo(() => ticks.map((t) => ({ second: t.second, ...t.errorsByCode })), [ticks]);
  const total = ticks.reduce((n, t) => n + t.errors, 0);
  return (
    <ChartCard title="Errors" subtitle="Calls that did not pass, per second, by code" height={HEIGHT} empty={ticks.length === 0 ? 'Waiting for the first second' : total === 0 ? 'No errors' : undefined}>
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 500, height: HEIGHT }}>
        <BarChart data={data} margin={{ top: 6, right: 8, bottom: 0, left: 0 }} barCategoryGap="15%">
          <CartesianGrid stroke={GRID_STROKE} strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="second" {...AXIS_PROPS} tickFormatter={second} minTickGap={32} />
          <YAxis {...AXIS_PROPS} axisLine={false} width={48} allowDecimals={false} tickFormatter={(v: number) => formatCount(v)} />
          <Tooltip cursor={{ fill: CURSOR_FILL }} isAnimationActive={false} content={(props) => <ChartTooltip {...props} formatLabel={second} formatValue={(v) => formatCount(v)} />} />
          <Legend verticalAlign="top" height={20} iconSize={8} wrapperStyle={{ fontSize: 11 }} />
          {codes.map((code, i) => (
            <Bar key={code} dataKey={code} name={code} stackId="errors" fill={CODE_COLORS[i % CODE_COLORS.length]} isAnimationActive={false} maxBarSize={18} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}
