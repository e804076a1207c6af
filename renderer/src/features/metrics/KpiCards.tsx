import { Paper, SimpleGrid, Skeleton, Text } from '@mantine/core';
import type { LatencySummary } from '../../../../shared/history';
import { formatCount, formatLatency, formatPercent } from './formatMetric';
import { MINUTE_MS } from './timeRange';

interface Kpi {
  label: string;
  value: string;
  caption: string;
  color?: string;
}

function kpis(summary: LatencySummary, spanMs: number): Kpi[] {
  const perMinute = summary.count / Math.max(1, spanMs / MINUTE_MS);
  return [
    { label: 'Calls', value: formatCount(summary.count), caption: formatRate(perMinute) },
    {
      label: 'Error rate',
      value: formatPercent(summary.errorRate),
      caption: `${formatCount(summary.errors)} not ok`,
      color: summary.errorRate >= 0.05 ? 'red' : summary.errorRate >= 0.01 ? 'yellow' : undefined,
    },
    { label: 'p50', value: formatLatency(summary.p50), caption: 'Median latency' },
    { label: 'p95', value: formatLatency(summary.p95), caption: '95th percentile' },
    { label: 'p99', value: formatLatency(summary.p99), caption: '99th percentile' },
  ];
}

/** "12 per minute", or per hour when calls are sparse. */
function formatRate(perMinute: number): string {
  if (perMinute === 0) return 'none per minute';
  if (perMinute < 1) return `${Number((perMinute * 60).toFixed(1))} per hour`;
  return `${perMinute < 10 ? perMinute.toFixed(1) : formatCount(Math.round(perMinute))} per minute`;
}

/** The range at a glance: how many calls, how many failed, how fast. */
export function KpiCards({ summary, spanMs }: { summary: LatencySummary | undefined; spanMs: number }) {
  const labels = ['Calls', 'Error rate', 'p50', 'p95', 'p99'];
  return (
    <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }} spacing="md">
      {summary
        ? kpis(summary, spanMs).map((kpi) => (
            <Paper key={kpi.label} withBorder radius="md" p="md" role="group" aria-label={kpi.label}>
              <Text size="xs" c="dimmed" fw={600} tt="uppercase">
                {kpi.label}
              </Text>
              <Text fz={28} fw={700} lh={1.2} mt={4} c={kpi.color} ff="monospace" style={{ letterSpacing: '-0.02em' }}>
                {kpi.value}
              </Text>
              <Text size="xs" c="dimmed" mt={2}>
                {kpi.caption}
              </Text>
            </Paper>
          ))
        : labels.map((label) => (
            <Paper key={label} withBorder radius="md" p="md" role="group" aria-label={label} aria-busy>
              <Text size="xs" c="dimmed" fw={600} tt="uppercase">
                {label}
              </Text>
              <Skeleton h={30} mt={6} w="60%" />
              <Skeleton h={10} mt={8} w="40%" />
            </Paper>
          ))}
    </SimpleGrid>
  );
}
