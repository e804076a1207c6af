import { Box, Button, Group, Paper, Table, Text, UnstyledButton } from '@mantine/core';
import { IconFilter } from '@tabler/icons-react';
import { useState } from 'react';
import type { BreakdownRow } from '../../../../shared/history';
import { formatCount, formatLatency, formatPercent } from './formatMetric';

const COLLAPSED_ROWS = 8;

export interface BreakdownTableProps {
  /** "By tool" or "By server": the table's accessible name and heading. */
  title: string;
  rows: BreakdownRow[] | undefined;
  /** Key of the group the dashboard is filtered to. */
  activeKey?: string;
  onPick: (row: BreakdownRow) => void;
  /** For a narrow column: p50 and p99 are left out. */
  compact?: boolean;
}

/** Calls, error rate and latency per group, busiest first; a name narrows the dashboard to that group. */
export function BreakdownTable({ title, rows, activeKey, onPick, compact = false }: BreakdownTableProps) {
  const [expanded, setExpanded] = useState(false);
  const max = Math.max(1, ...(rows ?? []).map((r) => r.count));
  const shown = expanded ? (rows ?? []) : (rows ?? []).slice(0, COLLAPSED_ROWS);

  return (
    <Paper withBorder radius="md" p="md">
      <Group justify="space-between" mb="xs">
        <Text fw={600} size="sm">
          {title}
        </Text>
        <Text size="xs" c="dimmed">
          Click a name to filter the dashboard
        </Text>
      </Group>
      {rows && rows.length === 0 ? (
        <Text size="sm" c="dimmed" py="md" ta="center">
          No calls in this range.
        </Text>
      ) : (
        <Table aria-label={title} verticalSpacing={5} fz="xs" highlightOnHover layout="fixed">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th w={compact ? '30%' : '26%'}>Calls</Table.Th>
              <Table.Th w={64} ta="right">
                Errors
              </Table.Th>
              {!compact && (
                <Table.Th w={66} ta="right">
                  p50
                </Table.Th>
              )}
              <Table.Th w={66} ta="right">
                p95
              </Table.Th>
              {!compact && (
                <Table.Th w={66} ta="right">
                  p99
                </Table.Th>
              )}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {shown.map((row) => {
              const active = row.group.key === activeKey;
              return (
                <Table.Tr key={row.group.key} bg={active ? 'var(--mantine-primary-color-light)' : undefined}>
                  <Table.Td style={{ overflow: 'hidden' }}>
                    <UnstyledButton onClick={() => onPick(row)} aria-label={`Filter to ${row.group.key}`} aria-pressed={active} maw="100%" style={{ display: 'block' }}>
                      <Group gap={6} wrap="nowrap">
                        {active && <IconFilter size={12} aria-hidden style={{ flexShrink: 0 }} />}
                        <Text span fz="sm" ff="monospace" fw={500} truncate="end">
                          {row.group.tool ?? row.group.source}
                        </Text>
                        {row.group.tool && (
                          <Text span fz="xs" c="dimmed" truncate="end">
                            {row.group.source}
                          </Text>
                        )}
                      </Group>
                    </UnstyledButton>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={6} wrap="nowrap">
                      <Box h={8} style={{ flex: 1, borderRadius: 4, background: 'var(--mantine-color-default-hover)', overflow: 'hidden' }} aria-hidden>
                        <Box h="100%" w={`${(row.count / max) * 100}%`} style={{ background: 'var(--mantine-color-indigo-5)', borderRadius: 4 }} />
                      </Box>
                      <Text span fz="xs" ff="monospace" w={48} ta="right">
                        {formatCount(row.count)}
                      </Text>
                    </Group>
                  </Table.Td>
                  <Table.Td ta="right" ff="monospace" c={row.errorRate >= 0.05 ? 'red' : row.errorRate > 0 ? 'yellow.7' : 'dimmed'}>
                    {formatPercent(row.errorRate)}
                  </Table.Td>
                  {!compact && (
                    <Table.Td ta="right" ff="monospace">
                      {formatLatency(row.p50)}
                    </Table.Td>
                  )}
                  <Table.Td ta="right" ff="monospace">
                    {formatLatency(row.p95)}
                  </Table.Td>
                  {!compact && (
                    <Table.Td ta="right" ff="monospace">
                      {formatLatency(row.p99)}
                    </Table.Td>
                  )}
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      )}
      {rows && rows.length > COLLAPSED_ROWS && (
        <Button variant="subtle" size="xs" mt={4} onClick={() => setExpanded(!expanded)}>
          {expanded ? 'Show fewer' : `Show all ${rows.length}`}
        </Button>
      )}
    </Paper>
  );
}
