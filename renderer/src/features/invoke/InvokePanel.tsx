import { Alert, Badge, Box, Button, Checkbox, Code, Group, Kbd, Paper, Stack, Switch, Text, Tooltip } from '@mantine/core';
import { IconAlertTriangle, IconPlayerPlay, IconPlayerStop, IconShieldX } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { declaresTasksExtension } from '../../../../shared/tasks';
import { formatDuration } from '../../components/format';
import { readablePath } from '../../components/jsonSchema';
import { useTRPC } from '../../rpc/client';
import { SaveToCollectionButton } from '../collections/SaveToCollectionButton';
import { ArgumentsEditor } from './ArgumentsEditor';
import { ConfirmInvokeDialog } from './ConfirmInvokeDialog';
import { ResultView } from './ResultView';
import { RunStatus } from './RunStatus';
import { TimeoutsPopover } from './TimeoutsPopover';
import { effectiveTimeouts, isMarkedDestructive, timeoutOverrides, type InvokeTimeouts, type ToolView } from './types';
import { useArguments } from './useArguments';
import { useInvocation, type InvocationState } from './useInvocation';
import { VerdictBadge, VerdictReasons } from './VerdictBadge';
import { ReviewHoldDialog } from '../lock/ReviewHoldDialog';

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

/** Call one tool: arguments (form or JSON), timeouts, policy, live progress with cancel, and the result. */
export function InvokePanel({ tool }: { tool: ToolView }) {
  return <ToolInvoker key={tool.name} tool={tool} />;
}

function ToolInvoker({ tool }: { tool: ToolView }) {
  const args = useArguments(tool.inputSchema);
  const effective = effectiveTimeouts(tool);
  // Only what the user changed is kept: the tool's runtime stays the default underneath.
  const [overrides, setOverrides] = useState<Partial<InvokeTimeouts>>({});
  const timeouts = { ...effective, ...overrides };
  const setTimeouts = (value: InvokeTimeouts) => setOverrides(timeoutOverrides(value, effective));
  const [confirming, setConfirming] = useState(false);
  const [reviewing, setReviewing] = useState(false);
  const [asTask, setAsTask] = useState(false);
  const [detach, setDetach] = useState(false);
  const { state, start, cancel } = useInvocation();
  const [sentArgs, setSentArgs] = useState<Record<string, unknown>>({});
  // A server of the tasks extension (2026-07-28) decides itself which calls become tasks.
  const trpc = useTRPC();
  const server = useQuery({ ...trpc.mcp.get.queryOptions({ name: tool.source.name }), enabled: tool.source.kind === 'mcp', retry: false, staleTime: 30_000 });
  const serverDecides = tool.source.kind === 'mcp' && declaresTasksExtension(server.data?.capabilities);
  const runsAsTask = tool.taskSupport === 'required' || (tool.taskSupport === 'optional' && asTask) || serverDecides;
  const rootRef = useRef<HTMLDivElement>(null);
  const blockedId = useId();

  const denied = tool.verdict.verdict === 'deny';
  const running = state.phase === 'running';
  const destructive = isMarkedDestructive(tool);
  const canInvoke = !denied && !running && args.valid;

  const send = (confirmed: boolean, reviewedHash?: string) => {
    setConfirming(false);
    setReviewing(false);
    setSentArgs(args.args);
    start({
      name: tool.name,
      arguments: args.args,
      ...overrides,
      ...(confirmed ? { confirmed: true } : {}),
      ...(reviewedHash ? { reviewedHash } : {}),
      ...(runsAsTask ? { task: { mode: detach ? ('detach' as const) : ('wait' as const) } } : {}),
    });
  };

  const requestInvoke = () => {
    if (!canInvoke) return;
    // A definition tooldeck.lock holds is confirmed with its diff in view; that one dialog covers the other rules too.
    if (tool.verdict.hold) setReviewing(true);
    // The effective verdict already counts the server's destructive hint: one rule for UI and CLI.
    else if (tool.verdict.verdict === 'confirm') setConfirming(true);
    else send(false);
  };

  const requestInvokeRef = useRef(requestInvoke);
  requestInvokeRef.current = requestInvoke;

  // Ctrl/Cmd+Enter from anywhere in the panel, or with nothing focused. Editors that claim the key
  // (Monaco, the plain JSON editor) handle it themselves and mark it handled.
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'Enter' || !(event.ctrlKey || event.metaKey) || event.defaultPrevented) return;
      const target = event.target as Node | null;
      const inPanel = target !== null && rootRef.current?.contains(target);
      if (!inPanel && target !== document.body && target !== document.documentElement) return;
      event.preventDefault();
      requestInvokeRef.current();
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, []);

  const blockedReason = denied ? 'The policy denies this tool.' : !args.valid ? problemSummary(args.syntaxError, args.problems) : undefined;

  return (
    <Stack gap="md" ref={rootRef}>
      {denied && (
        <Alert id={blockedId} color="red" variant="light" icon={<IconShieldX size={18} />} title="Denied by policy">
          <VerdictReasons verdict={tool.verdict} />
        </Alert>
      )}

      <ArgumentsEditor state={args} schema={tool.inputSchema} documentName={tool.name} disabled={running} onSubmit={() => requestInvokeRef.current()} />

      <Group justify="space-between" wrap="wrap" gap="sm">
        <Group gap="sm">
          <Button
            leftSection={<IconPlayerPlay size={16} aria-hidden />}
            onClick={requestInvoke}
            disabled={!canInvoke}
            loading={running}
            color={destructive ? 'red' : undefined}
            aria-keyshortcuts="Control+Enter Meta+Enter"
            aria-describedby={blockedReason ? blockedId : undefined}
          >
            Invoke
          </Button>
          <TimeoutsPopover value={timeouts} defaults={effective} onChange={setTimeouts} disabled={running} />
          {tool.taskSupport === 'optional' && <Switch size="xs" label="Run as task" checked={asTask} onChange={(e) => setAsTask(e.currentTarget.checked)} disabled={running} />}
          {tool.taskSupport === 'required' && (
            <Tooltip label="The server runs every call of this tool as a task (execution.taskSupport: required)" withArrow>
              <Badge variant="light" color="blue">
                Runs as a task
              </Badge>
            </Tooltip>
          )}
          {serverDecides && tool.taskSupport !== 'required' && (
            <Tooltip label="This server speaks the MCP tasks extension (2026-07-28): it decides whether a call runs as a task, and Tooldeck follows the task to its result" withArrow multiline w={300}>
              <Badge variant="light" color="blue">
                Server may run it as a task
              </Badge>
            </Tooltip>
          )}
          {runsAsTask && (
            <Checkbox size="xs" label="Don’t wait (start only)" checked={detach} onChange={(e) => setDetach(e.currentTarget.checked)} disabled={running} />
          )}
          {tool.source.kind !== 'http' && (
            <SaveToCollectionButton
              disabled={!args.valid}
              source={() => ({
                kind: 'call',
                name: tool.name,
                arguments: args.args,
                ...overrides,
              })}
            />
          )}
          <Text size="xs" c="dimmed" aria-hidden>
            <Kbd size="xs">{isMac ? '⌘' : 'Ctrl'}</Kbd> + <Kbd size="xs">Enter</Kbd>
          </Text>
        </Group>
        <VerdictBadge verdict={tool.verdict} />
      </Group>
      {blockedReason && !denied && (
        <Text id={blockedId} size="xs" c="dimmed" mt={-8}>
          {blockedReason}
        </Text>
      )}

      <ConfirmInvokeDialog opened={confirming} tool={tool} arguments={args.args} onConfirm={() => send(true)} onClose={() => setConfirming(false)} />
      <ReviewHoldDialog opened={reviewing} tool={tool} arguments={args.args} onConfirm={(hash) => send(true, hash)} onClose={() => setReviewing(false)} />

      <Box component="section" aria-label="Result">
        <ResultArea state={state} tool={tool} args={sentArgs} onCancel={cancel} onRetry={() => requestInvokeRef.current()} />
      </Box>
    </Stack>
  );
}

function problemSummary(syntaxError: string | null, problems: Array<{ path: string; message: string }>): string {
  if (syntaxError) return 'Fix the JSON syntax to invoke.';
  const first = problems[0];
  if (!first) return '';
  const rest = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
  return `Fix to invoke: ${readablePath(first.path)} ${first.message}${rest}.`;
}

function ResultArea({ state, tool, args, onCancel, onRetry }: { state: InvocationState; tool: ToolView; args: Record<string, unknown>; onCancel: () => void; onRetry: () => void }) {
  switch (state.phase) {
    case 'idle':
      return (
        <Paper radius="md" p="lg" style={{ border: '1px dashed var(--mantine-color-default-border)' }}>
          <Text size="sm" c="dimmed" ta="center">
            The result appears here after you invoke the tool.
          </Text>
        </Paper>
      );
    case 'running':
      return <RunStatus startedAt={state.startedAt} progress={state.progress} task={state.task} onCancel={onCancel} />;
    case 'done':
      return <ResultView outcome={state.outcome} tool={tool} args={args} onRetry={onRetry} />;
    case 'failed':
      return (
        <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} title="The call failed" role="alert">
          <Group gap={6} mb={4}>
            <Code fw={700}>{state.error.code}</Code>
            <Text size="xs" c="dimmed">
              {state.error.retryable ? 'Retryable' : 'Not retryable'}
            </Text>
          </Group>
          <Text size="sm">{state.error.message}</Text>
        </Alert>
      );
    case 'canceled':
      return (
        <Alert color="gray" variant="light" icon={<IconPlayerStop size={18} />} title="Canceled" role="status">
          Canceled after {formatDuration(state.elapsedMs)}; the server was asked to stop.
        </Alert>
      );
  }
}
