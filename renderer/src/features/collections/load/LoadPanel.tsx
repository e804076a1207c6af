import { Alert, Badge, Button, Code, Grid, Group, Paper, Progress, SimpleGrid, Stack, Table, Text, ThemeIcon, Tooltip } from '@mantine/core';
import { IconChartLine, IconCheck, IconDownload, IconHistory, IconPlayerStop, IconX } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import type { LatencyFigures, LoadSummary } from '../../../../../shared/loadRuns';
import { useTRPC } from '../../../rpc/client';
import { downloadText } from '../../../shell/download';
import { useNavigate } from '../../../shell/useSection';
import { formatCount, formatLatency, formatPercent } from '../../metrics/formatMetric';
import { LoadErrorsChart, LoadLatencyChart, LoadThroughputChart } from './LoadCharts';
import { liveTotals, type LoadProgress } from './loadProgress';

interface Kpi {
  label: string;
  value: string;
  caption: string;
  color?: string;
  hint: string;
}

/** What became of the calls beyond those measured: canceled by Stop (recorded in History, not measured), never sent. */
function callsCaption(s: LoadSummary): string {
  const canceled = s.sent - s.requests;
  const parts = [canceled > 0 ? `${formatCount(canceled)} canceled by Stop` : '', s.dropped ? `${formatCount(s.dropped)} not sent` : ''].filter(Boolean);
  return parts.length ? parts.join(' · ') : 'all sent';
}

function kpis(progress: LoadProgress): Kpi[] {
  const s = progress.summary;
  const live = liveTotals(progress.ticks);
  const asked = s?.askedRps ?? (progress.settings ? progress.settings.rps * Math.max(1, progress.replicas?.length ?? 1) : 0);
  const achieved = s ? s.achievedRps : (live.last?.completed ?? 0);
  const requests = s?.requests ?? live.completed;
  const errors = s?.errors ?? live.errors;
  const figure = (key: keyof LatencyFigures, liveKey?: 'p50' | 'p95' | 'p99') => (s ? s.latency[key] : liveKey ? (live.last?.[liveKey] ?? null) : null);
  const scope = s ? 'whole run' : 'last second';
  return [
    {
      label: 'Throughput',
      value: `${formatCount(Math.round(achieved * 10) / 10)}/s`,
      caption: `of ${formatCount(asked)}/s asked`,
      color: s && achieved < asked * 0.95 ? 'orange' : undefined,
      hint: s ? 'Calls finished per second over the steady part of the run (after the ramp-up).' : 'Calls finished in the last second.',
    },
    {
      label: 'Calls',
      value: formatCount(requests),
      caption: s ? callsCaption(s) : `${live.last?.inFlight ?? 0} in flight`,
      color: s?.dropped ? 'orange' : undefined,
      hint: 'Calls that finished. "Canceled by Stop": calls in flight when the run was stopped — History lists them as Canceled, the figures leave them out. "Not sent": arrivals still waiting for a free slot when the time ran out.',
    },
    { label: 'p50', value: formatLatency(figure('p50', 'p50')), caption: scope, hint: 'Median latency, measured from each call’s intended send time.' },
    { label: 'p95', value: formatLatency(figure('p95', 'p95')), caption: scope, hint: '95th percentile latency, from the intended send time.' },
    { label: 'p99', value: formatLatency(figure('p99', 'p99')), caption: scope, hint: '99th percentile latency, from the intended send time.' },
    { label: 'p99.9', value: formatLatency(figure('p999')), caption: s ? scope : 'at the end', hint: '99.9th percentile latency over the whole run (HdrHistogram).' },
    {
      label: 'Errors',
      value: formatCount(errors),
      caption: requests ? formatPercent(errors / requests) : '—',
      color: errors ? 'red' : undefined,
      hint: 'Calls that did not pass: failed, timed out, returned isError, or failed an assertion.',
    },
  ];
}

function FigureRow({ figures }: { figures: LatencyFigures }) {
  return (
    <>
      <Table.Td ff="monospace">{formatLatency(figures.p50)}</Table.Td>
      <Table.Td ff="monospace">{formatLatency(figures.p95)}</Table.Td>
      <Table.Td ff="monospace">{formatLatency(figures.p99)}</Table.Td>
      <Table.Td ff="monospace">{formatLatency(figures.p999)}</Table.Td>
    </>
  );
}

const FIGURE_HEADERS = ['p50', 'p95', 'p99', 'p99.9'];

function status(progress: LoadProgress): { label: string; color: string } {
  const s = progress.summary;
  if (progress.phase === 'preparing') return { label: 'Connecting', color: 'gray' };
  if (progress.phase === 'running') return { label: 'Running', color: 'blue' };
  if (!s) return { label: progress.error?.code === 'Canceled' ? 'Stopped' : 'Failed', color: 'red' };
  if (s.connectFailures.length) return { label: 'Could not connect', color: 'red' };
  if (s.canceled) return { label: 'Stopped', color: 'gray' };
  const failed = s.thresholds.filter((t) => !t.passed).length;
  if (failed) return { label: `${failed} threshold${failed === 1 ? '' : 's'} failed`, color: 'red' };
  if (s.replicaDifferences?.length) return { label: 'Replicas differ', color: 'orange' };
  return { label: s.thresholds.length ? 'Thresholds held' : 'Finished', color: 'teal' };
}

/** A load run, live or from history: headline figures, per-second charts, thresholds, per request and per replica. */
export function LoadPanel({ progress, onStop }: { progress: LoadProgress; onStop?: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const s = progress.summary;
  const settings = progress.settings;
  const badge = status(progress);
  const elapsed = progress.ticks.at(-1)?.second ?? 0;
  // Nothing to chart when nothing was sent (a target could not be connected).
  const charts = progress.phase !== 'preparing' && !(s && s.sent === 0 && s.connectFailures.length > 0);
  const durationS = settings ? settings.durationMs / 1000 : 0;
  const download = async (format: 'junit' | 'json') => {
    const runId = progress.runId!;
    const text = await queryClient.fetchQuery(trpc.collections.report.queryOptions({ runId, format }, { staleTime: Infinity }));
    downloadText(`${s?.collection ?? 'load'}-${runId}.${format === 'junit' ? 'xml' : 'json'}`, text, format === 'junit' ? 'application/xml' : 'application/json');
  };

  return (
    <Stack gap="md" aria-label="Load run">
      <Group justify="space-between" wrap="wrap">
        <Group gap="sm">
          <Badge size="lg" variant="light" color={badge.color}>
            {badge.label}
          </Badge>
          <Text size="sm" role="status">
            {progress.phase === 'preparing'
              ? 'Connecting the targets…'
              : settings
                ? `${settings.rps}/s for ${durationS} s${settings.rampUpMs ? ` (ramp-up ${settings.rampUpMs / 1000} s)` : ''}, at most ${settings.concurrency} in flight${progress.phase === 'running' ? ` · ${elapsed} s of ${durationS} s` : ''}`
                : ''}
          </Text>
        </Group>
        <Group gap="xs">
          {onStop && (progress.phase === 'running' || progress.phase === 'preparing') && (
            <Button variant="default" size="xs" color="red" leftSection={<IconPlayerStop size={14} />} onClick={onStop}>
              Stop
            </Button>
          )}
          {s && progress.runId && (
            <>
              <Button variant="subtle" size="xs" leftSection={<IconHistory size={14} />} onClick={() => navigate('history', { run: progress.runId! })}>
                Calls in History
              </Button>
              <Button variant="subtle" size="xs" leftSection={<IconChartLine size={14} />} onClick={() => navigate('metrics', { run: progress.runId! })}>
                Metrics for this run
              </Button>
              <Button variant="default" size="xs" leftSection={<IconDownload size={14} />} onClick={() => void download('json')}>
                JSON
              </Button>
              <Button variant="default" size="xs" leftSection={<IconDownload size={14} />} onClick={() => void download('junit')}>
                JUnit
              </Button>
            </>
          )}
        </Group>
      </Group>
      {progress.phase === 'running' && durationS > 0 && <Progress value={Math.min(100, (elapsed / durationS) * 100)} size="sm" aria-label="Load run progress" animated />}
      {progress.error && progress.error.code !== 'Canceled' && (
        <Alert color="red" variant="light" title="The load run failed">
          {progress.error.message}
        </Alert>
      )}
      {s && s.connectFailures.length > 0 && (
        <Alert color="red" variant="light" title="Nothing was sent: a target could not be connected">
          {s.connectFailures.map((f) => (
            <Text key={f.target} size="sm">
              {f.target}: {f.error.message}
            </Text>
          ))}
        </Alert>
      )}
      {charts && (
        <SimpleGrid cols={{ base: 2, sm: 4, lg: 7 }} spacing="sm">
          {kpis(progress).map((kpi) => (
            <Tooltip key={kpi.label} label={kpi.hint} multiline maw={260} withArrow openDelay={300}>
              <Paper withBorder radius="md" p="sm" role="group" aria-label={kpi.label}>
                <Text size="xs" c="dimmed" fw={600} tt="uppercase">
                  {kpi.label}
                </Text>
                <Text fz={22} fw={700} lh={1.2} mt={2} c={kpi.color} ff="monospace">
                  {kpi.value}
                </Text>
                <Text size="xs" c="dimmed">
                  {kpi.caption}
                </Text>
              </Paper>
            </Tooltip>
          ))}
        </SimpleGrid>
      )}
      {charts && (
        <Grid gap="md">
          <Grid.Col span={{ base: 12, lg: 6 }}>
            <LoadThroughputChart ticks={progress.ticks} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, lg: 6 }}>
            <LoadLatencyChart ticks={progress.ticks} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, lg: 6 }}>
            <LoadErrorsChart ticks={progress.ticks} />
          </Grid.Col>
          <Grid.Col span={{ base: 12, lg: 6 }}>
            <Thresholds progress={progress} />
          </Grid.Col>
        </Grid>
      )}
      {s && s.perRequest.length > 0 && (
        <Paper withBorder radius="md" p="md">
          <Text fw={600} size="sm" mb="xs">
            Per request
          </Text>
          <Table striped highlightOnHover aria-label="Per request">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Request</Table.Th>
                <Table.Th>Tool</Table.Th>
                <Table.Th>Calls</Table.Th>
                <Table.Th>Errors</Table.Th>
                {FIGURE_HEADERS.map((h) => (
                  <Table.Th key={h}>{h}</Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {s.perRequest.map((r) => (
                <Table.Tr key={r.name}>
                  <Table.Td>{r.name}</Table.Td>
                  <Table.Td>
                    <Code>{r.tool}</Code>
                  </Table.Td>
                  <Table.Td ff="monospace">{formatCount(r.requests)}</Table.Td>
                  <Table.Td ff="monospace" c={r.errors ? 'red' : undefined}>
                    {formatCount(r.errors)}
                  </Table.Td>
                  <FigureRow figures={r.latency} />
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Paper>
      )}
      {s?.replicas && <Replicas summary={s} />}
    </Stack>
  );
}

function Thresholds({ progress }: { progress: LoadProgress }) {
  const results = progress.summary?.thresholds;
  const asked = progress.settings?.thresholds ?? [];
  return (
    <Paper withBorder radius="md" p="md" h="100%" role="figure" aria-label="Thresholds">
      <Text fw={600} size="sm">
        Thresholds
      </Text>
      <Text size="xs" c="dimmed" mb="sm">
        {results ? 'Judged on the whole run.' : 'Judged on the whole run when it ends.'}
      </Text>
      {asked.length === 0 && (
        <Text size="sm" c="dimmed">
          None set. Add some (p95&lt;200ms, error_rate&lt;1%) to make the run pass or fail, in CI too: <Code>tooldeck run … --load --threshold &quot;p95&lt;200ms&quot;</Code>
        </Text>
      )}
      <Stack gap={6}>
        {(results ?? asked.map((expression) => ({ expression, passed: undefined, message: 'waiting for the end of the run' }))).map((t) => (
          <Group key={t.expression} gap="sm" wrap="nowrap">
            <ThemeIcon size="sm" radius="xl" variant="light" color={t.passed === undefined ? 'gray' : t.passed ? 'teal' : 'red'}>
              {t.passed === false ? <IconX size={12} /> : <IconCheck size={12} />}
            </ThemeIcon>
            <Code>{t.expression}</Code>
            <Text size="xs" c="dimmed">
              {t.message}
            </Text>
          </Group>
        ))}
      </Stack>
    </Paper>
  );
}

function Replicas({ summary }: { summary: LoadSummary }) {
  return (
    <Paper withBorder radius="md" p="md">
      <Text fw={600} size="sm" mb="xs">
        Per replica
      </Text>
      <Table striped aria-label="Per replica">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Replica</Table.Th>
            <Table.Th>Address</Table.Th>
            <Table.Th>Throughput</Table.Th>
            <Table.Th>Errors</Table.Th>
            {FIGURE_HEADERS.map((h) => (
              <Table.Th key={h}>{h}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {summary.replicas!.map((r) => (
            <Table.Tr key={r.replica}>
              <Table.Td>{r.replica}</Table.Td>
              <Table.Td ff="monospace">{r.address ?? '—'}</Table.Td>
              <Table.Td ff="monospace">{r.achievedRps}/s</Table.Td>
              <Table.Td ff="monospace" c={r.errors ? 'red' : undefined}>
                {formatCount(r.errors)}
              </Table.Td>
              <FigureRow figures={r.latency} />
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {summary.replicaDifferences?.length ? (
        <Alert color="orange" variant="light" mt="sm" title="Replicas answered the same request differently (a stateless tool must answer alike)">
          <Stack gap="xs">
            {summary.replicaDifferences.map((d) => (
              <div key={d.request}>
                <Text size="sm" fw={600}>
                  {d.request} <Code>{JSON.stringify(d.arguments)}</Code>
                </Text>
                {d.answers.map((a) => (
                  <Text key={a.replicas.join()} size="xs" ff="monospace" style={{ wordBreak: 'break-all' }}>
                    {a.replicas.join(', ')}: {a.answer}
                  </Text>
                ))}
              </div>
            ))}
          </Stack>
        </Alert>
      ) : (
        <Text size="xs" c="dimmed" mt="xs">
          Every replica answered each request alike.
        </Text>
      )}
    </Paper>
  );
}
