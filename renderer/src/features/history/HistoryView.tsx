import { ActionIcon, Alert, Box, Button, Center, Code, Drawer, Group, Loader, Paper, ScrollArea, SegmentedControl, Stack, Text, ThemeIcon, Title, Tooltip } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { IconFilterOff, IconHistory, IconPointer, IconRefresh, IconTool } from '@tabler/icons-react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { InvocationOutcome } from '../../../../shared/registry';
import { useTRPC } from '../../rpc/client';
import { useLocation, useNavigate } from '../../shell/useSection';
import { formatCount } from '../metrics/formatMetric';
import { LiveBadge } from '../metrics/LiveBadge';
import { includesNow, rangeLabel } from '../metrics/timeRange';
import { CallDetail } from './CallDetail';
import { CallsTable } from './CallsTable';
import { ExportMenu } from './ExportMenu';
import { HistoryFilterBar } from './HistoryFilterBar';
import { filtersFromParams, hasFilters, NO_FILTERS, toInvocationFilter, type HistoryFilters } from './historyFilter';
import { RunDetail } from './RunDetail';
import { RunsTable } from './RunsTable';
import { useCallHistory } from './useCallHistory';

const SEARCH_DEBOUNCE_MS = 300;

/**
 * Every recorded call, newest first, from the UI, the CLI, replays and runs. The selected call is
 * in the URL (`?call=<id>`); a link may also carry filters (see `filtersFromParams`).
 */
export function HistoryView() {
  const { section, params } = useLocation();
  const navigate = useNavigate();
  const trpc = useTRPC();
  const [filters, setFilters] = useState<HistoryFilters>(() => filtersFromParams(params));
  const [text] = useDebouncedValue(filters.text, SEARCH_DEBOUNCE_MS);
  const [now, setNow] = useState(() => Date.now());
  const filter = useMemo(() => toInvocationFilter({ ...filters, text }, now), [filters, text, now]);
  const history = useCallHistory(filter);
  const [replayOutcome, setReplayOutcome] = useState<InvocationOutcome>();
  const selectedId = params.call;

  const select = useCallback((id: string) => navigate(section, { call: id, ...(filters.run ? { run: filters.run } : {}) }), [navigate, section, filters.run]);
  const view = params.view === 'runs' ? 'runs' : 'calls';
  // A link to a run's calls (from a run's detail, here or elsewhere) replaces the filters.
  useEffect(() => {
    if (params.run) setFilters((current) => (current.run === params.run ? current : { ...NO_FILTERS, run: params.run! }));
  }, [params.run]);
  const runs = useQuery({ ...trpc.history.runs.queryOptions({ limit: 200 }), refetchInterval: view === 'runs' ? 5_000 : false });
  const selectedRun = params.runDetail;
  const filteredRun = runs.data?.find((r) => r.runId === filters.run);
  const showCallsOf = (runId: string) => {
    setFilters({ ...NO_FILTERS, run: runId });
    navigate(section, { run: runId });
  };

  const changeFilters = (next: HistoryFilters) => {
    setFilters(next);
    // A relative range is anchored when it is chosen.
    if (next.range !== filters.range) setNow(Date.now());
  };

  const refresh = () => {
    if (filters.range.key === 'all' || filters.range.key === 'custom') history.refetch();
    else setNow(Date.now());
  };

  const replayed = (outcome: InvocationOutcome) => {
    setReplayOutcome(outcome);
    history.add(outcome.record);
    select(outcome.record.id);
  };

  // What the Source and Tool pickers offer: whatever has calls in the range, plus what is loaded.
  const seen = useQuery({
    ...trpc.metrics.breakdown.queryOptions({ since: filter.since ?? 0, until: filter.until ?? now + 1, by: 'tool' }),
    placeholderData: keepPreviousData,
  });
  const agents = useMemo(() => [...new Set(history.rows.flatMap((r) => (r.agent ? [r.agent] : [])))].sort(), [history.rows]);
  const replicas = useMemo(() => [...new Set(history.rows.flatMap((r) => (r.replica ? [r.replica] : [])))].sort(), [history.rows]);
  const { sources, tools } = useMemo(() => {
    const pairs = [...(seen.data ?? []).map((row) => ({ source: row.group.source, tool: row.group.tool ?? '' })), ...history.rows.map((r) => ({ source: `${r.sourceKind}:${r.sourceName}`, tool: r.tool }))];
    return {
      sources: [...new Set(pairs.map((p) => p.source))].sort(),
      tools: [...new Set(pairs.filter((p) => p.tool && (!filters.source || p.source === filters.source)).map((p) => p.tool))].sort(),
    };
  }, [seen.data, history.rows, filters.source]);

  return (
    <Stack gap="sm" h="calc(100dvh - 52px - 2 * var(--mantine-spacing-lg))">
      <Group justify="space-between" wrap="nowrap">
        <div>
          <Title order={2}>History</Title>
          <Text c="dimmed" size="sm">
            {view === 'runs'
              ? 'Every run of a collection — once through, or a load test — with its summary, newest first.'
              : 'Every call from the UI, the CLI, replays and runs, newest first. Select one to inspect or replay it.'}
          </Text>
        </div>
        <Group gap="xs" wrap="nowrap">
          <SegmentedControl
            value={view}
            onChange={(v) => navigate(section, v === 'runs' ? { view: 'runs' } : filters.run ? { run: filters.run } : {})}
            aria-label="Show"
            data={[
              { value: 'calls', label: 'Calls' },
              { value: 'runs', label: `Runs${runs.data?.length ? ` (${runs.data.length})` : ''}` },
            ]}
          />
          <LiveBadge status={history.liveStatus} applies={includesNow(filters.range, Date.now())} />
          <Tooltip label="Refresh">
            <ActionIcon variant="default" size="lg" aria-label="Refresh" onClick={refresh}>
              <IconRefresh size={16} />
            </ActionIcon>
          </Tooltip>
          <ExportMenu filter={filter} disabled={history.total === 0} />
        </Group>
      </Group>

      {view === 'runs' ? (
        <Paper withBorder radius="md" style={{ flex: 1, minHeight: 0, overflow: 'hidden', display: 'flex', flexDirection: 'column' }}>
          <RunsTable runs={runs.data} selectedId={selectedRun} onSelect={(runId) => navigate(section, { view: 'runs', runDetail: runId })} />
          <Drawer opened={!!selectedRun} onClose={() => navigate(section, { view: 'runs' })} position="right" size="min(1100px, 85vw)" title="Run" padding="lg">
            {selectedRun && <RunDetail key={selectedRun} runId={selectedRun} onShowCalls={() => showCallsOf(selectedRun)} />}
          </Drawer>
        </Paper>
      ) : (
        <>
      <HistoryFilterBar
        value={filters}
        onChange={changeFilters}
        sources={sources}
        tools={tools}
        agents={agents}
        replicas={replicas}
        runLabel={filteredRun ? `${filteredRun.collection} · ${new Date(filteredRun.startedAt).toLocaleTimeString()}` : undefined}
      />

      <Group gap="xs" px={4} justify="space-between">
        <Text size="xs" c="dimmed" aria-live="polite">
          {history.total === undefined ? ' ' : `${formatCount(history.total)} ${history.total === 1 ? 'call' : 'calls'} · ${rangeLabel(filters.range)}`}
          {history.total !== undefined && history.rows.length < history.total ? ` · ${formatCount(history.rows.length)} loaded` : ''}
        </Text>
      </Group>

      {history.error && <Alert color="red">{history.error}</Alert>}

      <Group align="stretch" gap="md" wrap="nowrap" style={{ flex: 1, minHeight: 0 }}>
        <Paper withBorder radius="md" style={{ flex: 1, minWidth: 0, overflow: 'hidden', display: 'flex', flexDirection: 'column' }}>
          {history.loading ? (
            <Center style={{ flex: 1 }}>
              <Loader aria-label="Loading calls" />
            </Center>
          ) : history.rows.length === 0 ? (
            <EmptyCalls filtered={hasFilters(filters)} onClear={() => changeFilters(NO_FILTERS)} onOpenTools={() => navigate('tools')} />
          ) : (
            <CallsTable
              rows={history.rows}
              selectedId={selectedId}
              onSelect={select}
              hasMore={history.hasMore}
              loadingMore={history.loadingMore}
              onLoadMore={history.loadMore}
              total={history.total}
            />
          )}
        </Paper>
        <Paper withBorder radius="md" w="32%" miw={340} maw={600} style={{ flexShrink: 0, overflow: 'hidden' }} aria-label="Call details" component="aside">
          <ScrollArea h="100%" type="auto">
            <Box p="md">
              {selectedId ? (
                <CallDetail key={selectedId} id={selectedId} replayOutcome={replayOutcome} onSelect={select} onReplayed={replayed} onTrace={(trace) => changeFilters({ ...NO_FILTERS, trace })} />
              ) : (
                <Stack align="center" gap="xs" py={60}>
                  <ThemeIcon size={48} radius="xl" variant="light">
                    <IconPointer size={26} />
                  </ThemeIcon>
                  <Text fw={600}>Select a call</Text>
                  <Text c="dimmed" size="sm" ta="center" maw={340}>
                    Its arguments, result, error, timing and JSON-RPC transcript appear here, with Replay to run it again.
                  </Text>
                </Stack>
              )}
            </Box>
          </ScrollArea>
        </Paper>
      </Group>
        </>
      )}
    </Stack>
  );
}

function EmptyCalls({ filtered, onClear, onOpenTools }: { filtered: boolean; onClear: () => void; onOpenTools: () => void }) {
  return (
    <Stack align="center" justify="center" gap="sm" p="xl" style={{ flex: 1 }}>
      <ThemeIcon size={56} radius="xl" variant="light">
        <IconHistory size={30} />
      </ThemeIcon>
      <Title order={4}>{filtered ? 'No calls match these filters' : 'No calls recorded yet'}</Title>
      <Text c="dimmed" size="sm" ta="center" maw={480}>
        {filtered
          ? 'Widen the time range or clear a filter. New calls that match appear here as they happen.'
          : 'Invoke a tool from Tools or from a terminal; every call, from any entry point, is recorded here with its arguments, result and timing.'}
      </Text>
      {filtered ? (
        <Button variant="default" leftSection={<IconFilterOff size={16} />} onClick={onClear}>
          Clear filters
        </Button>
      ) : (
        <>
          <Code>{`tooldeck mcp call <tool> <server> --args '{…}'`}</Code>
          <Button leftSection={<IconTool size={16} />} onClick={onOpenTools}>
            Open Tools
          </Button>
        </>
      )}
    </Stack>
  );
}
