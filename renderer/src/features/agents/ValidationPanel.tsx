import { Badge, Group, Paper, Table, Text, ThemeIcon, Tooltip } from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck, IconCircleX } from '@tabler/icons-react';
import type { A2aCardReport, A2aCheckStatus } from '../../../../shared/a2a';
import { CHECK_COLOR, sortChecks, summarizeChecks } from './checkRows';

const ICON = { fail: IconCircleX, warn: IconAlertTriangle, pass: IconCircleCheck } as const;
const STATUS_NAME: Record<A2aCheckStatus, string> = { fail: 'Fail', warn: 'Warning', pass: 'Pass' };

export function CheckIcon({ status }: { status: A2aCheckStatus }) {
  const Icon = ICON[status];
  return (
    <ThemeIcon size={22} radius="xl" variant="light" color={CHECK_COLOR[status]} role="img" aria-label={STATUS_NAME[status]}>
      <Icon size={15} />
    </ThemeIcon>
  );
}

/** The card checks as a table, the ones that need attention first. */
export function ValidationPanel({ report }: { report: A2aCardReport }) {
  const rows = sortChecks(report.rows);
  const summary = summarizeChecks(report.rows);
  return (
    <Paper withBorder radius="md">
      <Group justify="space-between" p="sm" style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}>
        <Group gap="xs">
          <Badge color="red" variant={summary.fail ? 'filled' : 'light'} leftSection={<IconCircleX size={12} />}>
            {summary.fail} failed
          </Badge>
          <Badge color="yellow" variant={summary.warn ? 'filled' : 'light'} leftSection={<IconAlertTriangle size={12} />}>
            {summary.warn} warning{summary.warn === 1 ? '' : 's'}
          </Badge>
          <Badge color="teal" variant="light" leftSection={<IconCircleCheck size={12} />}>
            {summary.pass} passed
          </Badge>
        </Group>
        <Tooltip label={report.cardUrl}>
          <Text size="xs" c="dimmed" ff="monospace" truncate="end" maw={420}>
            A2A {report.protocolVersion} · {report.cardUrl}
          </Text>
        </Tooltip>
      </Group>
      <Table verticalSpacing={8} aria-label="Card validation">
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={48}>
              <Text span size="xs" fw={700}>
                Result
              </Text>
            </Table.Th>
            <Table.Th w={260}>Check</Table.Th>
            <Table.Th>Detail</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={row.id} bg={row.status === 'pass' ? undefined : `var(--mantine-color-${CHECK_COLOR[row.status]}-light)`} data-status={row.status}>
              <Table.Td>
                <CheckIcon status={row.status} />
              </Table.Td>
              <Table.Td>
                <Text size="sm" fw={600}>
                  {row.title}
                </Text>
                <Text size="xs" c="dimmed" ff="monospace">
                  {row.id}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                  {row.detail}
                </Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {rows.length === 0 && (
        <Text size="sm" c="dimmed" p="md">
          No checks ran.
        </Text>
      )}
    </Paper>
  );
}
