import { ActionIcon, Badge, Box, Button, Code, Group, ScrollArea, SegmentedControl, Table, Text, Tooltip } from '@mantine/core';
import { IconAlertTriangle, IconArrowDownLeft, IconArrowUpRight, IconBolt, IconDownload, IconInfoCircle } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { Fragment, useMemo, useState } from 'react';
import type { A2aTranscriptEntry } from '../../../../shared/a2a';
import { CopyButton } from '../../components/CopyButton';
import { prettyJson } from '../../components/prettyJson';
import { useTRPC } from '../../rpc/client';
import { downloadText } from '../../shell/download';
import { ClearableTextInput } from '../../components/ClearableTextInput';
import { formatClock } from '../../components/format';

type Direction = A2aTranscriptEntry['direction'];

const DIRECTION: Record<Direction, { color: string; icon: typeof IconArrowUpRight; label: string }> = {
  request: { color: 'blue', icon: IconArrowUpRight, label: 'sent' },
  response: { color: 'teal', icon: IconArrowDownLeft, label: 'received' },
  event: { color: 'grape', icon: IconBolt, label: 'stream event' },
  error: { color: 'red', icon: IconAlertTriangle, label: 'error' },
};

function statusColor(status: number): string {
  if (status >= 500) return 'red';
  if (status >= 400) return 'orange';
  if (status >= 300) return 'yellow';
  return 'teal';
}

const isCardFetch = (e: A2aTranscriptEntry) => e.method.startsWith('GET ') && e.url.includes('/.well-known/');

/** The agent's wire traffic (card fetches, JSON-RPC calls, stream events), newest first, refreshed every second. */
export function AgentTranscriptPanel({ agent }: { agent: string }) {
  const trpc = useTRPC();
  const [filter, setFilter] = useState('');
  const [kind, setKind] = useState<'all' | 'rpc' | 'errors'>('all');
  const [expanded, setExpanded] = useState<number>();
  const transcript = useQuery({ ...trpc.a2a.transcript.queryOptions({ agent }), refetchInterval: 1000 });
  const all = useMemo(() => (transcript.data ?? []) as A2aTranscriptEntry[], [transcript.data]);
  const entries = useMemo(() => {
    const needle = filter.toLowerCase();
    return all
      .filter((e) => kind === 'all' || (kind === 'errors' ? e.direction === 'error' || (e.status ?? 0) >= 400 : !isCardFetch(e)))
      .filter((e) => !needle || e.method.toLowerCase().includes(needle) || e.url.toLowerCase().includes(needle) || e.body?.toLowerCase().includes(needle))
      .slice(-500)
      .reverse();
  }, [all, filter, kind]);

  const exportFile = () =>
    downloadText(`${agent}-a2a-transcript.jsonl`, all.map((e) => JSON.stringify(e)).join('\n') + (all.length ? '\n' : ''), 'application/x-ndjson');

  return (
    <Box>
      <Group mb="sm" gap="sm">
        <ClearableTextInput
          size="xs"
          placeholder="Filter by method, URL or body"
          value={filter}
          onValueChange={setFilter}
          aria-label="Filter transcript"
          style={{ flex: 1 }}
          clearLabel="Clear filter"
        />
        <SegmentedControl
          size="xs"
          value={kind}
          onChange={(v) => setKind(v as typeof kind)}
          data={[
            { value: 'all', label: 'All' },
            { value: 'rpc', label: 'Calls' },
            { value: 'errors', label: 'Errors' },
          ]}
          aria-label="Entries shown"
        />
        <Button size="xs" variant="default" leftSection={<IconDownload size={14} />} onClick={exportFile} disabled={all.length === 0}>
          Export
        </Button>
      </Group>
      <ScrollArea h="calc(100vh - 360px)" mih={320} type="auto">
        <Table striped highlightOnHover stickyHeader layout="fixed" verticalSpacing={4} fz="xs" aria-label="Transcript">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={96}>Time</Table.Th>
              <Table.Th w={100}>Direction</Table.Th>
              <Table.Th w={170}>Method</Table.Th>
              <Table.Th w={60}>Status</Table.Th>
              <Table.Th w={72} ta="right">
                Latency
              </Table.Th>
              <Table.Th>Body</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {entries.map((e) => {
              const direction = DIRECTION[e.direction];
              const open = expanded === e.seq;
              return (
                <Fragment key={e.seq}>
                  <Table.Tr onClick={() => setExpanded(open ? undefined : e.seq)} style={{ cursor: 'pointer' }} aria-expanded={open}>
                    <Table.Td ff="monospace">{formatClock(e.at, 'fixed')}</Table.Td>
                    <Table.Td>
                      <Badge size="xs" variant="light" tt="none" color={direction.color} leftSection={<direction.icon size={10} aria-hidden />}>
                        {e.direction}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      <Text fw={600} ff="monospace" fz="xs" truncate="end" title={e.method}>
                        {e.method}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      {e.status !== undefined && (
                        <Badge size="xs" variant="outline" color={statusColor(e.status)}>
                          {e.status}
                        </Badge>
                      )}
                    </Table.Td>
                    <Table.Td ta="right" ff="monospace">
                      {e.latencyMs !== undefined ? `${Math.round(e.latencyMs)} ms` : ''}
                    </Table.Td>
                    <Table.Td>
                      <Text c="dimmed" ff="monospace" fz="xs" truncate="end">
                        {e.body ?? e.url}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                  {open && (
                    <Table.Tr>
                      <Table.Td colSpan={6} style={{ cursor: 'text' }}>
                        <Group gap={4} wrap="nowrap">
                          <Text fz="xs" c="dimmed" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
                            {e.url}
                          </Text>
                          {e.body !== undefined && <CopyButton value={e.body} label="Copy body" size="xs" />}
                        </Group>
                        {e.headers && Object.keys(e.headers).length > 0 && (
                          <Code block fz="xs" mt={4}>
                            {Object.entries(e.headers)
                              .map(([k, v]) => `${k}: ${v}`)
                              .join('\n')}
                          </Code>
                        )}
                        {e.body !== undefined && (
                          <Code block fz="xs" mt={4} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
                            {prettyJson(e.body)}
                          </Code>
                        )}
                        {e.truncated && (
                          <Text fz="xs" c="orange" mt={2}>
                            Body truncated.
                          </Text>
                        )}
                      </Table.Td>
                    </Table.Tr>
                  )}
                </Fragment>
              );
            })}
          </Table.Tbody>
        </Table>
        {entries.length === 0 && (
          <Text c="dimmed" size="sm" ta="center" py="xl">
            {transcript.isPending
              ? 'Loading…'
              : all.length
                ? 'Nothing matches the filter.'
                : 'No traffic yet. Card fetches, calls and stream events appear here.'}
          </Text>
        )}
      </ScrollArea>
      <Group justify="flex-end" mt={4}>
        <Tooltip label="Tokens, API keys and secret headers are masked before they are recorded">
          <ActionIcon variant="subtle" color="gray" size="sm" aria-label="About masking">
            <IconInfoCircle size={14} />
          </ActionIcon>
        </Tooltip>
      </Group>
    </Box>
  );
}
