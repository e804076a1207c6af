import { Alert, Anchor, Badge, Box, Button, Code, Group, List, Paper, ScrollArea, Stack, Tabs, Text, ThemeIcon, Tooltip } from '@mantine/core';
import { IconAlertTriangle, IconBan, IconCheck, IconCopy, IconCircleCheck, IconX } from '@tabler/icons-react';
import { useMemo, type ReactNode } from 'react';
import type { InvocationOutcome, ToolEntry } from '../../../../shared/registry';
import { CopyButton } from '../../components/CopyButton';
import { formatBytes, formatDuration } from '../../components/format';
import { JsonTree } from '../../components/JsonTree';
import { readablePath, schemaProblems, type SchemaProblem } from '../../components/jsonSchema';
import { useNavigate } from '../../shell/useSection';
import { McpAppFrame } from '../apps/McpAppFrame';
import { filterParams } from '../history/historyFilter';
import { TaskStatusBadge, McpTaskTimeline } from '../tasks/McpTaskTimeline';
import { ContentBlockView } from './ContentBlockView';
import type { InvocationTask } from '../../../../shared/tasks';
import { URL_ELICITATION_STEP } from '../../../../shared/mcp';
import { reasonInOrlojWords } from '../../components/verdictWords';

export interface ResultViewProps {
  outcome: InvocationOutcome;
  /** The tool called: its outputSchema checks structuredContent, its MCP source lets resource links be read, its app shows the call. */
  tool?: Pick<ToolEntry, 'source' | 'outputSchema'> & Partial<Pick<ToolEntry, 'toolName' | 'title' | 'description' | 'inputSchema' | 'appResourceUri'>>;
  /** The arguments as sent (the record keeps a capped, masked copy): an MCP App receives them as its tool input. */
  args?: Record<string, unknown>;
  /** Call again with the same arguments (after the pages a URL elicitation asked for were visited). */
  onRetry?: () => void;
}

interface Status {
  label: string;
  color: string;
  icon: ReactNode;
}

function statusOf(outcome: InvocationOutcome): Status {
  const { record, result } = outcome;
  if (outcome.duplicate) return { label: 'Duplicate — not run again', color: 'blue', icon: <IconCopy size={16} /> };
  if (record.status === 'denied') return { label: 'Denied by policy', color: 'orange', icon: <IconBan size={16} /> };
  if (result?.isError) return { label: 'Tool returned an error', color: 'red', icon: <IconX size={16} /> };
  if (record.status === 'ok') return { label: 'Success', color: 'teal', icon: <IconCheck size={16} /> };
  if (record.status === 'timeout') return { label: 'Timed out', color: 'red', icon: <IconX size={16} /> };
  if (record.status === 'canceled') return { label: 'Canceled', color: 'gray', icon: <IconX size={16} /> };
  return { label: 'Failed', color: 'red', icon: <IconX size={16} /> };
}

type SchemaCheck = { kind: 'none' } | { kind: 'ok' } | { kind: 'missing' } | { kind: 'mismatch'; problems: SchemaProblem[] };

function checkOutput(outcome: InvocationOutcome, outputSchema: Record<string, unknown> | undefined): SchemaCheck {
  const result = outcome.result;
  if (!outputSchema || !result || result.isError) return { kind: 'none' };
  if (result.structuredContent === undefined) return { kind: 'missing' };
  const problems = schemaProblems(outputSchema, result.structuredContent);
  return problems.length ? { kind: 'mismatch', problems } : { kind: 'ok' };
}

/** A finished call: how it ended, what it cost, and everything the tool returned. */
export function ResultView({ outcome, tool, args, onRetry }: ResultViewProps) {
  const { record, result, error } = outcome;
  const status = statusOf(outcome);
  const truncated = outcome.truncated || result?.truncated === true;
  const check = useMemo(() => checkOutput(outcome, tool?.outputSchema), [outcome, tool?.outputSchema]);
  const server = tool?.source.kind === 'mcp' ? tool.source.name : undefined;
  const raw = useMemo(() => JSON.stringify(result ?? outcome, null, 2), [result, outcome]);
  const hasStructured = result?.structuredContent !== undefined;
  const blocks = result?.content ?? [];

  return (
    <Stack gap="sm">
      <Group justify="space-between" wrap="wrap" gap="xs">
        <Group gap="xs">
          <ThemeIcon color={status.color} variant="light" radius="xl" size="md" aria-hidden>
            {status.icon}
          </ThemeIcon>
          <Text fw={600} role="status" c={status.color === 'teal' ? undefined : status.color}>
            {status.label}
          </Text>
          {truncated && (
            <Tooltip label="The result was cut to the size cap; what is shown is partial." withArrow>
              <Badge color="yellow" variant="light">
                Truncated
              </Badge>
            </Tooltip>
          )}
        </Group>
        <Group gap="md">
          <Metric label="Latency" value={formatDuration(record.latencyMs)} />
          <Metric label="Sent" value={formatBytes(record.requestBytes)} />
          <Metric label="Received" value={formatBytes(record.responseBytes)} />
          {record.attempts !== undefined && record.attempts > 1 && <Metric label="Attempts" value={String(record.attempts)} />}
          {record.traceId && <TraceLink traceId={record.traceId} />}
        </Group>
      </Group>

      {error && (
        <Alert color={record.status === 'denied' ? 'orange' : 'red'} variant="light" icon={<IconAlertTriangle size={18} />} title={<ErrorTitle code={error.code} retryable={error.retryable} step={error.step} />}>
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {error.message}
          </Text>
          {error.step === URL_ELICITATION_STEP && <UrlElicitationPages urls={error.details ?? []} onRetry={onRetry} />}
          {record.status === 'denied' && outcome.verdict && outcome.verdict.reasons.length > 0 && (
            <List size="xs" mt={6}>
              {outcome.verdict.reasons.map((reason) => (
                <List.Item key={reason}>{reasonInOrlojWords(reason)}</List.Item>
              ))}
            </List>
          )}
        </Alert>
      )}

      {outcome.task && <TaskSection task={outcome.task} server={server} />}

      {server && tool?.appResourceUri && tool.toolName && result && !result.isError && (
        <McpAppFrame
          server={server}
          tool={{ toolName: tool.toolName, title: tool.title, description: tool.description, inputSchema: tool.inputSchema ?? {}, appResourceUri: tool.appResourceUri }}
          args={args ?? parseArgs(outcome.record.argumentsJson)}
          result={result}
        />
      )}

      {outcome.duplicate && (
        <Text size="sm" c="dimmed">
          This run already made the same call; the earlier result is shown and the tool was not called again.
        </Text>
      )}

      {check.kind === 'mismatch' && (
        <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} />} title="Structured content does not match the output schema" role="alert">
          <List size="sm" spacing={2} aria-label="Output schema problems">
            {check.problems.map((problem) => (
              <List.Item key={`${problem.path}:${problem.message}`}>
                <Code>{readablePath(problem.path)}</Code> {problem.message}
              </List.Item>
            ))}
          </List>
        </Alert>
      )}
      {check.kind === 'missing' && (
        <Alert color="yellow" variant="light" icon={<IconAlertTriangle size={18} />} title="No structured content" role="alert">
          The tool declares an output schema but returned no structuredContent.
        </Alert>
      )}

      {result && (
        <Tabs defaultValue={blocks.length === 0 && hasStructured ? 'structured' : 'content'} keepMounted={false}>
          <Tabs.List>
            <Tabs.Tab value="content">
              Content{' '}
              <Text span size="xs" c="dimmed">
                {blocks.length}
              </Text>
            </Tabs.Tab>
            {hasStructured && (
              <Tabs.Tab value="structured" rightSection={check.kind === 'ok' ? <IconCircleCheck size={14} color="var(--mantine-color-teal-6)" aria-label="matches the output schema" /> : undefined}>
                Structured
              </Tabs.Tab>
            )}
            <Tabs.Tab value="raw">Raw</Tabs.Tab>
          </Tabs.List>

          <Tabs.Panel value="content" pt="sm">
            {blocks.length === 0 ? (
              <Text size="sm" c="dimmed">
                The result has no content blocks.
              </Text>
            ) : (
              <Stack gap="sm">
                {blocks.map((block, i) => (
                  <ContentBlockView key={i} block={block} index={i} server={server} />
                ))}
              </Stack>
            )}
          </Tabs.Panel>

          {hasStructured && (
            <Tabs.Panel value="structured" pt="sm">
              <Paper withBorder radius="md" p="sm" pos="relative">
                <Box pos="absolute" top={6} right={6}>
                  <CopyButton value={JSON.stringify(result.structuredContent, null, 2)} label="Copy structured content" />
                </Box>
                <ScrollArea.Autosize mah={520} type="auto">
                  <JsonTree value={result.structuredContent} label="Structured content" />
                </ScrollArea.Autosize>
              </Paper>
            </Tabs.Panel>
          )}

          <Tabs.Panel value="raw" pt="sm">
            <RawJson text={raw} label="Copy result JSON" />
          </Tabs.Panel>
        </Tabs>
      )}
      {!result && !error && <RawJson text={raw} label="Copy result JSON" />}
    </Stack>
  );
}

/** MCP URL-mode elicitation, error path: pages the server needs the operator to visit before the call can succeed. */
function UrlElicitationPages({ urls, onRetry }: { urls: string[]; onRetry?: () => void }) {
  const pages = urls.flatMap((url) => {
    try {
      const parsed = new URL(url);
      return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? [parsed] : [];
    } catch {
      return [];
    }
  });
  return (
    <Stack gap={6} mt={8}>
      <Text size="sm">The server needs you to open {pages.length === 1 ? 'this page' : 'these pages'} first, finish there, then retry the call:</Text>
      <List size="sm" aria-label="Pages to open">
        {pages.map((page) => (
          <List.Item key={page.href}>
            <Anchor href={page.href} target="_blank" rel="noopener noreferrer" style={{ wordBreak: 'break-all' }}>
              {page.href}
            </Anchor>{' '}
            <Text span size="xs" c="dimmed">
              ({page.host})
            </Text>
          </List.Item>
        ))}
      </List>
      {onRetry && (
        <Group>
          <Button size="xs" onClick={onRetry}>
            Retry the call
          </Button>
        </Group>
      )}
    </Stack>
  );
}

/** The task a task-augmented call ran as: its id, where it ended (or stands, when detached) and its timeline. */
function TaskSection({ task, server }: { task: InvocationTask; server?: string }) {
  return (
    <Paper withBorder radius="md" p="sm" component="section" aria-label="Task">
      <Group justify="space-between" mb={6} wrap="wrap" gap="xs">
        <Group gap="xs">
          <Text size="sm" fw={600}>
            {task.awaited ? 'Ran as task' : 'Started task'}
          </Text>
          <Code>{task.taskId}</Code>
          <CopyButton value={task.taskId} label="Copy task id" />
          <TaskStatusBadge status={task.status} />
        </Group>
        {!task.awaited && server && (
          <Text size="xs" c="dimmed">
            Not waited for: follow it and fetch its result in {server}’s Tasks tab.
          </Text>
        )}
      </Group>
      <McpTaskTimeline events={task.events} label={`Timeline of task ${task.taskId}`} />
    </Paper>
  );
}

function parseArgs(json: string): Record<string, unknown> {
  try {
    const value = JSON.parse(json) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The call's W3C trace id, opening History on that trace. */
function TraceLink({ traceId }: { traceId: string }) {
  const navigate = useNavigate();
  return (
    <Tooltip label={`Trace ${traceId}: show its calls in History`} withArrow>
      <Anchor component="button" size="xs" ff="monospace" onClick={() => navigate('history', filterParams({ trace: traceId }))} aria-label={`Trace ${traceId}`}>
        trace {traceId.slice(0, 8)}…
      </Anchor>
    </Tooltip>
  );
}

function Metric({ label, value }: { label: string; value: string }) {
  return (
    <Text size="xs" c="dimmed">
      {label}{' '}
      <Text span size="xs" fw={600} c="var(--mantine-color-text)" ff="monospace">
        {value}
      </Text>
    </Text>
  );
}

function ErrorTitle({ code, retryable, step }: { code: string; retryable: boolean; step?: string }) {
  return (
    <Group gap={6}>
      <Code fw={700}>{code}</Code>
      {step && (
        <Badge size="xs" variant="outline" color="gray" style={{ textTransform: 'none' }}>
          at {step}
        </Badge>
      )}
      <Badge size="xs" variant="light" color={retryable ? 'blue' : 'gray'}>
        {retryable ? 'Retryable' : 'Not retryable'}
      </Badge>
    </Group>
  );
}

function RawJson({ text, label }: { text: string; label: string }) {
  return (
    <Paper withBorder radius="md" pos="relative">
      <Box pos="absolute" top={6} right={6} style={{ zIndex: 1 }}>
        <CopyButton value={text} label={label} />
      </Box>
      <ScrollArea.Autosize mah={520} type="auto">
        <Box component="pre" m={0} p="sm" ff="monospace" fz="xs" style={{ lineHeight: 1.6, whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
          {text}
        </Box>
      </ScrollArea.Autosize>
    </Paper>
  );
}
