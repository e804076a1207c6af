import { ActionIcon, Alert, Badge, Box, Button, CloseButton, Code, Grid, Group, Paper, Select, Stack, Text, ThemeIcon, Title, Tooltip } from '@mantine/core';
import { IconChartLine, IconFilter, IconHistory, IconRefresh, IconTool } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { BreakdownRow, MetricFilter } from '../../../../shared/history';
import { useTRPC } from '../../rpc/client';
import type { RunListItem } from '../../../../shared/runs';
import { useLocation, useNavigate } from '../../shell/useSection';
import { filterParams, splitSource } from '../history/historyFilter';
import { BreakdownTable } from './BreakdownTable';
import { ErrorRateChart } from './ErrorRateChart';
import { ExportersCard } from './ExportersCard';
import { formatBucketSize } from './formatMetric';
import { KpiCards } from './KpiCards';
import { LatencyChart } from './LatencyChart';
import { LatencyHistogramChart } from './LatencyHistogramChart';
import { LiveBadge } from './LiveBadge';
import { ThroughputChart } from './ThroughputChart';
import { TimeRangePicker } from './TimeRangePicker';
import { bucketFor, includesNow, MINUTE_MS, rangeLabel, wholeWindowBucketMs, windowOf, type TimeRange } from './timeRange';
import { useLiveNow } from './useLiveNow';

/** What a breakdown click narrowed the dashboard to. */
interface Scope {
  key: string;
  source: string;
  tool?: string;
  filter: MetricFilter;
}

function scopeOf(row: BreakdownRow): Scope | undefined {
  const source = splitSource(row.group.source);
  if (!source) return undefined;
  return { key: row.group.key, source: row.group.source, ...(row.group.tool ? { tool: row.group.tool } : {}), filter: { ...source, ...(row.group.tool ? { tool: row.group.tool } : {}) } };
}

/** How often a relative window slides forward on its own: about one bucket, between 15 s and a minute. */
function tickFor(bucketMs: number): number {
  return Math.min(MINUTE_MS, Math.max(15_000, bucketMs));
}

const runTime = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });

export function runLabel(run: RunListItem): string {
  return `${run.collection} · ${run.kind === 'load' ? 'load test' : 'run once'} · ${runTime.format(run.startedAt)}`;
}

/** A run's own window, whole seconds around its first and last call. */
export function runRange(run: Pick<RunListItem, 'startedAt' | 'durationMs'>): TimeRange {
  return { key: 'custom', from: Math.floor((run.startedAt - 1_000) / 1_000) * 1_000, to: Math.ceil((run.startedAt + run.durationMs + 2_000) / 1_000) * 1_000 };
}

/** Calls, errors and latency over a time range, by tool and by server, updated as calls happen; or those of one run. */
export function MetricsView() {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const { params } = useLocation();
  const [pickedRange, setRange] = useState<TimeRange>({ key: '1h' });
  const [scope, setScope] = useState<Scope>();
  const [runId, setRunId] = useState<string | null>(params.run ?? null);
  // One agent's calls (`?agent=NAME`, as the Gateway section links here).
  const [agent, setAgent] = useState<string | null>(params.agent || null);
  const runs = useQuery(trpc.history.runs.queryOptions({ limit: 200 }));
  const listed = runs.data?.find((r) => r.runId === runId);
  const stored = useQuery({ ...trpc.history.run.queryOptions({ runId: runId ?? '' }), enabled: !!runId && runs.data !== undefined && !listed });
  const run = listed ?? stored.data;
  const range: TimeRange = run ? runRange(run) : pickedRange;
  const pickRange = (next: TimeRange) => {
    setRunId(null);
    setRange(next);
  };
  const live = includesNow(range, Date.now());
  const spanForTick = windowOf(range, Date.now());
  const { now, status, refresh } = useLiveNow({ live, tickMs: range.key === 'custom' ? undefined : tickFor(bucketFor(spanForTick.until - (spanForTick.since ?? 0))) });

  const window = windowOf(range, now);
  const since = window.since ?? 0;
  const until = window.until;
  const spanMs = until - since;
  const bucketMs = bucketFor(spanMs);
  const runFilter = { ...(runId ? { runId } : {}), ...(agent ? { agent } : {}) };
  const filter = scope || runId || agent ? { filter: { ...scope?.filter, ...runFilter } } : {};
  const runOnly = runId || agent ? { filter: runFilter } : {};
  const keep = { placeholderData: keepPreviousData };

  const summary = useQuery({ ...trpc.metrics.timeSeries.queryOptions({ since, until, bucketMs: wholeWindowBucketMs(until), ...filter }), ...keep });
  const series = useQuery({ ...trpc.metrics.timeSeries.queryOptions({ since, until, bucketMs, ...filter }), ...keep });
  // The breakdowns ignore the scope: they are where another tool or server is picked.
  const byTool = useQuery({ ...trpc.metrics.breakdown.queryOptions({ since, until, by: 'tool', ...runOnly }), ...keep });
  const bySource = useQuery({ ...trpc.metrics.breakdown.queryOptions({ since, until, by: 'source', ...runOnly }), ...keep });
  const histogram = useQuery({ ...trpc.metrics.histogram.queryOptions({ since, until, ...filter }), ...keep });

  const kpi = summary.data?.series[0]?.points[0];
  const noCalls = summary.data !== undefined && (kpi?.count ?? 0) === 0;
  const everCount = useQuery({ ...trpc.history.count.queryOptions({}), enabled: noCalls });
  const points = series.data?.series[0]?.points ?? [];
  const error = summary.error ?? series.error ?? byTool.error ?? bySource.error ?? histogram.error;

  const pick = (row: BreakdownRow) => setScope(scope?.key === row.group.key ? undefined : scopeOf(row));
  const openHistory = () => navigate('history', { ...filterParams({ source: scope?.source, tool: scope?.tool, range: runId ? undefined : range.key }), ...(runId ? { run: runId } : {}), ...(agent ? { agent } : {}) });

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <div>
          <Title order={2}>Metrics</Title>
          <Text c="dimmed" size="sm">
            Calls, errors and latency percentiles from the recorded history, per tool and per server.
          </Text>
        </div>
        <Group gap="xs" wrap="nowrap">
          <LiveBadge status={status} applies={live} />
          <TimeRangePicker value={range} onChange={pickRange} />
          <Tooltip label={`Refresh (updated ${new Date(now).toLocaleTimeString()})`}>
            <ActionIcon variant="default" size="lg" aria-label="Refresh" onClick={refresh}>
              <IconRefresh size={16} />
            </ActionIcon>
          </Tooltip>
        </Group>
      </Group>

      <Group gap="xs" justify="space-between" mih={28}>
        <Group gap="xs">
          <Select
            size="xs"
            w={300}
            aria-label="Run"
            placeholder="All calls — or pick a run"
            data={(runs.data ?? []).map((r) => ({ value: r.runId, label: runLabel(r) }))}
            value={runId}
            onChange={setRunId}
            searchable
            clearable
            nothingFoundMessage="No such run"
          />
          <Text size="xs" c="dimmed">
            {rangeLabel(range)} · {formatBucketSize(bucketMs)} buckets
          </Text>
          {run && (
            <Badge variant="light" color="violet" size="lg" radius="sm" tt="none" leftSection={<IconFilter size={12} />} rightSection={<CloseButton size="xs" variant="transparent" aria-label="Clear run filter" onClick={() => setRunId(null)} />}>
              {`Run: ${runLabel(run)}`}
            </Badge>
          )}
          {agent && (
            <Badge variant="light" color="grape" size="lg" radius="sm" tt="none" leftSection={<IconFilter size={12} />} rightSection={<CloseButton size="xs" variant="transparent" aria-label="Clear agent filter" onClick={() => setAgent(null)} />}>
              {`Agent: ${agent}`}
            </Badge>
          )}
          {scope && (
            <Badge
              variant="light"
              size="lg"
              radius="sm"
              tt="none"
              leftSection={<IconFilter size={12} />}
              rightSection={<CloseButton size="xs" variant="transparent" aria-label="Clear filter" onClick={() => setScope(undefined)} />}
            >
              {scope.tool ? `Tool: ${scope.tool} (${scope.source})` : `Server: ${scope.source}`}
            </Badge>
          )}
        </Group>
        <Button variant="subtle" size="xs" leftSection={<IconHistory size={14} />} onClick={openHistory}>
          View these calls in History
        </Button>
      </Group>

      {error && (
        <Alert color="red" variant="light" title="Could not load metrics">
          {error.message}
        </Alert>
      )}

      <Box component="section" aria-label="Metrics dashboard">
        <Stack gap="md">
          <KpiCards summary={kpi} spanMs={spanMs} />
          {noCalls ? (
            <NoCalls rangeText={rangeLabel(range).toLowerCase()} never={everCount.data === 0} onOpenTools={() => navigate('tools')} onWiden={range.key === '7d' ? undefined : () => pickRange({ key: '7d' })} />
          ) : (
            <Grid gap="md">
              <Grid.Col span={{ base: 12, lg: 6 }}>
                <ThroughputChart points={points} bucketMs={bucketMs} spanMs={spanMs} />
              </Grid.Col>
              <Grid.Col span={{ base: 12, lg: 6 }}>
                <ErrorRateChart points={points} bucketMs={bucketMs} spanMs={spanMs} />
              </Grid.Col>
              <Grid.Col span={{ base: 12, lg: 8 }}>
                <LatencyChart points={points} bucketMs={bucketMs} spanMs={spanMs} height={240} />
              </Grid.Col>
              <Grid.Col span={{ base: 12, lg: 4 }}>
                <LatencyHistogramChart histogram={histogram.data} height={240} />
              </Grid.Col>
              <Grid.Col span={{ base: 12, lg: 7 }}>
                <BreakdownTable title="By tool" rows={byTool.data} activeKey={scope?.key} onPick={pick} />
              </Grid.Col>
              <Grid.Col span={{ base: 12, lg: 5 }}>
                <Stack gap="md">
                  <BreakdownTable title="By server" rows={bySource.data} activeKey={scope?.key} onPick={pick} compact />
                  <ExportersCard />
                </Stack>
              </Grid.Col>
            </Grid>
          )}
          {noCalls && (
            <Grid gap="md">
              <Grid.Col span={{ base: 12, lg: 6 }}>
                <ExportersCard />
              </Grid.Col>
            </Grid>
          )}
        </Stack>
      </Box>
    </Stack>
  );
}

function NoCalls({ rangeText, never, onOpenTools, onWiden }: { rangeText: string; never: boolean; onOpenTools: () => void; onWiden?: () => void }) {
  return (
    <Paper withBorder radius="md" p="xl">
      <Stack align="center" gap="sm" py="md">
        <ThemeIcon size={56} radius="xl" variant="light">
          <IconChartLine size={30} />
        </ThemeIcon>
        <Title order={4}>{never ? 'No calls recorded yet' : `No calls in the ${rangeText}`}</Title>
        <Text c="dimmed" size="sm" ta="center" maw={520}>
          Metrics are computed from the call history. Invoke a tool from Tools, replay one from History, or call one from a terminal — every entry point is recorded:
        </Text>
        <Code>tooldeck mcp call echo &lt;server&gt; --args {`'{"message":"hi"}'`}</Code>
        <Group mt="xs">
          <Button leftSection={<IconTool size={16} />} onClick={onOpenTools}>
            Open Tools
          </Button>
          {!never && onWiden && (
            <Button variant="default" onClick={onWiden}>
              Show the last 7 days
            </Button>
          )}
        </Group>
      </Stack>
    </Paper>
  );
}
