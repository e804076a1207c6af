import { ActionIcon, Alert, Badge, Box, Button, Code, Group, Loader, Stack, Table, Text, ThemeIcon } from '@mantine/core';
import { IconAlertTriangle, IconCheck, IconChevronDown, IconChevronRight, IconX } from '@tabler/icons-react';
import { Fragment, useState } from 'react';
import type { AssertionResult, RequestResult } from '../../../../shared/collections';
import { formatDuration } from '../../components/format';
import { JsonTree } from '../../components/JsonTree';
import { RunOutcome } from './RunOutcome';
import type { RowState, RunRow } from './runProgress';

const STATE_COLOR: Record<RowState, string> = { pending: 'gray', running: 'blue', passed: 'teal', failed: 'red', errored: 'orange', skipped: 'gray' };

export function RequestStateBadge({ state }: { state: RowState }) {
  return (
    <Badge color={STATE_COLOR[state]} variant={state === 'pending' ? 'outline' : 'light'} leftSection={state === 'running' ? <Loader size={10} color="blue" /> : undefined}>
      {state}
    </Badge>
  );
}

function assertionCounts(result: RequestResult | undefined): string {
  if (!result || result.assertions.length === 0) return '—';
  const passed = result.assertions.filter((a) => a.passed).length;
  const failed = result.assertions.length - passed;
  return failed ? `${passed} passed, ${failed} failed` : `${passed} passed`;
}

/** One row per request: its state as the run goes, then latency and assertions, expandable to the detail. */
export function RunResultsTable({ rows }: { rows: RunRow[] }) {
  const [open, setOpen] = useState<Set<number>>(new Set());
  const toggle = (index: number) =>
    setOpen((current) => {
      const next = new Set(current);
      if (!next.delete(index)) next.add(index);
      return next;
    });
  return (
    <Table aria-label="Run results" verticalSpacing={6} highlightOnHover>
      <Table.Thead>
        <Table.Tr>
          <Table.Th w={36} />
          <Table.Th>Request</Table.Th>
          <Table.Th>Status</Table.Th>
          <Table.Th>Latency</Table.Th>
          <Table.Th>Assertions</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((row) => {
          // Failures open by themselves: their messages are what the run is for.
          const expanded = open.has(row.index) !== (row.state === 'failed' || row.state === 'errored');
          const failing = row.result?.assertions.some((a) => !a.passed) === true;
          return (
            <Fragment key={row.index}>
              <Table.Tr>
                <Table.Td>
                  {row.result && (
                    <ActionIcon variant="subtle" size="sm" aria-expanded={expanded} aria-label={`${expanded ? 'Hide' : 'Show'} details of ${row.name}`} onClick={() => toggle(row.index)}>
                      {expanded ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />}
                    </ActionIcon>
                  )}
                </Table.Td>
                <Table.Td>
                  <Text size="sm" fw={600}>
                    {row.name}
                  </Text>
                  <Text size="xs" c="dimmed" ff="monospace">
                    {row.tool}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <RequestStateBadge state={row.state} />
                  {row.result?.duplicate && (
                    <Badge ml={4} color="blue" variant="outline" size="xs">
                      duplicate
                    </Badge>
                  )}
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{row.result?.latencyMs !== undefined ? formatDuration(row.result.latencyMs) : row.result ? '—' : ''}</Text>
                </Table.Td>
                <Table.Td>
                  <Text size="sm" c={failing ? 'red' : undefined}>
                    {assertionCounts(row.result)}
                  </Text>
                </Table.Td>
              </Table.Tr>
              {expanded && row.result && (
                <Table.Tr>
                  <Table.Td />
                  <Table.Td colSpan={4}>
                    <RequestResultDetail result={row.result} />
                  </Table.Td>
                </Table.Tr>
              )}
            </Fragment>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}

function RequestResultDetail({ result }: { result: RequestResult }) {
  const [showOutcome, setShowOutcome] = useState(false);
  return (
    <Stack gap="xs" py={4} aria-label={`Details of ${result.name}`}>
      {result.error && (
        <Alert color="orange" variant="light" icon={<IconAlertTriangle size={16} />} title={<Code>{result.error.code}</Code>}>
          <Text size="sm">{result.error.message}</Text>
        </Alert>
      )}
      {result.reason && (
        <Text size="sm" c="dimmed">
          Skipped: {result.reason}
        </Text>
      )}
      {result.assertions.length > 0 && (
        <Stack gap={6} role="list" aria-label="Assertion results">
          {result.assertions.map((a, i) => (
            <AssertionResultItem key={i} result={a} />
          ))}
        </Stack>
      )}
      {Object.keys(result.captured).length > 0 && (
        <Box>
          <Text size="xs" fw={600} c="dimmed">
            Captured
          </Text>
          <JsonTree value={result.captured} label={`Variables captured by ${result.name}`} expandDepth={1} />
        </Box>
      )}
      {result.arguments && (
        <Box>
          <Text size="xs" fw={600} c="dimmed">
            Arguments sent
          </Text>
          <JsonTree value={result.arguments} label={`Arguments sent by ${result.name}`} expandDepth={1} />
        </Box>
      )}
      {result.recordId && (
        <Box>
          <Button variant="subtle" size="xs" px={0} onClick={() => setShowOutcome((s) => !s)}>
            {showOutcome ? 'Hide the outcome' : 'Show the outcome'}
          </Button>
          {showOutcome && <RunOutcome recordId={result.recordId} />}
        </Box>
      )}
    </Stack>
  );
}

function AssertionResultItem({ result }: { result: AssertionResult }) {
  return (
    <Group gap="xs" align="flex-start" wrap="nowrap" role="listitem" aria-label={`${result.passed ? 'Passed' : 'Failed'}: ${result.description}`}>
      <ThemeIcon size="sm" radius="xl" variant="light" color={result.passed ? 'teal' : 'red'} aria-hidden>
        {result.passed ? <IconCheck size={12} /> : <IconX size={12} />}
      </ThemeIcon>
      <Stack gap={2} style={{ minWidth: 0, flex: 1 }}>
        <Text size="sm" ff="monospace">
          {result.description}
        </Text>
        {!result.passed && (
          <>
            <Text size="sm" c="red">
              {result.message}
            </Text>
            {result.actual === undefined ? (
              <Text size="xs" c="dimmed">
                Nothing was found there.
              </Text>
            ) : (
              <Box>
                <Text size="xs" fw={600} c="dimmed">
                  Actual
                </Text>
                <JsonTree value={result.actual} label="Actual value" expandDepth={2} />
              </Box>
            )}
          </>
        )}
      </Stack>
    </Group>
  );
}
