import { ActionIcon, Box, Button, Group, ScrollArea, SegmentedControl, Text, Tooltip } from '@mantine/core';
import { IconDownload, IconInfoCircle } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import type { TranscriptEntry } from '../../../../shared/mcp';
import { McpTranscriptTable } from '../../components/McpTranscriptTable';
import { useTRPC } from '../../rpc/client';
import { downloadText } from '../../shell/download';
import { ClearableTextInput } from '../../components/ClearableTextInput';

/** Every JSON-RPC message with time, direction, method and latency; stderr interleaved. */
export function TranscriptPanel({ server }: { server: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [filter, setFilter] = useState('');
  const [kind, setKind] = useState<'all' | 'rpc' | 'stderr'>('all');
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
        <ClearableTextInput
          size="xs"
          placeholder="Filter messages"
          value={filter}
          onValueChange={setFilter}
          aria-label="Filter transcript"
          style={{ flex: 1 }}
          clearLabel="Clear filter"
        />
        <SegmentedControl size="xs" value={kind} onChange={(v) => setKind(v as typeof kind)} data={[{ value: 'all', label: 'All' }, { value: 'rpc', label: 'JSON-RPC' }, { value: 'stderr', label: 'stderr' }]} aria-label="Message kinds" />
        <Button size="xs" variant="default" leftSection={<IconDownload size={14} />} onClick={() => void exportFile()}>
          Export
        </Button>
      </Group>
      <ScrollArea h={480} type="auto">
        <McpTranscriptTable entries={entries} time="clock" label="Transcript" striped stickyHeader />
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
