import { Alert, Badge, Button, Code, Group, Loader, Modal, Paper, ScrollArea, Stack, Table, Text, Tooltip } from '@mantine/core';
import { IconAlertTriangle, IconInfoCircle } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import type { TRPCClient } from '@trpc/client';
import { useEffect, useState } from 'react';
import type { tasksRouter } from '../../../../main/rpc/tasksRouter';
import type { ContentBlock } from '../../../../shared/registry';
import { isTerminalTaskStatus, type ServerTaskList, type ServerTaskView, type TaskResultView } from '../../../../shared/tasks';
import { CopyButton } from '../../components/CopyButton';
import { JsonTree } from '../../components/JsonTree';
import { useTRPCClient } from '../../rpc/client';
import { ContentBlockView } from '../invoke/ContentBlockView';
import { TaskStatusBadge } from '../tasks/McpTaskTimeline';
import { formatClock } from '../../components/format';

type TasksClient = TRPCClient<typeof tasksRouter>;

/** The `tasks` procedures, typed by their own router so the panel only relies on the `tasks` mount key. */
function useTasksClient(): TasksClient {
  return (useTRPCClient() as unknown as { tasks: TasksClient }).tasks;
}

/** The server's task list, pushed again whenever a task changes. */
function useTaskList(server: string): { list?: ServerTaskList; error?: string } {
  const tasks = useTasksClient();
  const [list, setList] = useState<ServerTaskList>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    setList(undefined);
    setError(undefined);
    const subscription = tasks.watch.subscribe({ server }, { onData: (next) => setList(next as ServerTaskList), onError: (e) => setError(e.message) });
    return () => subscription.unsubscribe();
  }, [tasks, server]);
  return { list, error };
}

function since(at: number): string {
  const s = Math.max(0, Math.round((Date.now() - at) / 1000));
  if (s < 90) return `${s} s ago`;
  if (s < 5400) return `${Math.round(s / 60)} min ago`;
  return new Date(at).toLocaleString();
}

/**
 * A server's MCP tasks: the ones Tooldeck started (remembered across reloads and restarts), the
 * ones the server lists, and the ones Tooldeck runs for the server; each with its status, and
 * Result (tasks/result, which waits for a running task) and Cancel.
 */
export function TasksPanel({ server, connected }: { server: string; connected: boolean }) {
  const tasks = useTasksClient();
  const { list, error } = useTaskList(server);
  const [viewing, setViewing] = useState<ServerTaskView>();
  const cancel = useMutation({ mutationFn: (taskId: string) => tasks.cancel.mutate({ server, taskId }) });
  const forget = useMutation({ mutationFn: (taskId: string) => tasks.forget.mutate({ server, taskId }) });

  if (error) return <Alert color="red" icon={<IconAlertTriangle size={16} />}>{error}</Alert>;
  if (!list) return <Loader size="sm" aria-label="Loading tasks" />;

  return (
    <Stack gap="sm">
      <Group gap={6}>
        <Text size="sm" c="dimmed">
          Long-running calls run as tasks: their results can be fetched later while the server keeps them.
        </Text>
        <Tooltip multiline w={320} label="Tasks Tooldeck started are remembered per server. Servers that keep tasks per session forget them when the session ends; such tasks are marked as gone.">
          <IconInfoCircle size={14} aria-label="About remembered tasks" />
        </Tooltip>
      </Group>
      {list.problem && (
        <Alert color="yellow" variant="light" role="status">
          {list.problem}
        </Alert>
      )}
      {connected && !list.canList && (
        <Text size="xs" c="dimmed">
          This server does not offer tasks/list: only the tasks Tooldeck started are shown.
        </Text>
      )}
      {(cancel.error || forget.error) && (
        <Alert color="red" role="alert">
          {(cancel.error ?? forget.error)!.message}
        </Alert>
      )}
      {list.tasks.length === 0 ? (
        <Text size="sm" c="dimmed">
          No tasks yet. Tools that support tasks run as one from the Tools view (“Run as task”), or with <Code>tooldeck mcp call … --task</Code>.
        </Text>
      ) : (
        <Table highlightOnHover verticalSpacing={6} aria-label={`Tasks of ${server}`}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Task</Table.Th>
              <Table.Th>Status</Table.Th>
              <Table.Th>What</Table.Th>
              <Table.Th>Started</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.tasks.map((task) => {
              const live = !isTerminalTaskStatus(task.status) && !task.gone;
              const reachable = connected && !task.gone && task.origin === 'call';
              return (
                <Table.Tr key={task.taskId} aria-label={`Task ${task.taskId}`}>
                  <Table.Td>
                    <Group gap={4} wrap="nowrap">
                      <Text ff="monospace" size="xs" truncate="end" maw={220} title={task.taskId}>
                        {task.taskId}
                      </Text>
                      <CopyButton value={task.taskId} label="Copy task id" />
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4}>
                      <TaskStatusBadge status={task.status} size="xs" />
                      {task.gone && (
                        <Tooltip label="The server answered that it no longer has this task">
                          <Badge size="xs" color="gray" variant="outline">
                            gone
                          </Badge>
                        </Tooltip>
                      )}
                      {task.known && !task.onServer && !task.gone && (
                        <Badge size="xs" color="gray" variant="outline">
                          last known
                        </Badge>
                      )}
                    </Group>
                    {task.statusMessage && (
                      <Text size="xs" c="dimmed" lineClamp={2}>
                        {task.statusMessage}
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" ff="monospace">
                      {task.subject}
                    </Text>
                    {task.origin === 'executor' && (
                      <Text size="xs" c="dimmed">
                        Tooldeck runs it for the server; answer it under Requests
                      </Text>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs" title={formatClock(task.createdAt)}>
                      {since(task.createdAt)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={4} justify="flex-end" wrap="nowrap">
                      <Button size="compact-xs" variant="default" disabled={!reachable} onClick={() => setViewing(task)}>
                        {live ? 'Wait for result' : 'Result'}
                      </Button>
                      {live && list.canCancel && reachable && (
                        <Button size="compact-xs" variant="light" color="red" loading={cancel.isPending && cancel.variables === task.taskId} onClick={() => cancel.mutate(task.taskId)}>
                          Cancel
                        </Button>
                      )}
                      {task.known && !live && (
                        <Button size="compact-xs" variant="subtle" color="gray" onClick={() => forget.mutate(task.taskId)}>
                          Forget
                        </Button>
                      )}
                    </Group>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      )}
      {viewing && <TaskResultModal server={server} task={viewing} onClose={() => setViewing(undefined)} />}
    </Stack>
  );
}

/** tasks/result in a dialog: waits while the task runs (closing the dialog stops waiting, not the task). */
function TaskResultModal({ server, task, onClose }: { server: string; task: ServerTaskView; onClose: () => void }) {
  const tasks = useTasksClient();
  const [view, setView] = useState<TaskResultView>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    const controller = new AbortController();
    tasks.result.mutate({ server, taskId: task.taskId }, { signal: controller.signal }).then(
      (result) => setView(result as TaskResultView),
      (e: Error) => !controller.signal.aborted && setError(e.message),
    );
    return () => controller.abort();
  }, [tasks, server, task.taskId]);
  const content = (view?.result as { content?: ContentBlock[] } | undefined)?.content;
  return (
    <Modal opened onClose={onClose} size="xl" title={`Result of task ${task.taskId}`}>
      {error ? (
        <Alert color="red" role="alert">
          {error}
        </Alert>
      ) : !view ? (
        <Group gap="xs">
          <Loader size="xs" />
          <Text size="sm">{isTerminalTaskStatus(task.status) ? 'Fetching the result…' : 'Waiting for the task to finish (any input it needs is asked for under Requests)…'}</Text>
        </Group>
      ) : (
        <Stack gap="sm">
          <Group gap="xs">
            <TaskStatusBadge status={view.task.status} />
            {view.task.statusMessage && <Text size="sm">{view.task.statusMessage}</Text>}
          </Group>
          {view.error && (
            <Alert color="red" title={view.error.code} role="alert">
              {view.error.message}
            </Alert>
          )}
          {content?.map((block, i) => <ContentBlockView key={i} block={block} index={i} server={server} />)}
          {view.result !== undefined && (
            <Paper withBorder p="sm">
              <ScrollArea.Autosize mah={360}>
                <JsonTree value={view.result} label="Task result" />
              </ScrollArea.Autosize>
            </Paper>
          )}
        </Stack>
      )}
    </Modal>
  );
}
