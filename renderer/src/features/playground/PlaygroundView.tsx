import { Alert, Autocomplete, Badge, Button, Code, Group, Loader, Modal, Paper, Select, SimpleGrid, Stack, Switch, TagsInput, Text, Textarea, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconDeviceFloppy, IconPlus, IconSend } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { AppErrorShape } from '../../../../shared/errors';
import { formatClock, formatDuration } from '../../components/format';
import { JsonTree } from '../../components/JsonTree';
import { reasonInOrlojWords } from '../../components/verdictWords';
import { appErrorOf } from '../../rpc/appError';
import { useTRPC, useTRPCClient } from '../../rpc/client';
import { useModelSuggestions } from '../evals/useEvals';
import { useNavigate } from '../../shell/useSection';
import { TracedCallCard } from '../mediation/TracedCallCard';

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

/** One model's side of a turn: the rounds as they finish, what it waits on, then the answer. */
/** A call the turn holds until the operator decides (policy said approval_required). */
interface HeldCall {
  id: string;
  tool: string;
  arguments: Record<string, unknown>;
  reasons: string[];
}

interface ModelTurn {
  model: string;
  rounds: Round[];
  held?: HeldCall[];
  running: boolean;
  progress?: string;
  answer?: string;
  error?: string;
  latencyMs?: number;
  tokens?: { prompt: number; completion: number };
  /** US dollars, where the provider reports a cost. */
  cost?: number;
}

/** One turn of the conversation: the user's message, and each model's side of it. */
interface Turn {
  user: string;
  sides: ModelTurn[];
}

/** Models answering the same prompt side by side, at most. */
const MAX_MODELS = 4;

type TurnEvent =
  | { type: 'progress'; line: string }
  | ({ type: 'approval' } & HeldCall)
  | { type: 'decided'; id: string; approved: boolean }
  | { type: 'round'; round: Round }
  | { type: 'answer'; answer?: string; latency_ms: number; tokens: { prompt: number; completion: number }; cost?: number }
  | { type: 'failed'; error: AppErrorShape };

/** The saved conversations: their list, one loaded, one saved (the list is read again after). */
function useSavedConversations() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const queries = useQueryClient();
  const list = useQuery(trpc.playground.conversations.queryOptions());
  const save = useMutation(
    trpc.playground.saveConversation.mutationOptions({
      onSuccess: () => queries.invalidateQueries({ queryKey: trpc.playground.conversations.queryKey() }),
      onError: (error) => notifications.show({ color: 'red', title: 'The conversation was not saved', message: appErrorOf(error).message }),
    }),
  );
  const load = (id: string) =>
    client.playground.conversation.query({ id }).catch((error: unknown) => {
      notifications.show({ color: 'red', title: 'The conversation could not be opened', message: appErrorOf(error).message });
      return undefined;
    });
  return { list: list.data, save, load };
}

/**
 * Try tools with a model: a conversation over an agent's grants (or hand-picked registry entries)
 * on the mediation engine agents use behind the gateway. Each tool call shows as a card when its
 * round ends, and goes through the pipeline as the operator via Playground (History shows it). The
 * last turn can be saved as an eval case.
 */
/** The most registry entries one turn may name (the turn's input limit). */
const MAX_TURN_TOOLS = 200;

/** What a turn offers the model: what was picked, else the default the view names. */
export type PlaygroundToolSet = { agent: string; why: string } | { tools: string[]; why: string } | { none: string };

/**
 * The tool set of a turn. Picked registry entries win, then a picked agent's grants; with nothing
 * picked, the first agent the workspace declares (its grants: what that agent would be offered
 * behind the gateway), else every registry entry the operator may call. A turn is never sent
 * without one (the engine refuses it).
 */
export function playgroundToolSet(picked: { agent: string | null; tools: string[] }, declaredAgents: readonly string[] | undefined, callable: readonly string[] | undefined): PlaygroundToolSet {
  if (picked.tools.length > 0) return { tools: picked.tools, why: `${picked.tools.length} picked registry entr${picked.tools.length === 1 ? 'y' : 'ies'}` };
  if (picked.agent) return { agent: picked.agent, why: `${picked.agent}'s grants` };
  const first = declaredAgents?.[0];
  if (first) return { agent: first, why: `${first}'s grants (the first agent the workspace declares; pick another agent or registry entries to change it)` };
  if (callable?.length) return { tools: callable.slice(0, MAX_TURN_TOOLS), why: `every tool you may call (${Math.min(callable.length, MAX_TURN_TOOLS)}), since the workspace declares no agent` };
  return { none: 'No tools to offer: the workspace declares no agent and no server is connected (Servers).' };
}

export function PlaygroundView() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const navigate = useNavigate();
  const providers = useQuery(trpc.evals.providers.queryOptions());
  const agents = useQuery(trpc.playground.agents.queryOptions());
  // Only asked when the workspace declares no agent: then every entry the operator may call is the default.
  const callable = useQuery({ ...trpc.tools.list.queryOptions(), enabled: agents.data !== undefined && agents.data.length === 0, select: (list) => list.filter((tool) => tool.verdict.verdict !== 'deny').map((tool) => tool.name) });
  const suggestions = useModelSuggestions();
  const [model, setModel] = useState('');
  const [compare, setCompare] = useState<string[]>([]);
  const [agent, setAgent] = useState<string | null>(null);
  const [tools, setTools] = useState<string[]>([]);
  const [system, setSystem] = useState('');
  const [execute, setExecute] = useState(true);
  const [message, setMessage] = useState('');
  const [turns, setTurns] = useState<Turn[]>([]);
  const [saving, setSaving] = useState(false);
  const [conversationId, setConversationId] = useState<string>(() => crypto.randomUUID());
  const saved = useSavedConversations();
  const subscriptions = useRef<{ unsubscribe(): void }[]>([]);
  useEffect(() => () => subscriptions.current.forEach((subscription) => subscription.unsubscribe()), []);

  const models = [...new Set([model.trim(), ...compare.map((item) => item.trim())].filter(Boolean))].slice(0, MAX_MODELS);
  const running = turns.at(-1)?.sides.some((side) => side.running) === true;
  const toolSet = playgroundToolSet({ agent, tools }, agents.data, callable.data);
  const sendBlocked =
    providers.data?.length === 0
      ? 'Send needs a model provider: add one in Mediation.'
      : models.length === 0
        ? 'Send needs a model: type provider/model above.'
        : 'none' in toolSet
          ? toolSet.none
          : !message.trim()
            ? 'Type a message to send.'
            : undefined;
  /** Changes one model's side of the last turn. */
  const update = (index: number, change: (side: ModelTurn) => ModelTurn) =>
    setTurns((list) => {
      const last = list.at(-1)!;
      return [...list.slice(0, -1), { ...last, sides: last.sides.map((side, at) => (at === index ? change(side) : side)) }];
    });

  // A conversation is saved (with its setup) each time a turn ends.
  const wasRunning = useRef(false);
  useEffect(() => {
    if (wasRunning.current && !running && turns.length > 0) {
      saved.save.mutate({ id: conversationId, title: turns[0]!.user.slice(0, 200), setup: { model, compare, agent, tools, system, execute }, turns: turns.map((turn) => ({ ...turn, sides: turn.sides.map(({ held: _held, progress: _progress, ...side }) => ({ ...side, running: false })) })) });
    }
    wasRunning.current = running;
    // Only the end of a turn saves; the setup is saved with it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [running]);

  const startNew = () => {
    setTurns([]);
    setConversationId(crypto.randomUUID());
  };
  const open = async (id: string) => {
    const conversation = await saved.load(id);
    if (!conversation) return;
    setModel(conversation.setup.model);
    setCompare(conversation.setup.compare);
    setAgent(conversation.setup.agent);
    setTools(conversation.setup.tools);
    setSystem(conversation.setup.system);
    setExecute(conversation.setup.execute);
    setTurns(conversation.turns as Turn[]);
    setConversationId(conversation.id);
  };

  const send = () => {
    const text = message.trim();
    // Enter sends only what the Send button would: the reason it is disabled is on screen.
    if (!text || running || sendBlocked !== undefined || 'none' in toolSet) return;
    setTurns((list) => [...list, { user: text, sides: models.map((name) => ({ model: name, rounds: [], running: true })) }]);
    setMessage('');
    subscriptions.current = models.map((name, index) => {
      // Each model continues its own conversation: earlier prompts with its own answers.
      const history = turns.flatMap((turn) => {
        const side = turn.sides.find((item) => item.model === name);
        return side?.answer !== undefined ? [{ role: 'user' as const, content: turn.user }, { role: 'assistant' as const, content: side.answer }] : [];
      });
      const end = (change: Partial<ModelTurn>) => update(index, (side) => (side.running ? { ...side, ...change, running: false, progress: undefined } : side));
      return client.playground.turn.subscribe(
        { model: name, ...(system.trim() ? { system } : {}), messages: [...history, { role: 'user', content: text }], ...('agent' in toolSet ? { agent: toolSet.agent } : { tools: toolSet.tools }), execute, conversationId },
        {
          onData(data) {
            const event = data as TurnEvent;
            if (event.type === 'progress') update(index, (side) => ({ ...side, progress: event.line }));
            else if (event.type === 'approval') update(index, (side) => ({ ...side, held: [...(side.held ?? []), { id: event.id, tool: event.tool, arguments: event.arguments, reasons: event.reasons }] }));
            else if (event.type === 'decided') update(index, (side) => ({ ...side, held: (side.held ?? []).filter((call) => call.id !== event.id) }));
            else if (event.type === 'round') update(index, (side) => ({ ...side, rounds: [...side.rounds, event.round] }));
            else if (event.type === 'answer') end({ answer: event.answer ?? '', latencyMs: event.latency_ms, tokens: event.tokens, ...(event.cost !== undefined ? { cost: event.cost } : {}) });
            else end({ error: event.error.message });
          },
          onError: (error) => end({ error: appErrorOf(error).message }),
          onComplete: () => end({ error: 'The turn ended without an answer.' }),
        },
      );
    });
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
      <Group justify="space-between" align="flex-start">
        <div>
          <Title order={2}>Playground</Title>
          <Text c="dimmed" size="sm">
            Try tools with a model. Turns run on the same mediation engine agents use behind the gateway, and every tool call goes through the pipeline under policy (History: via Playground).
          </Text>
        </div>
        <Group gap="xs" wrap="nowrap">
          <Select
            aria-label="Saved conversations"
            placeholder="Saved conversations"
            data={(saved.list ?? []).map((item) => ({ value: item.id, label: `${item.title} · ${item.turns} turn${item.turns === 1 ? '' : 's'} · ${formatClock(item.updatedAt)}` }))}
            value={saved.list?.some((item) => item.id === conversationId) ? conversationId : null}
            onChange={(id) => id && void open(id)}
            disabled={running}
            searchable
            w={320}
          />
          <Button variant="default" leftSection={<IconPlus size={16} />} onClick={startNew} disabled={running}>
            New conversation
          </Button>
        </Group>
      </Group>
      <Paper withBorder p="md" radius="md" component="section" aria-label="Model and tools">
        <Group align="flex-end" gap="sm" wrap="wrap">
          <Autocomplete label="Model" placeholder="provider/model" description={providers.data?.length ? `providers: ${providers.data.map((item) => item.name).join(', ')}` : 'add a provider first in Mediation (or tooldeck providers add)'} data={suggestions} value={model} onChange={setModel} w={260} />
          <TagsInput label="Compare with" description={`up to ${MAX_MODELS - 1} more models, side by side`} placeholder="provider/model" data={suggestions} value={compare} onChange={setCompare} maxTags={MAX_MODELS - 1} w={260} />
          <Select label="Agent" description="its grants are the tools" placeholder={agents.data?.[0] ? `${agents.data[0]} (default)` : 'an agent of the workspace'} data={agents.data ?? []} value={agent} onChange={setAgent} clearable searchable w={220} />
          <TagsInput label="Registry tools" description="or hand-picked entries (these win)" placeholder="mcp:everything.echo" value={tools} onChange={setTools} style={{ flex: 1, minWidth: 240 }} />
          <Switch label="Execute tools" checked={execute} onChange={(event) => setExecute(event.currentTarget.checked)} mb={8} />
        </Group>
        <Text size="xs" mt={6} c={'none' in toolSet ? 'orange' : 'dimmed'} aria-label="Tool set">
          Tool set: {'none' in toolSet ? toolSet.none : toolSet.why}
        </Text>
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
            <Button leftSection={<IconSend size={16} />} onClick={send} disabled={sendBlocked !== undefined || running} loading={running} aria-describedby={sendBlocked ? 'playground-send-blocked' : undefined}>
              Send
            </Button>
            <Button variant="default" leftSection={<IconDeviceFloppy size={16} />} disabled={!last || running || last.sides[0]?.answer === undefined} onClick={() => setSaving(true)}>
              Save as eval case
            </Button>
          </Stack>
        </Group>
      </Paper>
      {sendBlocked && !running && (
        <Group gap="xs" mt={-8}>
          <Text id="playground-send-blocked" size="xs" c="dimmed">
            {sendBlocked}
          </Text>
          {providers.data?.length === 0 && (
            <Button size="compact-xs" variant="light" onClick={() => navigate('mediation', { add: 'provider' })}>
              Add provider
            </Button>
          )}
        </Group>
      )}
      {last && saving && last.sides[0] && <SaveCaseModal prompt={last.user} side={last.sides[0]} agent={'agent' in toolSet ? toolSet.agent : null} tools={'tools' in toolSet ? toolSet.tools : []} onClose={() => setSaving(false)} />}
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
      <SimpleGrid cols={turn.sides.length} spacing="sm">
        {turn.sides.map((side) => (
          <SideView key={side.model} side={side} labelled={turn.sides.length > 1} />
        ))}
      </SimpleGrid>
    </Stack>
  );
}

function SideView({ side, labelled }: { side: ModelTurn; labelled: boolean }) {
  return (
    <Stack gap={6} aria-label={`Turn of ${side.model}`} style={{ minWidth: 0 }}>
      {labelled && (
        <Code fw={600} style={{ alignSelf: 'flex-start' }}>
          {side.model}
        </Code>
      )}
      {side.rounds.flatMap((round) => round.tool_calls.map((call, index) => <TracedCallCard key={`${round.round}-${index}`} call={call} />))}
      {(side.held ?? []).map((call) => (
        <HeldCallCard key={call.id} call={call} />
      ))}
      {side.running && (
        <Group gap="xs" wrap="nowrap">
          <Loader size="xs" />
          <Text size="sm" c="dimmed" truncate="end">
            {side.progress ?? 'Waiting on the model…'}
          </Text>
        </Group>
      )}
      {side.answer !== undefined && (
        <Paper withBorder p="sm" radius="md" aria-label="Answer">
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {side.answer || '(no text)'}
          </Text>
          <Text size="xs" c="dimmed" mt={4}>
            {formatDuration(side.latencyMs ?? 0)} · {side.rounds.length} round(s) · {side.tokens?.prompt ?? 0} prompt + {side.tokens?.completion ?? 0} completion tokens{side.cost !== undefined ? ` · $${side.cost.toFixed(6)}` : ''}
          </Text>
        </Paper>
      )}
      {side.error && (
        <Alert color="red" variant="light" title="The turn failed">
          {side.error}
        </Alert>
      )}
    </Stack>
  );
}

/** A call policy holds for approval, asked inline: the tool, its exact arguments, the rule's reason, Approve or Deny. */
function HeldCallCard({ call }: { call: HeldCall }) {
  const trpc = useTRPC();
  const decide = useMutation(trpc.playground.decide.mutationOptions());
  return (
    <Paper withBorder p="xs" radius="sm" bg="var(--mantine-color-orange-light)" aria-label={`Approve ${call.tool}`}>
      <Group justify="space-between" mb={4}>
        <Code>{call.tool}</Code>
        <Badge size="xs" color="orange" tt="none">
          for you: approval_required
        </Badge>
      </Group>
      {call.reasons.map((reason) => (
        <Text key={reason} size="xs">
          {reasonInOrlojWords(reason)}
        </Text>
      ))}
      <JsonTree value={call.arguments} label="Arguments" expandDepth={2} />
      {decide.error && (
        <Text size="xs" c="red">
          {appErrorOf(decide.error).message}
        </Text>
      )}
      <Group gap="xs" mt={6}>
        <Button size="xs" color="green" loading={decide.isPending && decide.variables?.approve === true} onClick={() => decide.mutate({ id: call.id, approve: true })}>
          Approve
        </Button>
        <Button size="xs" color="red" variant="light" loading={decide.isPending && decide.variables?.approve === false} onClick={() => decide.mutate({ id: call.id, approve: false })}>
          Deny
        </Button>
      </Group>
    </Paper>
  );
}

function SaveCaseModal({ prompt, side, agent, tools, onClose }: { prompt: string; side: ModelTurn; agent: string | null; tools: string[]; onClose: () => void }) {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const [file, setFile] = useState('evals/playground.yml');
  const [caseName, setCaseName] = useState(prompt.slice(0, 60));
  const save = useMutation(
    trpc.playground.saveCase.mutationOptions({
      onSuccess: (saved) => {
        notifications.show({ color: 'green', title: `Saved case ${saved.caseName}`, message: `In ${saved.file}; run it in Evals.` });
        onClose();
        navigate('evals', { suite: saved.file });
      },
    }),
  );
  const calls = side.rounds.flatMap((round) => round.tool_calls.filter((call) => !call.duplicate));
  return (
    <Modal opened onClose={onClose} title="Save as eval case">
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          The last message becomes the case’s prompt and the {calls.length} tool call(s) {side.model} made its expectation (in this order, arguments matched partially). Edit the file to loosen it.
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
            onClick={() => save.mutate({ file, caseName, prompt, toolCalls: calls.map((call) => ({ tool: call.tool, name: call.name, service: call.service, arguments: call.arguments })), ...(agent ? { agent } : {}), ...(tools.length ? { tools } : {}) })}
          >
            Save case
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
