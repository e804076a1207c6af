import { Alert, Anchor, Badge, Box, Button, Group, Modal, Paper, ScrollArea, SegmentedControl, Select, Stack, Text, Textarea } from '@mantine/core';
import { IconExternalLink } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useMemo, useState, type ReactNode } from 'react';
import type { InteractionAnswer, PendingInteraction } from '../../../../shared/mcp';
import { schemaProblems, withoutDialect } from '../../components/jsonSchema';
import { SchemaForm } from '../../components/SchemaForm';
import { useTRPC } from '../../rpc/client';
import { defaultArguments } from '../invoke/useArguments';
import { appErrorOf } from '../../rpc/appError';

type Elicitation = Extract<PendingInteraction, { kind: 'elicitation' }>;
type Sampling = Extract<PendingInteraction, { kind: 'sampling' }>;

/**
 * Requests servers send to the operator (elicitation, sampling), one at a time, oldest first, in a
 * modal. Loaded by InteractionsHost when the first request arrives.
 */
export function InteractionDialog({ pending }: { pending: PendingInteraction[] }) {
  const trpc = useTRPC();
  const answer = useMutation(trpc.mcp.answerInteraction.mutationOptions());
  // Answered requests stay in the list until the server's next snapshot; they are not shown again.
  const [answered, setAnswered] = useState<ReadonlySet<string>>(() => new Set());
  const queue = useMemo(() => pending.filter((p) => !answered.has(p.id)).sort((a, b) => a.at - b.at), [pending, answered]);
  const current = queue[0];

  if (!current) return null;
  const respond = (value: InteractionAnswer) => {
    const id = current.id;
    answer.mutate(
      { id, answer: value },
      {
        onSuccess: () => {
          setAnswered((prev) => new Set(prev).add(id));
          answer.reset();
        },
      },
    );
  };
  const dismiss = () => respond(current.kind === 'elicitation' ? { kind: 'elicitation', action: 'cancel' } : { kind: 'sampling', action: 'reject', text: '', model: 'operator' });

  return (
    <Modal
      opened
      onClose={dismiss}
      closeOnClickOutside={false}
      size="lg"
      centered
      title={
        <Group gap="xs">
          <Text fw={600}>{current.kind === 'elicitation' ? `${current.server} asks for input` : `${current.server} asks for a model reply`}</Text>
          {queue.length > 1 && (
            <Badge size="sm" variant="light" color="gray">
              1 of {queue.length}
            </Badge>
          )}
          {current.relatedTaskId && (
            <Badge size="sm" variant="light" color="yellow" style={{ textTransform: 'none' }} title={current.relatedTaskId}>
              task {current.relatedTaskId.slice(0, 8)}…
            </Badge>
          )}
        </Group>
      }
    >
      {answer.error && (
        <Alert color="red" variant="light" mb="sm" title="The answer was not delivered">
          {appErrorOf(answer.error).message}
        </Alert>
      )}
      {current.kind === 'elicitation' ? (
        current.mode === 'url' ? (
          <UrlElicitation key={current.id} request={current} busy={answer.isPending} onAnswer={respond} />
        ) : (
          <FormElicitation key={current.id} request={current} busy={answer.isPending} onAnswer={respond} />
        )
      ) : (
        <SamplingRequest key={current.id} request={current} busy={answer.isPending} onAnswer={respond} />
      )}
    </Modal>
  );
}

interface AnswerProps<T> {
  request: T;
  busy: boolean;
  onAnswer: (answer: InteractionAnswer) => void;
}

function Message({ children }: { children: ReactNode }) {
  return (
    <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
      {children}
    </Text>
  );
}

function Actions({ children }: { children: ReactNode }) {
  return (
    <Group justify="flex-end" gap="sm" mt="md">
      {children}
    </Group>
  );
}

function FormElicitation({ request, busy, onAnswer }: AnswerProps<Elicitation>) {
  const schema = useMemo(() => withoutDialect(request.requestedSchema ?? { type: 'object', properties: {} }), [request.requestedSchema]);
  const [content, setContent] = useState(() => defaultArguments(schema));
  const cleaned = useMemo(() => JSON.parse(JSON.stringify(content)) as Record<string, unknown>, [content]);
  const valid = schemaProblems(schema, cleaned).length === 0;
  return (
    <Stack gap="sm">
      <Message>{request.message}</Message>
      <Paper withBorder radius="md">
        <ScrollArea.Autosize mah="55vh" type="auto">
          <Box p="md">
            <SchemaForm schema={schema} value={content} onChange={setContent} idPrefix="elicitation" disabled={busy} />
          </Box>
        </ScrollArea.Autosize>
      </Paper>
      <Actions>
        <Button variant="subtle" color="gray" onClick={() => onAnswer({ kind: 'elicitation', action: 'cancel' })} disabled={busy}>
          Cancel
        </Button>
        <Button variant="default" onClick={() => onAnswer({ kind: 'elicitation', action: 'decline' })} disabled={busy}>
          Decline
        </Button>
        <Button onClick={() => onAnswer({ kind: 'elicitation', action: 'accept', content: cleaned })} disabled={!valid} loading={busy}>
          Accept
        </Button>
      </Actions>
    </Stack>
  );
}

/** The page's host, shown on its own so a look-alike address is noticed (SEP-1036 asks clients to show where a link goes). */
function hostOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.host : undefined;
  } catch {
    return undefined;
  }
}

function UrlElicitation({ request, busy, onAnswer }: AnswerProps<Elicitation>) {
  const host = request.url ? hostOf(request.url) : undefined;
  return (
    <Stack gap="sm">
      <Message>{request.message}</Message>
      {request.url && host ? (
        <Paper withBorder radius="md" p="sm">
          <Text size="xs" c="dimmed" mb={4}>
            Open this page on <Text span fw={700} c="var(--mantine-color-text)">{host}</Text>, finish there, then choose Done.
          </Text>
          <Anchor href={request.url} target="_blank" rel="noreferrer noopener" style={{ wordBreak: 'break-all' }}>
            <Group gap={6} wrap="nowrap" component="span">
              <span>{request.url}</span>
              <IconExternalLink size={14} aria-hidden style={{ flexShrink: 0 }} />
            </Group>
          </Anchor>
        </Paper>
      ) : (
        <Text size="sm" c="dimmed">
          {request.url ? `The server sent an address that is not a web page (${request.url.slice(0, 80)}); it is not offered.` : 'The server sent no URL.'}
        </Text>
      )}
      <Actions>
        <Button variant="subtle" color="gray" onClick={() => onAnswer({ kind: 'elicitation', action: 'cancel' })} disabled={busy}>
          Cancel
        </Button>
        <Button variant="default" onClick={() => onAnswer({ kind: 'elicitation', action: 'decline' })} disabled={busy}>
          Decline
        </Button>
        <Button onClick={() => onAnswer({ kind: 'elicitation', action: 'accept' })} loading={busy}>
          Done
        </Button>
      </Actions>
    </Stack>
  );
}

interface SamplingMessageShape {
  role?: unknown;
  content?: unknown;
}

function SamplingContent({ content }: { content: unknown }): ReactNode {
  if (Array.isArray(content)) {
    return (
      <Stack gap={4}>
        {content.map((part, i) => (
          <SamplingContent key={i} content={part} />
        ))}
      </Stack>
    );
  }
  const part = content as { type?: unknown; text?: unknown; data?: unknown; mimeType?: unknown } | null;
  if (part?.type === 'text' && typeof part.text === 'string') return <Message>{part.text}</Message>;
  if (part?.type === 'tool_use') {
    const use = part as { name?: unknown; input?: unknown };
    return (
      <Stack gap={2}>
        <Text size="xs" fw={600}>
          Calls tool {String(use.name)}
        </Text>
        <Box component="pre" m={0} ff="monospace" fz="xs" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
          {JSON.stringify(use.input ?? {}, null, 2)}
        </Box>
      </Stack>
    );
  }
  if (part?.type === 'tool_result') {
    const result = part as { content?: unknown; isError?: unknown };
    return (
      <Stack gap={2}>
        <Text size="xs" fw={600} c={result.isError ? 'red' : undefined}>
          Tool result{result.isError ? ' (error)' : ''}
        </Text>
        <SamplingContent content={result.content ?? []} />
      </Stack>
    );
  }
  if (part?.type === 'image' && typeof part.data === 'string' && typeof part.mimeType === 'string') {
    return <img src={`data:${part.mimeType};base64,${part.data}`} alt={`Image (${part.mimeType})`} style={{ maxWidth: '100%', maxHeight: 240 }} />;
  }
  return (
    <Box component="pre" m={0} ff="monospace" fz="xs" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
      {JSON.stringify(content, null, 2)}
    </Box>
  );
}

function SamplingRequest({ request, busy, onAnswer }: AnswerProps<Sampling>) {
  const [reply, setReply] = useState('');
  const tools = request.tools ?? [];
  const [mode, setMode] = useState<'text' | 'tool'>(request.toolChoice?.mode === 'required' && tools.length ? 'tool' : 'text');
  const [toolName, setToolName] = useState(tools[0]?.name ?? '');
  const [toolInput, setToolInput] = useState('{}');
  const tool = tools.find((t) => t.name === toolName);
  const parsedInput = useMemo(() => {
    try {
      const value = JSON.parse(toolInput) as unknown;
      if (!value || typeof value !== 'object' || Array.isArray(value)) return { error: 'The input must be a JSON object' };
      const problems = tool?.inputSchema ? schemaProblems(withoutDialect(tool.inputSchema), value) : [];
      return problems.length ? { error: `${problems[0]!.path || 'input'} ${problems[0]!.message}` } : { value: value as Record<string, unknown> };
    } catch (error) {
      return { error: (error as Error).message };
    }
  }, [toolInput, tool]);
  const messages = request.messages as SamplingMessageShape[];
  return (
    <Stack gap="sm">
      <Text size="sm" c="dimmed">
        The server asks its client to run a model. You answer as the model.
        {request.maxTokens !== undefined && ` At most ${request.maxTokens.toLocaleString()} tokens.`}
      </Text>
      {request.systemPrompt && (
        <div>
          <Text size="xs" fw={600} c="dimmed" tt="uppercase" mb={4}>
            System prompt
          </Text>
          <Paper withBorder radius="md" p="sm" bg="var(--mantine-color-default-hover)">
            <Message>{request.systemPrompt}</Message>
          </Paper>
        </div>
      )}
      <div>
        <Text size="xs" fw={600} c="dimmed" tt="uppercase" mb={4}>
          Messages
        </Text>
        <ScrollArea.Autosize mah={300} type="auto">
          <Stack gap="xs" role="list" aria-label="Messages">
            {messages.map((message, i) => (
              <Paper key={i} withBorder radius="md" p="sm" role="listitem">
                <Badge size="xs" variant="light" color={message.role === 'assistant' ? 'violet' : 'blue'} mb={6}>
                  {typeof message.role === 'string' ? message.role : 'message'}
                </Badge>
                <SamplingContent content={message.content} />
              </Paper>
            ))}
          </Stack>
        </ScrollArea.Autosize>
      </div>
      {tools.length > 0 && (
        <div>
          <Text size="xs" fw={600} c="dimmed" tt="uppercase" mb={4}>
            Tools the model may call{request.toolChoice?.mode ? ` (choice: ${request.toolChoice.mode})` : ''}
          </Text>
          <SegmentedControl
            size="xs"
            value={mode}
            onChange={(v) => setMode(v as 'text' | 'tool')}
            data={[
              { value: 'text', label: 'Answer with text', disabled: request.toolChoice?.mode === 'required' },
              { value: 'tool', label: 'Call a tool', disabled: request.toolChoice?.mode === 'none' },
            ]}
            aria-label="Answer as"
          />
        </div>
      )}
      {mode === 'tool' ? (
        <Stack gap="xs">
          <Select label="Tool" data={tools.map((t) => ({ value: t.name, label: t.description ? `${t.name} — ${t.description}` : t.name }))} value={toolName} onChange={(v) => setToolName(v ?? '')} allowDeselect={false} />
          <Textarea
            label="Tool input (JSON)"
            autosize
            minRows={2}
            maxRows={8}
            value={toolInput}
            onChange={(event) => setToolInput(event.currentTarget.value)}
            error={parsedInput.error}
            styles={{ input: { fontFamily: 'monospace' } }}
          />
        </Stack>
      ) : (
        <Textarea label="Reply" placeholder="The model's answer" autosize minRows={3} maxRows={10} value={reply} onChange={(event) => setReply(event.currentTarget.value)} disabled={busy} data-autofocus />
      )}
      <Actions>
        <Button variant="default" onClick={() => onAnswer({ kind: 'sampling', action: 'reject', text: '', model: 'operator' })} disabled={busy}>
          Reject
        </Button>
        <Button
          onClick={() =>
            onAnswer(
              mode === 'tool'
                ? { kind: 'sampling', action: 'reply', text: '', model: 'operator', toolUse: { name: toolName, input: parsedInput.value ?? {} } }
                : { kind: 'sampling', action: 'reply', text: reply, model: 'operator' },
            )
          }
          disabled={mode === 'tool' ? !toolName || !!parsedInput.error : !reply.trim()}
          loading={busy}
        >
          {mode === 'tool' ? 'Call the tool' : 'Send'}
        </Button>
      </Actions>
    </Stack>
  );
}
