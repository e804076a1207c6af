import { Alert, Box, Button, Code, Group, Kbd, List, Paper, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconPlayerPlay, IconPlayerStop, IconShieldX } from '@tabler/icons-react';
import { useEffect, useId, useRef, useState } from 'react';
import { formatDuration } from '../../components/format';
import { readablePath } from '../../components/jsonSchema';
import { SaveToCollectionButton } from '../collections/SaveToCollectionButton';
import { ArgumentsEditor } from './ArgumentsEditor';
import { ConfirmInvokeDialog } from './ConfirmInvokeDialog';
import { ResultView } from './ResultView';
import { RunStatus } from './RunStatus';
import { TimeoutsPopover } from './TimeoutsPopover';
import { DEFAULT_TIMEOUTS, type InvokeTimeouts, type ToolView } from './types';
import { useArguments } from './useArguments';
import { useInvocation, type InvocationState } from './useInvocation';
import { VerdictBadge } from './VerdictBadge';

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

/** The server's own warning, trusted only to ask for more care: read-only wins over destructive. */
export function isDestructive(tool: ToolView): boolean {
  return tool.annotations?.destructiveHint === true && tool.annotations.readOnlyHint !== true;
}

/** Call one tool: arguments (form or JSON), timeouts, policy, live progress with cancel, and the result. */
export function InvokePanel({ tool }: { tool: ToolView }) {
  return <ToolInvoker key={tool.name} tool={tool} />;
}

function ToolInvoker({ tool }: { tool: ToolView }) {
  const args = useArguments(tool.inputSchema);
  const [timeouts, setTimeouts] = useState<InvokeTimeouts>(DEFAULT_TIMEOUTS);
  const [confirming, setConfirming] = useState(false);
  const { state, start, cancel } = useInvocation();
  const rootRef = useRef<HTMLDivElement>(null);
  const blockedId = useId();

  const denied = tool.verdict.verdict === 'deny';
  const running = state.phase === 'running';
  const destructive = isDestructive(tool);
  const canInvoke = !denied && !running && args.valid;

  const send = (confirmed: boolean) => {
    setConfirming(false);
    start({ name: tool.name, arguments: args.args, ...timeouts, ...(confirmed ? { confirmed: true } : {}) });
  };

  const requestInvoke = () => {
    if (!canInvoke) return;
    if (destructive || tool.verdict.verdict === 'confirm') setConfirming(true);
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
          <List size="sm" spacing={2}>
            {tool.verdict.reasons.map((reason) => (
              <List.Item key={reason}>{reason}</List.Item>
            ))}
          </List>
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
          <TimeoutsPopover value={timeouts} onChange={setTimeouts} disabled={running} />
          {(tool.source.kind === 'mcp' || tool.source.kind === 'a2a') && (
            <SaveToCollectionButton
              disabled={!args.valid}
              source={() => ({
                kind: 'call',
                name: tool.name,
                arguments: args.args,
                ...(timeouts.timeoutMs !== DEFAULT_TIMEOUTS.timeoutMs ? { timeoutMs: timeouts.timeoutMs } : {}),
                ...(timeouts.maxTotalTimeoutMs !== DEFAULT_TIMEOUTS.maxTotalTimeoutMs ? { maxTotalTimeoutMs: timeouts.maxTotalTimeoutMs } : {}),
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

      <ConfirmInvokeDialog opened={confirming} tool={tool} arguments={args.args} destructive={destructive} onConfirm={() => send(true)} onClose={() => setConfirming(false)} />

      <Box component="section" aria-label="Result">
        <ResultArea state={state} tool={tool} onCancel={cancel} />
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

function ResultArea({ state, tool, onCancel }: { state: InvocationState; tool: ToolView; onCancel: () => void }) {
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
      return <RunStatus startedAt={state.startedAt} progress={state.progress} onCancel={onCancel} />;
    case 'done':
      return <ResultView outcome={state.outcome} tool={tool} />;
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
