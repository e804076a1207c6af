import { ActionIcon, Badge, Box, Button, Code, Group, ScrollArea, SegmentedControl, Table, Text, TextInput, Tooltip } from '@mantine/core';
import { IconArrowDownLeft, IconArrowUpRight, IconDownload, IconInfoCircle, IconTerminal2 } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import type { TranscriptEntry } from '../../../../shared/mcp';
import { useTRPC } from '../../rpc/client';
import { downloadText } from '../../shell/download';

const KIND_COLOR: Record<TranscriptEntry['kind'], string> = { request: 'blue', response: 'teal', error: 'red', notification: 'grape', stderr: 'orange', event: 'gray' };

function DirectionIcon({ entry }: { entry: TranscriptEntry }) {
  if (entry.kind === 'stderr') return <IconTerminal2 size={14} aria-label="stderr" />;
  if (entry.direction === 'local') return <IconInfoCircle size={14} aria-label="event" />;
  return entry.direction === 'out' ? <IconArrowUpRight size={14} aria-label="sent" /> : <IconArrowDownLeft size={14} aria-label="received" />;
}

/** Every JSON-RPC message with time, direction, method and latency; stderr interleaved. */
export function TranscriptPanel({ server }: { server: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [filter, setFilter] = useState('');
  const [kind, setKind] = useState<'all' | 'rpc' | 'stderr'>('all');
  const [expanded, setExpanded] = useState<number>();
  const transcript = useQuery({ ...trpc.mcp.transcript.queryOptions({ name: server }), refetchInterval: 1000 });
  const entries = useMemo(() => {
    const all = (transcript.data ?? []) as TranscriptEntry[];
    const needle = filter.toLowerCase();
    return all
      .filter((e) => kind === 'all' || (kind === 'stderr' ? e.kind === 'stderr' : e.kind !== 'stderr' && e.kind !== 'event'))
      .filter((e) => !needle || e.text.toLowerCase().includes(needle) || e.method?.toLowerCase().includes(needle))
      .slice(-500)
      .reverse();
  }, [transcript.data, filter, kind]);

  const exportFile = async () => {
    const text = await queryClient.fetchQuery(trpc.mcp.exportTranscript.queryOptions({ name: server }));
    downloadText(`${server}-transcript.jsonl`, text, 'application/x-ndjson');
  };

  return (
    <Box>
      <Group mb="sm" gap="sm">
        <TextInput size="xs" placeholder="Filter messages" value={filter} onChange={(e) => setFilter(e.currentTarget.value)} aria-label="Filter transcript" style={{ flex: 1 }} />
        <SegmentedControl size="xs" value={kind} onChange={(v) => setKind(v as typeof kind)} data={[{ value: 'all', label: 'All' }, { value: 'rpc', label: 'JSON-RPC' }, { value: 'stderr', label: 'stderr' }]} aria-label="Message kinds" />
        <Button size="xs" variant="default" leftSection={<IconDownload size={14} />} onClick={() => void exportFile()}>
          Export
        </Button>
      </Group>
      <ScrollArea h={480} type="auto">
        <Table striped highlightOnHover stickyHeader verticalSpacing={4} fz="xs" aria-label="Transcript">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={92}>Time</Table.Th>
              <Table.Th w={28} />
              <Table.Th w={110}>Kind</Table.Th>
              <Table.Th>Method / message</Table.Th>
              <Table.Th w={80} ta="right">
                Latency
              </Table.Th>
              <Table.Th w={70} ta="right">
                Bytes
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {entries.map((e) => (
              <Table.Tr key={e.seq} onClick={() => setExpanded(expanded === e.seq ? undefined : e.seq)} style={{ cursor: 'pointer', verticalAlign: 'top' }}>
                <Table.Td ff="monospace">{new Date(e.at).toLocaleTimeString(undefined, { hour12: false }) + '.' + String(e.at % 1000).padStart(3, '0')}</Table.Td>
                <Table.Td>
                  <DirectionIcon entry={e} />
                </Table.Td>
                <Table.Td>
                  <Badge size="xs" variant="light" color={KIND_COLOR[e.kind]}>
                    {e.kind}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  {e.method && (
                    <Text span fw={600} ff="monospace" fz="xs" mr={6}>
                      {e.method}
                    </Text>
                  )}
                  {expanded === e.seq ? (
                    <Code block fz="xs" mt={4} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
                      {pretty(e.text)}
                    </Code>
                  ) : (
                    <Text span c="dimmed" ff="monospace" fz="xs" lineClamp={1} style={{ wordBreak: 'break-all' }}>
                      {e.text}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td ta="right" ff="monospace">
                  {e.latencyMs !== undefined ? `${e.latencyMs} ms` : ''}
                </Table.Td>
                <Table.Td ta="right" ff="monospace">
                  {e.bytes}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        {entries.length === 0 && (
          <Text c="dimmed" size="sm" ta="center" py="xl">
            No messages yet.
          </Text>
        )}
      </ScrollArea>
      <Group justify="flex-end" mt={4}>
        <Tooltip label="Secrets (tokens, keys, passwords) are masked before they are recorded">
          <ActionIcon variant="subtle" color="gray" size="sm" aria-label="About masking">
            <IconInfoCircle size={14} />
          </ActionIcon>
        </Tooltip>
      </Group>
    </Box>
  );
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
