import { Alert, Autocomplete, Badge, Button, Code, Group, Loader, Modal, Paper, Select, Stack, Switch, TagsInput, Text, Textarea, TextInput, Title, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconDeviceFloppy, IconSend } from '@tabler/icons-react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { AppErrorShape } from '../../../../shared/errors';
import { formatDuration } from '../../components/format';
import { JsonTree } from '../../components/JsonTree';
import { appErrorOf } from '../../rpc/appError';
import { useTRPC, useTRPCClient } from '../../rpc/client';
import { useNavigate } from '../../shell/useSection';

/** A tool call of a round, as the mediation engine traces it. */
interface CallCard {
  name: string;
  tool: string;
  service: string;
  arguments: Record<string, unknown>;
  result: string;
  latency_ms: number;
  status: 'ok' | 'error';
  duplicate?: boolean;
}

interface Round {
  round: number;
  tool_calls: CallCard[];
  note?: string;
}

/** One turn of the conversation: the user's message, the rounds as they finish, then the answer. */
interface Turn {
  user: string;
  rounds: Round[];
  running: boolean;
  answer?: string;
  error?: string;
  latencyMs?: number;
  tokens?: { prompt: number; completion: number };
}

type TurnEvent =
  | { type: 'round'; round: Round }
  | { type: 'answer'; answer?: string; latency_ms: number; tokens: { prompt: number; completion: number } }
  | { type: 'failed'; error: AppErrorShape };

/**
 * Try tools with a model: a conversation over an agent's grants (or hand-picked registry entries)
 * on the mediation engine agents use behind the gateway. Each tool call shows as a card when its
 * round ends, and goes through the pipeline as the operator via Playground (History shows it). The
 * last turn can be saved as an eval case.
 */
export function PlaygroundView() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const providers = useQuery(trpc.evals.providers.queryOptions());
  const agents = useQuery(trpc.playground.agents.queryOptions());
  const [model, setModel] = useState('');
  const [agent, setAgent] = useState<string | null>(null);
  const [tools, setTools] = useState<string[]>([]);
  const [system, setSystem] = useState('');
  const [execute, setExecute] = useState(true);
  const [message, setMessage] = useState('');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [saving, setSaving] = useState(false);
  const [conversationId] = useState(() => crypto.randomUUID());
  const subscription = useRef<{ unsubscribe(): void } | null>(null);
  useEffect(() => () => subscription.current?.unsubscribe(), []);

  const running = turns.at(-1)?.running === true;
  const update = (change: (turn: Turn) => Turn) => setTurns((list) => [...list.slice(0, -1), change(list.at(-1)!)]);

  const send = () => {
    const text = message.trim();
    if (!text || running || !model.trim()) return;
    const history = turns.flatMap((turn) => (turn.answer !== undefined ? [{ role: 'user' as const, content: turn.user }, { role: 'assistant' as const, content: turn.answer }] : []));
    setTurns((list) => [...list, { user: text, rounds: [], running: true }]);
    setMessage('');
    const end = (change: Partial<Turn>) => {
      subscription.current = null;
      update((turn) => (turn.running ? { ...turn, ...change, running: false } : turn));
    };
    subscription.current = client.playground.turn.subscribe(
      { model: model.trim(), ...(system.trim() ? { system } : {}), messages: [...history, { role: 'user', content: text }], ...(agent ? { agent } : {}), ...(tools.length ? { tools } : {}), execute, conversationId },
      {
        onData(data) {
          const event = data as TurnEvent;
          if (event.type === 'round') update((turn) => ({ ...turn, rounds: [...turn.rounds, event.round] }));
          else if (event.type === 'answer') end({ answer: event.answer ?? '', latencyMs: event.latency_ms, tokens: event.tokens });
          else end({ error: event.error.message });
        },
        onError: (error) => end({ error: appErrorOf(error).message }),
        onComplete: () => end({ error: 'The turn ended without an answer.' }),
      },
    );
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  };

  const last = turns.at(-1);
  return (
    <Stack gap="md">
      <div>
        <Title order={2}>Playground</Title>
        <Text c="dimmed" size="sm">
          Try tools with a model. Turns run on the same mediation engine agents use behind the gateway, and every tool call goes through the pipeline under policy (History: via Playground).
        </Text>
      </div>
      <Paper withBorder p="md" radius="md" component="section" aria-label="Model and tools">
        <Group align="flex-end" gap="sm" wrap="wrap">
          <Autocomplete label="Model" placeholder="provider/model" description={providers.data?.length ? `providers: ${providers.data.map((item) => item.name).join(', ')}` : 'add a provider first: tooldeck providers add'} data={(providers.data ?? []).map((item) => `${item.name}/`)} value={model} onChange={setModel} w={260} />
          <Select label="Agent" description="its grants are the tools" placeholder="an agent of the workspace" data={agents.data ?? []} value={agent} onChange={setAgent} clearable searchable w={220} />
          <TagsInput label="Registry tools" description="or hand-picked entries (these win)" placeholder="mcp:everything.echo" value={tools} onChange={setTools} style={{ flex: 1, minWidth: 240 }} />
          <Switch label="Execute tools" checked={execute} onChange={(event) => setExecute(event.currentTarget.checked)} mb={8} />
        </Group>
        <Textarea label="System prompt" autosize minRows={1} maxRows={6} mt="sm" value={system} onChange={(event) => setSystem(event.currentTarget.value)} />
      </Paper>

      <Stack gap="sm" aria-label="Conversation">
        {turns.map((turn, index) => (
          <TurnView key={index} turn={turn} />
        ))}
      </Stack>

      <Paper withBorder p="sm" radius="md">
        <Group align="flex-end" gap="sm" wrap="nowrap">
          <Textarea
            label="Message"
            description="Enter sends, Shift+Enter starts a new line"
            autosize
            minRows={2}
            maxRows={10}
            value={message}
            onChange={(event) => setMessage(event.currentTarget.value)}
            onKeyDown={onKeyDown}
            style={{ flex: 1 }}
          />
          <Stack gap={6}>
            <Button leftSection={<IconSend size={16} />} onClick={send} disabled={!message.trim() || !model.trim() || running} loading={running}>
              Send
            </Button>
            <Button variant="default" leftSection={<IconDeviceFloppy size={16} />} disabled={!last || last.running || last.answer === undefined} onClick={() => setSaving(true)}>
              Save as eval case
            </Button>
          </Stack>
        </Group>
      </Paper>
      {last && saving && <SaveCaseModal turn={last} agent={agent} tools={tools} onClose={() => setSaving(false)} />}
    </Stack>
  );
}

function TurnView({ turn }: { turn: Turn }) {
  return (
    <Stack gap={6}>
      <Paper p="sm" radius="md" bg="var(--mantine-color-blue-light)" ml="auto" maw="75%" aria-label="Your message">
        <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
          {turn.user}
        </Text>
      </Paper>
      {turn.rounds.flatMap((round) => round.tool_calls.map((call, index) => <ToolCard key={`${round.round}-${index}`} call={call} />))}
      {turn.running && (
        <Group gap="xs">
          <Loader size="xs" />
          <Text size="sm" c="dimmed">
            Waiting on the model…
          </Text>
        </Group>
      )}
      {turn.answer !== undefined && (
        <Paper withBorder p="sm" radius="md" maw="75%" aria-label="Answer">
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {turn.answer || '(no text)'}
          </Text>
          <Text size="xs" c="dimmed" mt={4}>
            {formatDuration(turn.latencyMs ?? 0)} · {turn.rounds.length} round(s) · {turn.tokens?.prompt ?? 0} prompt + {turn.tokens?.completion ?? 0} completion tokens
          </Text>
        </Paper>
      )}
      {turn.error && (
        <Alert color="red" variant="light" title="The turn failed">
          {turn.error}
        </Alert>
      )}
    </Stack>
  );
}

function ToolCard({ call }: { call: CallCard }) {
  return (
    <Paper withBorder p="xs" radius="sm" maw="75%" aria-label={`Tool call ${call.name}`}>
      <Group justify="space-between" mb={4}>
        <Tooltip label={call.tool}>
          <Code>{call.name}</Code>
        </Tooltip>
        <Group gap={6}>
          {call.duplicate && (
            <Badge size="xs" color="gray" variant="light">
              repeated
            </Badge>
          )}
          <Badge size="xs" color={call.status === 'ok' ? 'green' : 'red'} variant="light">
            {call.status}
          </Badge>
          <Text size="xs" c="dimmed">
            {formatDuration(call.latency_ms)}
          </Text>
        </Group>
      </Group>
      <JsonTree value={call.arguments} label="Arguments" expandDepth={2} />
      <Text size="xs" c="dimmed" mt={4}>
        Result
      </Text>
      <Code block style={{ maxHeight: 160, overflow: 'auto', whiteSpace: 'pre-wrap' }}>
        {call.result}
      </Code>
    </Paper>
  );
}

function SaveCaseModal({ turn, agent, tools, onClose }: { turn: Turn; agent: string | null; tools: string[]; onClose: () => void }) {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const [file, setFile] = useState('evals/playground.yml');
  const [caseName, setCaseName] = useState(turn.user.slice(0, 60));
  const save = useMutation(
    trpc.playground.saveCase.mutationOptions({
      onSuccess: (saved) => {
        notifications.show({ color: 'green', title: `Saved case ${saved.caseName}`, message: `In ${saved.file}; run it in Evals.` });
        onClose();
        navigate('evals', { suite: saved.file });
      },
    }),
  );
  const calls = turn.rounds.flatMap((round) => round.tool_calls.filter((call) => !call.duplicate));
  return (
    <Modal opened onClose={onClose} title="Save as eval case">
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          The last message becomes the case’s prompt and the {calls.length} tool call(s) the model made its expectation (in this order, arguments matched partially). Edit the file to loosen it.
        </Text>
        <TextInput label="Suite file" value={file} onChange={(event) => setFile(event.currentTarget.value)} />
        <TextInput label="Case name" value={caseName} onChange={(event) => setCaseName(event.currentTarget.value)} />
        {save.error && <Alert color="red">{appErrorOf(save.error).message}</Alert>}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button
            loading={save.isPending}
            disabled={!caseName.trim()}
            onClick={() => save.mutate({ file, caseName, prompt: turn.user, toolCalls: calls.map((call) => ({ tool: call.tool, name: call.name, service: call.service, arguments: call.arguments })), ...(agent ? { agent } : {}), ...(tools.length ? { tools } : {}) })}
          >
            Save case
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
