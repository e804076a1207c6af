import {
  Alert,
  Anchor,
  Badge,
  Box,
  Button,
  Center,
  Grid,
  Group,
  Kbd,
  Loader,
  Paper,
  ScrollArea,
  Select,
  Stack,
  Switch,
  Text,
  Textarea,
  ThemeIcon,
  Title,
  Tooltip,
} from '@mantine/core';
import { IconArrowBackUp, IconMessages, IconPlayerStop, IconPlus, IconRefresh, IconRobot, IconSend, IconUser } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { isTerminalA2aState, type A2aThread } from '../../../../shared/a2a';
import { CopyButton } from '../../components/CopyButton';
import { ConfirmInvokeDialog } from '../invoke/ConfirmInvokeDialog';
import type { ToolView } from '../invoke/types';
import { useTRPC } from '../../rpc/client';
import { ArtifactsView } from './ArtifactsView';
import { latestTask, waitingTask, type ChatMessage, type Conversation, type TaskRecord } from './conversationModel';
import { shortId } from './display';
import { PartView } from './PartView';
import { TaskStateBadge } from './TaskStateBadge';
import { A2aTaskTimeline } from './A2aTaskTimeline';
import type { ConversationController, TurnStatus } from './useConversation';
import { formatClock } from '../../components/format';

export interface ConversationPanelProps {
  agent: string;
  controller: ConversationController;
  draft: string;
  onDraftChange: (text: string) => void;
  stream: boolean;
  onStreamChange: (stream: boolean) => void;
  /** What the card says; undefined while it loads or when it cannot be read. */
  streamingSupported: boolean | undefined;
  /** Skill examples from the card, offered as first messages. */
  examples?: string[];
}

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

/** A chat with one agent per contextId, beside the selected task's live timeline and artifacts. */
export function ConversationPanel({
  agent,
  controller,
  draft,
  onDraftChange,
  stream,
  onStreamChange,
  streamingSupported,
  examples = [],
}: ConversationPanelProps) {
  const trpc = useTRPC();
  const { conversation, turn } = controller;
  const [selectedTaskId, setSelectedTaskId] = useState<string>();
  const threads = useQuery(trpc.a2a.threads.queryOptions({ agent }));
  const busy = turn.phase === 'running' || turn.phase === 'canceling';
  const waiting = busy ? undefined : waitingTask(conversation);
  const runningTaskId = turn.phase === 'running' ? turn.taskId : undefined;
  // While a turn runs its task is shown; otherwise the one picked, else the one that moved last.
  const task =
    (runningTaskId && conversation.tasks.find((t) => t.taskId === runningTaskId)) ||
    conversation.tasks.find((t) => t.taskId === selectedTaskId) ||
    latestTask(conversation);

  // A turn is a call of the agent's turn entry (a2a:<agent>.SendMessage or SendStreamingMessage):
  // where policy wants it approved, the operator confirms it here as for any tool. A denied turn is
  // sent and refused by the pipeline, which records the refusal; the turn's status says why.
  const turnEntry = useQuery({ ...trpc.tools.get.queryOptions({ name: `a2a:${agent}.${stream ? 'SendStreamingMessage' : 'SendMessage'}` }), retry: false, staleTime: 10_000 });
  const turnTool = (turnEntry.data ?? undefined) as ToolView | undefined;
  const [confirming, setConfirming] = useState<string>();

  const sendNow = (text: string, confirmed: boolean) => {
    setSelectedTaskId(undefined);
    controller.send(text, { stream, ...(confirmed ? { confirmed: true } : {}) });
    onDraftChange('');
  };

  const submit = () => {
    if (busy || !draft.trim()) return;
    if (turnTool?.verdict.verdict === 'confirm' && !turnTool.verdict.hold) setConfirming(draft);
    else sendNow(draft, false);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      submit();
    }
  };

  return (
    <Stack gap="sm">
      {turnTool && (
        <ConfirmInvokeDialog
          opened={confirming !== undefined}
          tool={turnTool}
          arguments={{ text: confirming ?? '' }}
          onConfirm={() => {
            const text = confirming ?? '';
            setConfirming(undefined);
            sendNow(text, true);
          }}
          onClose={() => setConfirming(undefined)}
        />
      )}
      <Group justify="space-between" wrap="wrap" gap="sm">
        <Group gap="xs">
          <ThreadPicker
            threads={(threads.data ?? []) as A2aThread[]}
            contextId={conversation.contextId}
            disabled={busy}
            onOpen={(thread) => {
              setSelectedTaskId(undefined);
              controller.open(thread);
            }}
          />
          <Button
            size="xs"
            variant="default"
            leftSection={<IconPlus size={14} />}
            disabled={busy || (conversation.messages.length === 0 && !conversation.contextId)}
            onClick={() => {
              setSelectedTaskId(undefined);
              controller.startNew();
            }}
          >
            New conversation
          </Button>
          {conversation.contextId && (
            <Group gap={2}>
              <Text size="xs" c="dimmed" ff="monospace" title={conversation.contextId}>
                context {shortId(conversation.contextId)}
              </Text>
              <CopyButton value={conversation.contextId} label="Copy context id" size="xs" />
            </Group>
          )}
        </Group>
        <Tooltip
          label={
            streamingSupported === false
              ? 'The agent card does not declare streaming, so messages are sent blocking'
              : 'Stream the task’s updates as they happen (off: wait for the answer)'
          }
          multiline
          maw={300}
          withArrow
        >
          <div>
            <Switch label="Stream" checked={stream} disabled={streamingSupported === false || busy} onChange={(e) => onStreamChange(e.currentTarget.checked)} />
          </div>
        </Tooltip>
      </Group>

      <Grid gap="md">
        <Grid.Col span={{ base: 12, lg: 7 }}>
          <Paper withBorder radius="md" h="calc(100vh - 330px)" mih={460} style={{ display: 'flex', flexDirection: 'column', overflow: 'hidden' }}>
            <ChatLog
              agent={agent}
              conversation={conversation}
              turn={turn}
              examples={examples}
              onExample={onDraftChange}
              onSelectTask={setSelectedTaskId}
              onResubscribe={controller.resubscribe}
              onDismiss={controller.dismiss}
            />
            <Box p="sm" style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}>
              <form
                onSubmit={(e) => {
                  e.preventDefault();
                  submit();
                }}
              >
                <Stack gap={6}>
                  {waiting && <ContinuationNote task={waiting} />}
                  <Textarea
                    aria-label="Message"
                    placeholder={waiting ? 'Your answer…' : `Message ${agent}…`}
                    autosize
                    minRows={2}
                    maxRows={8}
                    value={draft}
                    onChange={(e) => onDraftChange(e.currentTarget.value)}
                    onKeyDown={onKeyDown}
                  />
                  <Group justify="space-between" gap="xs">
                    <Text size="xs" c="dimmed">
                      <Kbd size="xs">{isMac ? '⌘' : 'Ctrl'}</Kbd> + <Kbd size="xs">Enter</Kbd> to send · {stream ? 'streamed' : 'blocking'}
                    </Text>
                    <Group gap="xs">
                      {(busy || waiting) && (
                        <Button
                          size="xs"
                          color="red"
                          variant="light"
                          leftSection={<IconPlayerStop size={14} />}
                          onClick={() => void controller.cancel()}
                          loading={turn.phase === 'canceling'}
                        >
                          Cancel task
                        </Button>
                      )}
                      <Button
                        size="xs"
                        type="submit"
                        leftSection={waiting ? <IconArrowBackUp size={14} /> : <IconSend size={14} />}
                        disabled={busy || !draft.trim()}
                      >
                        Send
                      </Button>
                    </Group>
                  </Group>
                </Stack>
              </form>
            </Box>
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 5 }}>
          <TaskInspector conversation={conversation} task={task} live={!!task && task.taskId === runningTaskId} onSelect={setSelectedTaskId} />
        </Grid.Col>
      </Grid>
    </Stack>
  );
}

function threadLabel(thread: A2aThread): string {
  const first = thread.messages.find((m) => m.role === 'user')?.text.trim() ?? '';
  const when = new Date(thread.updatedAt).toLocaleTimeString(undefined, { hour12: false });
  return `${first ? (first.length > 40 ? `${first.slice(0, 40)}…` : first) : shortId(thread.contextId)} · ${when}`;
}

function ThreadPicker({
  threads,
  contextId,
  disabled,
  onOpen,
}: {
  threads: A2aThread[];
  contextId: string | undefined;
  disabled: boolean;
  onOpen: (thread: A2aThread) => void;
}) {
  return (
    <Select
      size="xs"
      w={280}
      aria-label="Conversation"
      placeholder={threads.length ? 'Open a past conversation' : 'No past conversations'}
      leftSection={<IconMessages size={14} />}
      data={threads.map((t) => ({ value: t.contextId, label: threadLabel(t) }))}
      value={contextId && threads.some((t) => t.contextId === contextId) ? contextId : null}
      onChange={(value) => {
        const thread = threads.find((t) => t.contextId === value);
        if (thread && value !== contextId) onOpen(thread);
      }}
      disabled={disabled || threads.length === 0}
      allowDeselect={false}
      comboboxProps={{ withinPortal: true }}
    />
  );
}

function ContinuationNote({ task }: { task: TaskRecord }) {
  const question = task.timeline.findLast((e) => e.state === task.state)?.text;
  return (
    <Alert color={task.state === 'AUTH_REQUIRED' ? 'orange' : 'yellow'} variant="light" p="xs" icon={<IconArrowBackUp size={16} />} role="status">
      <Text size="sm">
        {task.state === 'AUTH_REQUIRED' ? 'The agent needs authorization' : 'The agent is waiting for your answer'}
        {question ? <>: “{question}”</> : '.'} Your next message continues task{' '}
        <Text span ff="monospace" size="sm" title={task.taskId}>
          {shortId(task.taskId)}
        </Text>
        .
      </Text>
    </Alert>
  );
}

function ChatLog({
  agent,
  conversation,
  turn,
  examples,
  onExample,
  onSelectTask,
  onResubscribe,
  onDismiss,
}: {
  agent: string;
  conversation: Conversation;
  turn: TurnStatus;
  examples: string[];
  onExample: (text: string) => void;
  onSelectTask: (taskId: string) => void;
  onResubscribe: (taskId: string) => void;
  onDismiss: () => void;
}) {
  const viewport = useRef<HTMLDivElement>(null);
  const runningTask = turn.phase === 'running' && turn.taskId ? conversation.tasks.find((t) => t.taskId === turn.taskId) : undefined;
  const lastEntry = runningTask?.timeline.at(-1);
  useEffect(() => {
    const el = viewport.current;
    if (el && typeof el.scrollTo === 'function') el.scrollTo({ top: el.scrollHeight, behavior: 'smooth' });
  }, [conversation.messages.length, turn.phase, lastEntry]);

  const empty = conversation.messages.length === 0 && turn.phase === 'idle';
  return (
    <ScrollArea style={{ flex: 1, minHeight: 0 }} viewportRef={viewport} type="auto">
      <Stack gap="sm" p="md" role="log" aria-label="Conversation">
        {empty && (
          <Center py="xl">
            <Stack align="center" gap={6} maw={440}>
              <ThemeIcon size={44} radius="xl" variant="light">
                <IconMessages size={24} />
              </ThemeIcon>
              <Title order={5}>Start a conversation</Title>
              <Text size="sm" c="dimmed" ta="center">
                Messages go to {agent} over A2A. Each task it starts shows its state changes and artifacts on the right.
              </Text>
              {examples.length > 0 && (
                <Group gap={6} justify="center" mt={4}>
                  {examples.slice(0, 6).map((example) => (
                    <Button key={example} size="compact-xs" variant="light" onClick={() => onExample(example)}>
                      {example}
                    </Button>
                  ))}
                </Group>
              )}
            </Stack>
          </Center>
        )}
        {conversation.messages.map((message) => (
          <ChatBubble
            key={message.id}
            message={message}
            agent={agent}
            task={conversation.tasks.find((t) => t.taskId === message.taskId)}
            onSelectTask={onSelectTask}
          />
        ))}
        {turn.phase === 'running' && (
          <Group gap="xs" wrap="nowrap" aria-live="polite">
            <Loader size="xs" type="dots" />
            <Text size="sm" c="dimmed">
              {turn.mode === 'resubscribe' ? 'Following task' : turn.mode === 'blocking' ? `Waiting for ${agent}’s answer` : `${agent} is answering`}
              {lastEntry ? ` — ${lastEntry.state}${lastEntry.text ? `: ${lastEntry.text}` : ''}` : '…'}
            </Text>
          </Group>
        )}
        {turn.phase === 'canceling' && (
          <Group gap="xs">
            <Loader size="xs" />
            <Text size="sm" c="dimmed">
              Canceling task…
            </Text>
          </Group>
        )}
        {turn.phase === 'failed' && (
          <Alert color="red" title="The message failed" withCloseButton onClose={onDismiss} role="alert">
            <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
              {turn.error.message}
            </Text>
          </Alert>
        )}
        {turn.phase === 'dropped' && (
          <Alert color="orange" title="The stream ended before the task finished" role="alert">
            <Stack gap="xs">
              <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                {turn.message}
              </Text>
              <Group gap="xs">
                <Button size="xs" leftSection={<IconRefresh size={14} />} onClick={() => onResubscribe(turn.taskId)}>
                  Resubscribe
                </Button>
                <Text size="xs" c="dimmed">
                  Reattaches to task {shortId(turn.taskId)} and follows it to its final state.
                </Text>
              </Group>
            </Stack>
          </Alert>
        )}
        {turn.phase === 'canceled' && (
          <Alert color="gray" withCloseButton onClose={onDismiss}>
            <Text size="sm">{turn.message}</Text>
          </Alert>
        )}
      </Stack>
    </ScrollArea>
  );
}

function ChatBubble({
  message,
  agent,
  task,
  onSelectTask,
}: {
  message: ChatMessage;
  agent: string;
  task: TaskRecord | undefined;
  onSelectTask: (taskId: string) => void;
}) {
  const user = message.role === 'user';
  return (
    <Group justify={user ? 'flex-end' : 'flex-start'} align="flex-end" gap={8} wrap="nowrap">
      {!user && (
        <ThemeIcon size={28} radius="xl" variant="light" color="grape" aria-hidden>
          <IconRobot size={16} />
        </ThemeIcon>
      )}
      <Paper
        px="sm"
        py={8}
        radius="lg"
        maw="82%"
        bg={user ? 'var(--mantine-primary-color-light)' : 'var(--mantine-color-default-hover)'}
        aria-label={`${user ? 'You' : agent} at ${formatClock(message.at, 'fixed')}`}
        role="article"
      >
        <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
          {message.text}
        </Text>
        {message.parts?.map((part, i) => (
          <Box key={i} mt={6}>
            <PartView part={part} />
          </Box>
        ))}
        <Group gap={6} mt={4} justify={user ? 'flex-end' : 'flex-start'}>
          <Text size="xs" c="dimmed">
            {formatClock(message.at, 'fixed').slice(0, 8)}
          </Text>
          {message.taskId && (
            <Anchor
              component="button"
              type="button"
              size="xs"
              ff="monospace"
              onClick={() => onSelectTask(message.taskId!)}
              title={`Show task ${message.taskId}`}
            >
              task {shortId(message.taskId)}
            </Anchor>
          )}
          {message.state && <TaskStateBadge state={message.state} size="xs" />}
          {isTerminalA2aState(message.state) && task && task.artifacts.length > 0 && (
            <Badge size="xs" variant="outline" color="gray">
              {task.artifacts.length} artifact{task.artifacts.length === 1 ? '' : 's'}
            </Badge>
          )}
        </Group>
      </Paper>
      {user && (
        <ThemeIcon size={28} radius="xl" variant="light" aria-hidden>
          <IconUser size={16} />
        </ThemeIcon>
      )}
    </Group>
  );
}

function TaskInspector({
  conversation,
  task,
  live,
  onSelect,
}: {
  conversation: Conversation;
  task: TaskRecord | undefined;
  live: boolean;
  onSelect: (taskId: string) => void;
}) {
  if (!task) {
    return (
      <Paper withBorder radius="md" p="lg" h="100%">
        <Stack align="center" gap={6} py="xl">
          <Text fw={600} size="sm">
            No task yet
          </Text>
          <Text size="sm" c="dimmed" ta="center" maw={300}>
            {conversation.messages.some((m) => m.role === 'agent')
              ? 'The agent answered with a message, without starting a task.'
              : 'When the agent answers with a task, its state changes and artifacts appear here as they arrive.'}
          </Text>
        </Stack>
      </Paper>
    );
  }
  return (
    <Paper withBorder radius="md" p="md">
      <Stack gap="md">
        <Group justify="space-between" wrap="nowrap" gap="xs">
          <Group gap={6} wrap="nowrap" style={{ minWidth: 0 }}>
            <Text fw={700} size="sm">
              Task
            </Text>
            {conversation.tasks.length > 1 ? (
              <Select
                size="xs"
                w={150}
                aria-label="Shown task"
                data={conversation.tasks.map((t, i) => ({ value: t.taskId, label: `${i + 1}. ${shortId(t.taskId)}` }))}
                value={task.taskId}
                onChange={(value) => value && onSelect(value)}
                allowDeselect={false}
                styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
              />
            ) : (
              <Text size="sm" ff="monospace" c="dimmed" title={task.taskId} truncate="end">
                {shortId(task.taskId)}
              </Text>
            )}
            <CopyButton value={task.taskId} label="Copy task id" size="xs" />
          </Group>
          <TaskStateBadge state={task.state} size="md" />
        </Group>
        <div>
          <Text size="xs" tt="uppercase" fw={700} c="dimmed" mb={8}>
            Timeline
          </Text>
          <A2aTaskTimeline entries={task.timeline} live={live} />
          {task.timeline.length === 0 && (
            <Text size="sm" c="dimmed">
              No state reported yet.
            </Text>
          )}
        </div>
        <div>
          <Text size="xs" tt="uppercase" fw={700} c="dimmed" mb={8}>
            Artifacts
          </Text>
          <ArtifactsView artifacts={task.artifacts} emptyText={isTerminalA2aState(task.state) ? 'The task produced no artifacts.' : 'No artifacts yet.'} />
        </div>
      </Stack>
    </Paper>
  );
}
