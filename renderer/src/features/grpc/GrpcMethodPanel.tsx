import { Alert, Badge, Button, Code, Group, Loader, Paper, Stack, Table, Tabs, Text, Title } from '@mantine/core';
import { IconAlertTriangle, IconPlayerPlay, IconPlayerStop } from '@tabler/icons-react';
import { useState } from 'react';
import type { GrpcMethodView } from '../../../../shared/grpc';
import { formatDuration } from '../../components/format';
import { JsonTree } from '../../components/JsonTree';
import { SchemaTree } from '../../components/SchemaTree';
import { SaveToCollectionButton } from '../collections/SaveToCollectionButton';
import { ArgumentsEditor } from '../invoke/ArgumentsEditor';
import { TimeoutsPopover } from '../invoke/TimeoutsPopover';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../../rpc/client';
import { effectiveTimeouts, timeoutOverrides, type InvokeTimeouts, type ToolView } from '../invoke/types';
import { useArguments } from '../invoke/useArguments';
import { useGrpcCall, type GrpcCallState } from './useGrpcCall';

/** Call one reflected method: a form from its request descriptor, then the response(s), status, headers and trailers. */
export function GrpcMethodPanel({ method }: { method: GrpcMethodView }) {
  const trpc = useTRPC();
  // The method's registry entry carries the runtime the pipeline applies: the timeouts start there.
  const entry = useQuery({ ...trpc.tools.get.queryOptions({ name: method.registryName ?? '' }), enabled: !!method.registryName });
  return <MethodCaller key={method.name} method={method} entry={entry.data ?? undefined} />;
}

/** Until the registry entry is read (or for a method that is not callable), the pipeline's defaults stand in. */
const FALLBACK_TIMEOUTS: InvokeTimeouts = { timeoutMs: 30_000, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 600_000 };

function MethodCaller({ method, entry }: { method: GrpcMethodView; entry?: ToolView }) {
  const args = useArguments(method.requestSchema);
  const effective = entry ? effectiveTimeouts(entry) : FALLBACK_TIMEOUTS;
  const [overrides, setOverrides] = useState<Partial<InvokeTimeouts>>({});
  const timeouts = { ...effective, ...overrides };
  const setTimeouts = (value: InvokeTimeouts) => setOverrides(timeoutOverrides(value, effective));
  const { state, start, cancel } = useGrpcCall();
  const running = state.phase === 'running';
  const call = () => {
    if (!method.registryName || running || !args.valid) return;
    start({ name: method.registryName, arguments: args.args, ...overrides });
  };

  return (
    <Stack gap="md" aria-label={`Method ${method.name}`}>
      <div>
        <Group gap="xs">
          <Title order={4} ff="monospace">
            {method.method}
          </Title>
          <Badge variant="light" color={method.serverStreaming ? 'grape' : 'blue'}>
            {method.clientStreaming ? (method.serverStreaming ? 'bidi streaming' : 'client streaming') : method.serverStreaming ? 'server streaming' : 'unary'}
          </Badge>
        </Group>
        <Text size="xs" c="dimmed" ff="monospace">
          {method.requestType} → {method.serverStreaming ? 'stream ' : ''}
          {method.responseType}
        </Text>
      </div>
      {method.unusable ? (
        <Alert color="gray" variant="light" title="Not callable here">
          {method.unusable}
        </Alert>
      ) : (
        <>
          <ArgumentsEditor state={args} schema={method.requestSchema} documentName={method.registryName ?? method.name} disabled={running} onSubmit={call} />
          <Group gap="sm">
            <Button leftSection={<IconPlayerPlay size={16} aria-hidden />} onClick={call} disabled={running || !args.valid} loading={running && !method.serverStreaming}>
              Call
            </Button>
            {running && (
              <Button variant="default" color="red" leftSection={<IconPlayerStop size={16} aria-hidden />} onClick={cancel}>
                Cancel
              </Button>
            )}
            <TimeoutsPopover value={timeouts} defaults={effective} onChange={setTimeouts} disabled={running} />
            {method.registryName && <SaveToCollectionButton disabled={!args.valid} source={() => ({ kind: 'call', name: method.registryName!, arguments: args.args })} />}
          </Group>
          <CallResult state={state} streaming={method.serverStreaming} />
        </>
      )}
      <Tabs defaultValue="request" variant="pills" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="request">Request schema</Tabs.Tab>
          <Tabs.Tab value="response">Response schema</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="request" pt="sm">
          <Paper withBorder p="sm">
            <SchemaTree schema={method.requestSchema} />
          </Paper>
        </Tabs.Panel>
        <Tabs.Panel value="response" pt="sm">
          <Paper withBorder p="sm">
            <SchemaTree schema={method.responseSchema} />
          </Paper>
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

function CallResult({ state, streaming }: { state: GrpcCallState; streaming: boolean }) {
  if (state.phase === 'idle') {
    return (
      <Paper radius="md" p="lg" style={{ border: '1px dashed var(--mantine-color-default-border)' }}>
        <Text size="sm" c="dimmed" ta="center">
          The response, its status and trailers appear here.
        </Text>
      </Paper>
    );
  }
  const received = streaming && state.messages.length > 0 && <StreamedMessages messages={state.messages} />;
  return (
    <Stack gap="sm" aria-label="gRPC response" role="region">
      {state.phase === 'running' && (
        <Group gap="xs" role="status">
          <Loader size="xs" />
          <Text size="sm">{streaming ? `Receiving… ${state.messages.length} message${state.messages.length === 1 ? '' : 's'} so far` : 'Waiting for the response…'}</Text>
        </Group>
      )}
      {state.phase === 'canceled' && (
        <Alert color="gray" variant="light" icon={<IconPlayerStop size={18} />} title="Canceled" role="status">
          Canceled after {formatDuration(state.elapsedMs)}, {state.messages.length} message{state.messages.length === 1 ? '' : 's'} received; the call was cancelled at the server.
        </Alert>
      )}
      {state.phase === 'failed' && (
        <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} title="The call failed" role="alert">
          <Group gap={6} mb={4}>
            <Code fw={700}>{state.error.code}</Code>
            {state.error.step && <Badge size="xs" variant="outline">{state.error.step}</Badge>}
          </Group>
          <Text size="sm">{state.error.message}</Text>
        </Alert>
      )}
      {state.phase === 'done' && state.call && (
        <>
          <Group gap="xs">
            <Badge color={state.call.status.code === 0 ? 'teal' : 'red'} aria-label={`Status ${state.call.status.name}`}>
              {state.call.status.name} ({state.call.status.code})
            </Badge>
            <Text size="xs" c="dimmed">
              {formatDuration(state.outcome.record.latencyMs)}
              {state.call.status.details ? ` · ${state.call.status.details}` : ''}
            </Text>
          </Group>
          {!streaming && (
            <Paper withBorder p="sm" aria-label="Response message">
              <JsonTree value={state.call.response} label="Response" />
            </Paper>
          )}
        </>
      )}
      {received}
      {state.phase === 'done' && state.call && (
        <Group align="flex-start" grow>
          <MetadataTable title="Headers" values={state.call.headers} />
          <MetadataTable title="Trailers" values={state.call.trailers} />
        </Group>
      )}
    </Stack>
  );
}

function StreamedMessages({ messages }: { messages: unknown[] }) {
  return (
    <Paper withBorder p="sm" aria-label="Streamed messages">
      <Stack gap={6}>
        {messages.map((message, index) => (
          <Group key={index} gap="xs" align="flex-start" wrap="nowrap">
            <Badge size="xs" variant="default">
              #{index + 1}
            </Badge>
            <Code block fz="xs" style={{ flex: 1 }}>
              {JSON.stringify(message)}
            </Code>
          </Group>
        ))}
      </Stack>
    </Paper>
  );
}

function MetadataTable({ title, values }: { title: string; values: Record<string, string> }) {
  const entries = Object.entries(values);
  return (
    <Paper withBorder p="sm" aria-label={title}>
      <Text size="sm" fw={600} mb={4}>
        {title}
      </Text>
      {entries.length === 0 ? (
        <Text size="xs" c="dimmed">
          None
        </Text>
      ) : (
        <Table fz="xs" withRowBorders={false}>
          <Table.Tbody>
            {entries.map(([key, value]) => (
              <Table.Tr key={key}>
                <Table.Td ff="monospace">{key}</Table.Td>
                <Table.Td ff="monospace" style={{ wordBreak: 'break-all' }}>
                  {value}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Paper>
  );
}
