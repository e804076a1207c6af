import { Alert, Anchor, Badge, Box, Button, Center, Code, Divider, Group, Loader, Paper, ScrollArea, SimpleGrid, Stack, Text, Title, Tooltip } from '@mantine/core';
import { IconAlertTriangle, IconRepeat } from '@tabler/icons-react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useMemo, useState, type ReactNode } from 'react';
import type { InvocationRecord } from '../../../../shared/invocation';
import { sourceId } from '../../../../shared/invocation';
import type { TranscriptEntry } from '../../../../shared/mcp';
import type { InvocationOutcome } from '../../../../shared/registry';
import { CopyButton } from '../../components/CopyButton';
import { formatBytes } from '../../components/format';
import { JsonTree } from '../../components/JsonTree';
import { useTRPC } from '../../rpc/client';
import { SaveToCollectionButton } from '../collections/SaveToCollectionButton';
import { ConfirmInvokeDialog } from '../invoke/ConfirmInvokeDialog';
import { ResultView } from '../invoke/ResultView';
import { appErrorOf } from '../../rpc/appError';
import { formatLatency } from '../metrics/formatMetric';
import { CallStatusBadge } from './CallStatusBadge';
import { McpTranscriptTable } from '../../components/McpTranscriptTable';
import { VIA_LABEL } from './HistoryFilterBar';
import { reasonInOrlojWords } from '../../components/verdictWords';

export interface CallDetailProps {
  id: string;
  /** The outcome of the replay that produced this call, when it was just replayed here. */
  replayOutcome?: InvocationOutcome;
  onSelect: (id: string) => void;
  onReplayed: (outcome: InvocationOutcome) => void;
  /** Shows the calls of this W3C trace. */
  onTrace?: (traceId: string) => void;
}

type Parsed = { ok: true; value: unknown } | { ok: false };

function parseJson(text: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Why a recorded call cannot be sent again exactly (the server refuses the same cases). */
function replayBlock(record: InvocationRecord, args: Parsed): string | undefined {
  if (!args.ok || !args.value || typeof args.value !== 'object' || Array.isArray(args.value)) return 'The recorded arguments are not a JSON object.';
  if (record.argumentsJson.includes('"***"') || '_truncated' in args.value) return 'The recorded arguments were masked or cut to size.';
  return undefined;
}

const dateTimeFormat = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });

/** One recorded call: what was sent, what came back, how long it took, its JSON-RPC traffic, and Replay. */
export function CallDetail({ id, replayOutcome, onSelect, onReplayed, onTrace }: CallDetailProps) {
  const trpc = useTRPC();
  const detail = useQuery(trpc.history.get.queryOptions({ id }));

  if (detail.isPending) {
    return (
      <Center py="xl">
        <Loader size="sm" aria-label="Loading call" />
      </Center>
    );
  }
  if (detail.error) {
    return (
      <Alert color="red" variant="light" title="Could not load this call">
        {detail.error.message}
      </Alert>
    );
  }
  return (
    <LoadedCall
      record={detail.data.record}
      transcript={detail.data.transcript as TranscriptEntry[]}
      replayOutcome={replayOutcome?.record.id === id ? replayOutcome : undefined}
      onSelect={onSelect}
      onReplayed={onReplayed}
      onTrace={onTrace}
    />
  );
}

function LoadedCall({ record, transcript, replayOutcome, onSelect, onReplayed, onTrace }: { record: InvocationRecord; transcript: TranscriptEntry[] } & Omit<CallDetailProps, 'id'>) {
  const trpc = useTRPC();
  const source = { kind: record.sourceKind, name: record.sourceName };
  const entryName = `${sourceId(source)}.${record.tool}`;
  const tool = useQuery(trpc.tools.get.queryOptions({ name: entryName }));
  const args = useMemo(() => parseJson(record.argumentsJson), [record.argumentsJson]);
  const preview = useMemo(() => parseJson(record.resultPreview), [record.resultPreview]);
  const [confirming, setConfirming] = useState(false);
  const replay = useMutation(trpc.history.replay.mutationOptions({ onSuccess: onReplayed }));

  const entry = tool.data ?? undefined;
  const blocked =
    replayBlock(record, args) ??
    (tool.data === null ? `${entryName} is not in the catalog now; connect its server to replay.` : entry?.verdict.verdict === 'deny' ? `Policy denies this tool: ${entry.verdict.reasons.map(reasonInOrlojWords).join(' · ')}` : undefined);
  const needsConfirmation = entry?.verdict.verdict === 'confirm';

  const startReplay = () => {
    if (needsConfirmation) setConfirming(true);
    else replay.mutate({ id: record.id });
  };

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <div style={{ minWidth: 0 }}>
          <Group gap="xs" wrap="nowrap">
            <Title order={4} ff="monospace" style={{ wordBreak: 'break-all' }}>
              {record.tool}
            </Title>
            <Box style={{ flexShrink: 0 }}>
              <CallStatusBadge record={record} />
            </Box>
          </Group>
          <Text size="xs" c="dimmed" mt={2}>
            {sourceId(source)} · {dateTimeFormat.format(record.startedAt)}.{String(record.startedAt % 1000).padStart(3, '0')}
          </Text>
        </div>
        <Group gap="xs" wrap="nowrap" style={{ flexShrink: 0 }}>
          {record.sourceKind !== 'http' && <SaveToCollectionButton size="xs" source={() => ({ kind: 'history', id: record.id })} />}
          <Tooltip label={blocked ?? `Run ${record.tool} again with the same arguments`} withArrow multiline maw={320}>
            <Button size="xs" leftSection={<IconRepeat size={14} />} onClick={startReplay} loading={replay.isPending} disabled={blocked !== undefined} style={{ flexShrink: 0 }}>
              Replay
            </Button>
          </Tooltip>
        </Group>
      </Group>

      {replay.error && (
        <Alert color="red" variant="light" icon={<IconAlertTriangle size={16} />} title={`Replay failed: ${appErrorOf(replay.error).code}`} withCloseButton onClose={() => replay.reset()}>
          {appErrorOf(replay.error).message}
        </Alert>
      )}

      {replayOutcome && (
        <Paper withBorder p="sm" radius="md" aria-label="Replay outcome" component="section">
          <Group gap={6} mb="xs">
            <IconRepeat size={14} />
            <Text fw={600} size="sm">
              Replay outcome
            </Text>
          </Group>
          <ResultView outcome={replayOutcome} tool={entry ?? { source }} />
        </Paper>
      )}

      <SimpleGrid cols={4} spacing="xs" verticalSpacing="xs">
        <Fact label="Latency" value={formatLatency(record.latencyMs)} />
        <Fact label="Sent" value={formatBytes(record.requestBytes)} />
        <Fact label="Received" value={formatBytes(record.responseBytes)} />
        {record.attempts !== undefined && <Fact label="Attempts" value={String(record.attempts)} />}
        {(record.via || record.agent) && <Fact label="Caller" value={`${record.agent ? `agent ${record.agent}` : 'operator'}${record.via ? ` via ${VIA_LABEL[record.via]}` : ''}`} />}
        {record.runId && <Fact label="Run" value={record.runId} />}
        {record.taskId && <Fact label="Task" value={`${record.taskId}${record.taskStatus ? ` (${record.taskStatus})` : ''}`} />}
      </SimpleGrid>

      {record.traceId && (
        <Group gap="xs" wrap="nowrap">
          <Text size="xs" c="dimmed">
            Trace
          </Text>
          <Code fz="xs" aria-label="Trace id">
            {record.traceId}
          </Code>
          <CopyButton value={record.traceId} label="Copy trace id" size="xs" />
          {onTrace && (
            <Anchor component="button" size="xs" onClick={() => onTrace(record.traceId!)} style={{ whiteSpace: 'nowrap' }}>
              Calls of this trace
            </Anchor>
          )}
        </Group>
      )}

      <Group gap="xs" wrap="nowrap">
        <Text size="xs" c="dimmed">
          Call id
        </Text>
        <Code fz="xs" style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
          {record.id}
        </Code>
        <CopyButton value={record.id} label="Copy call id" size="xs" />
        {record.replayOf && (
          <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
            · replay of{' '}
            <Anchor component="button" size="xs" onClick={() => onSelect(record.replayOf!)}>
              the original call
            </Anchor>
          </Text>
        )}
      </Group>

      {(record.errorMessage || (record.status !== 'ok' && record.errorCode)) && (
        <Alert color={record.status === 'denied' ? 'orange' : 'red'} variant="light" icon={<IconAlertTriangle size={16} />} title={record.errorCode ?? (record.isError ? 'The tool reported an error' : 'Error')}>
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {record.errorMessage ?? ''}
          </Text>
        </Alert>
      )}

      <Block title="Arguments" copy={record.argumentsJson} copyLabel="Copy arguments">
        {args.ok ? <JsonTree value={args.value} label="Arguments" expandDepth={2} /> : <Pre text={record.argumentsJson} />}
      </Block>

      <Block
        title="Result preview"
        badge={
          record.truncated ? (
            <Badge size="xs" color="yellow" variant="light">
              Truncated
            </Badge>
          ) : undefined
        }
        copy={record.resultPreview}
        copyLabel="Copy result preview"
      >
        {record.resultPreview === '' ? (
          <Text size="sm" c="dimmed">
            No result recorded.
          </Text>
        ) : preview.ok ? (
          <JsonTree value={preview.value} label="Result preview" expandDepth={2} />
        ) : (
          <Pre text={record.resultPreview} />
        )}
      </Block>

      {record.sourceKind === 'mcp' && (
        <Box>
          <Divider label="Transcript" labelPosition="left" mb={4} />
          {transcript.length ? (
            <McpTranscriptTable entries={transcript} time={{ since: record.startedAt }} label="Transcript slice" compact />
          ) : (
            <Text size="xs" c="dimmed">
              No transcript here: the process that made the call keeps it in memory (this app holds recent messages while the server stays connected; calls from the CLI keep theirs in the CLI).
            </Text>
          )}
        </Box>
      )}

      {entry && (
        <ConfirmInvokeDialog
          opened={confirming}
          tool={entry}
          arguments={args.ok ? (args.value as Record<string, unknown>) : {}}
          onConfirm={() => {
            setConfirming(false);
            replay.mutate({ id: record.id });
          }}
          onClose={() => setConfirming(false)}
        />
      )}
    </Stack>
  );
}

function Fact({ label, value }: { label: string; value: string }) {
  return (
    <Paper withBorder px="sm" py={6} radius="md">
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={600} ff="monospace" truncate="end">
        {value}
      </Text>
    </Paper>
  );
}

function Block({ title, badge, copy, copyLabel, children }: { title: string; badge?: ReactNode; copy: string; copyLabel: string; children: ReactNode }) {
  return (
    <Box component="section" aria-label={title}>
      <Group justify="space-between" mb={4}>
        <Group gap={6}>
          <Text size="xs" fw={700} c="dimmed" tt="uppercase">
            {title}
          </Text>
          {badge}
        </Group>
        <CopyButton value={copy} label={copyLabel} size="xs" />
      </Group>
      <Paper withBorder p="xs" radius="md">
        <ScrollArea.Autosize mah={320} type="auto">
          {children}
        </ScrollArea.Autosize>
      </Paper>
    </Box>
  );
}

function Pre({ text }: { text: string }) {
  return (
    <Box component="pre" m={0} ff="monospace" fz="xs" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
      {text}
    </Box>
  );
}
