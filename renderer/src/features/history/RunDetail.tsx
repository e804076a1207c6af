import { Alert, Button, Center, Group, Loader, Stack, Text, Title } from '@mantine/core';
import { IconChartLine, IconList } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../../rpc/client';
import { useNavigate } from '../../shell/useSection';
import { LoadPanel } from '../collections/load/LoadPanel';
import { RunPanel } from '../collections/RunPanel';

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium', hour12: false });

/** A stored run with its summary: a load run's charts and figures, or a pass's per-request results. */
export function RunDetail({ runId, onShowCalls }: { runId: string; onShowCalls: () => void }) {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const run = useQuery(trpc.history.run.queryOptions({ runId }));
  if (run.isPending) {
    return (
      <Center py="xl">
        <Loader size="sm" aria-label="Loading run" />
      </Center>
    );
  }
  if (run.error) return <Alert color="red">{run.error.message}</Alert>;
  const stored = run.data;
  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-start">
        <div>
          <Title order={4}>{stored.collection}</Title>
          <Text size="xs" c="dimmed">
            {stored.kind === 'load' ? 'Load test' : 'Run once'} · {when.format(stored.startedAt)} · run {stored.runId}
          </Text>
        </div>
        {stored.kind === 'collection' && (
          <Group gap="xs">
            <Button size="xs" variant="default" leftSection={<IconList size={14} />} onClick={onShowCalls}>
              Calls in History
            </Button>
            <Button size="xs" variant="default" leftSection={<IconChartLine size={14} />} onClick={() => navigate('metrics', { run: stored.runId })}>
              Metrics for this run
            </Button>
          </Group>
        )}
      </Group>
      {stored.kind === 'load' ? (
        <LoadPanel progress={{ phase: 'finished', runId: stored.runId, settings: stored.summary.settings, ticks: stored.summary.timeline, summary: stored.summary }} />
      ) : (
        <RunPanel
          progress={{
            phase: 'finished',
            runId: stored.runId,
            summary: stored.summary,
            rows: stored.summary.results.map((result) => ({ index: result.index, name: result.name, tool: result.tool, state: result.status, result })),
          }}
          onCancel={() => undefined}
        />
      )}
    </Stack>
  );
}
