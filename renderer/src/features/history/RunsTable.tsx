import { Badge, Center, Loader, ScrollArea, Stack, Table, Text, ThemeIcon, Title, UnstyledButton } from '@mantine/core';
import { IconListCheck } from '@tabler/icons-react';
import type { RunListItem } from '../../../../shared/runs';
import { formatDuration } from '../../components/format';
import { formatCount, formatLatency } from '../metrics/formatMetric';

const when = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });

function outcome(run: RunListItem): { label: string; color: string } {
  if (run.canceled) return { label: 'stopped', color: 'gray' };
  if (run.ok) return { label: run.kind === 'load' ? 'thresholds held' : 'passed', color: 'teal' };
  return { label: run.kind === 'load' ? 'failed' : 'failures', color: 'red' };
}

/** Runs of collections, newest first: one row per run, its figures at a glance. */
export function RunsTable({ runs, selectedId, onSelect }: { runs: RunListItem[] | undefined; selectedId?: string; onSelect: (runId: string) => void }) {
  if (!runs) {
    return (
      <Center style={{ flex: 1 }}>
        <Loader aria-label="Loading runs" />
      </Center>
    );
  }
  if (runs.length === 0) {
    return (
      <Stack align="center" justify="center" gap="sm" p="xl" style={{ flex: 1 }}>
        <ThemeIcon size={56} radius="xl" variant="light">
          <IconListCheck size={30} />
        </ThemeIcon>
        <Title order={4}>No runs yet</Title>
        <Text c="dimmed" size="sm" ta="center" maw={460}>
          Run a collection once or as a load test from the Collections section (or with <code>tooldeck run</code>); each run lands here with its summary.
        </Text>
      </Stack>
    );
  }
  return (
    <ScrollArea style={{ flex: 1 }} type="auto">
      <Table highlightOnHover stickyHeader aria-label="Runs" verticalSpacing={6}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Started</Table.Th>
            <Table.Th>Collection</Table.Th>
            <Table.Th>Kind</Table.Th>
            <Table.Th>Result</Table.Th>
            <Table.Th ta="right">Calls</Table.Th>
            <Table.Th ta="right">Not passed</Table.Th>
            <Table.Th ta="right">Rate</Table.Th>
            <Table.Th ta="right">p95</Table.Th>
            <Table.Th ta="right">Took</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {runs.map((run) => {
            const result = outcome(run);
            return (
              <Table.Tr key={run.runId} bg={run.runId === selectedId ? 'var(--mantine-color-default-hover)' : undefined} aria-selected={run.runId === selectedId}>
                <Table.Td>
                  <UnstyledButton onClick={() => onSelect(run.runId)} aria-label={`Run of ${run.collection} at ${when.format(run.startedAt)}`}>
                    <Text size="sm">{when.format(run.startedAt)}</Text>
                  </UnstyledButton>
                </Table.Td>
                <Table.Td onClick={() => onSelect(run.runId)} style={{ cursor: 'pointer' }}>
                  <Text size="sm" fw={500}>
                    {run.collection}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Badge variant="outline" color={run.kind === 'load' ? 'violet' : 'gray'} size="sm">
                    {run.kind === 'load' ? 'load test' : 'run once'}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  <Badge variant="light" color={result.color} size="sm">
                    {result.label}
                  </Badge>
                </Table.Td>
                <Table.Td ta="right" ff="monospace">
                  {formatCount(run.requests)}
                </Table.Td>
                <Table.Td ta="right" ff="monospace" c={run.failures ? 'red' : undefined}>
                  {formatCount(run.failures)}
                </Table.Td>
                <Table.Td ta="right" ff="monospace">
                  {run.achievedRps === undefined ? '—' : `${run.achievedRps}/s`}
                </Table.Td>
                <Table.Td ta="right" ff="monospace">
                  {run.p95Ms === undefined ? '—' : formatLatency(run.p95Ms)}
                </Table.Td>
                <Table.Td ta="right" ff="monospace">
                  {formatDuration(run.durationMs)}
                </Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </ScrollArea>
  );
}
