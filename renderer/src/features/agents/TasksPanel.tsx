import { Alert, Button, Center, Group, Loader, Paper, Stack, Table, Text } from '@mantine/core';
import { IconChevronLeft, IconChevronRight, IconInfoCircle, IconRefresh, IconSearch } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { A2aProtocolVersion, A2aTaskView } from '../../../../shared/a2a';
import { useTRPC } from '../../rpc/client';
import { appErrorOf } from '../../rpc/appError';
import { formatStamp, MONO_INPUT, shortId } from './display';
import { TaskDetails } from './TaskDetails';
import { TaskStateBadge } from './TaskStateBadge';
import { ClearableTextInput } from '../../components/ClearableTextInput';

const PAGE_SIZE = 20;

/** Tasks at the agent: open one by id, or browse them where the agent supports ListTasks. */
export function TasksPanel({ agent, protocolVersion }: { agent: string; protocolVersion: A2aProtocolVersion | undefined }) {
  const [taskIdInput, setTaskIdInput] = useState('');
  const [openId, setOpenId] = useState<string>();
  return (
    <Stack gap="md">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (taskIdInput.trim()) setOpenId(taskIdInput.trim());
        }}
      >
        <Group align="flex-end" gap="xs">
          <ClearableTextInput
            label="Task ID"
            placeholder="Paste a task id"
            value={taskIdInput}
            // Clearing empties the box only: the task already opened stays open until another is.
            onValueChange={setTaskIdInput}
            styles={MONO_INPUT}
            style={{ flex: 1 }}
            clearLabel="Clear task id"
          />
          <Button type="submit" leftSection={<IconSearch size={14} />} disabled={!taskIdInput.trim()}>
            Open task
          </Button>
        </Group>
      </form>
      {openId && <OpenedTask agent={agent} taskId={openId} />}
      <TaskList
        agent={agent}
        protocolVersion={protocolVersion}
        openId={openId}
        onOpen={(id) => {
          setTaskIdInput(id);
          setOpenId(id);
        }}
      />
    </Stack>
  );
}

function OpenedTask({ agent, taskId }: { agent: string; taskId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const options = trpc.a2a.getTask.queryOptions({ agent, taskId });
  const task = useQuery({ ...options, retry: false });
  const cancel = useMutation(
    trpc.a2a.cancelTask.mutationOptions({
      onSuccess: (view) => {
        queryClient.setQueryData(options.queryKey, view);
        void queryClient.invalidateQueries({ queryKey: trpc.a2a.listTasks.pathKey() });
      },
    }),
  );
  if (task.isPending) {
    return (
      <Center py="md">
        <Loader size="sm" aria-label="Loading task" />
      </Center>
    );
  }
  if (task.error) {
    return (
      <Alert color="red" title={`Cannot open task ${shortId(taskId)}`} role="alert">
        {appErrorOf(task.error).message}
      </Alert>
    );
  }
  return (
    <Stack gap="xs">
      {cancel.error && (
        <Alert color="red" role="alert">
          {appErrorOf(cancel.error).message}
        </Alert>
      )}
      <TaskDetails
        task={task.data as A2aTaskView}
        onRefresh={() => void task.refetch()}
        refreshing={task.isFetching}
        onCancel={() => cancel.mutate({ agent, taskId })}
        canceling={cancel.isPending}
      />
    </Stack>
  );
}

function TaskList({
  agent,
  protocolVersion,
  openId,
  onOpen,
}: {
  agent: string;
  protocolVersion: A2aProtocolVersion | undefined;
  openId: string | undefined;
  onOpen: (taskId: string) => void;
}) {
  const trpc = useTRPC();
  const [contextId, setContextId] = useState('');
  const [pageTokens, setPageTokens] = useState<string[]>(['']);
  const supported = useQuery({ ...trpc.a2a.supportsListTasks.queryOptions({ agent }), retry: false });
  const pageToken = pageTokens.at(-1) ?? '';
  const list = useQuery({
    ...trpc.a2a.listTasks.queryOptions({
      agent,
      pageSize: PAGE_SIZE,
      ...(contextId.trim() ? { contextId: contextId.trim() } : {}),
      ...(pageToken ? { pageToken } : {}),
    }),
    enabled: supported.data === true,
    retry: false,
  });

  if (supported.isPending) return null;
  if (supported.error) {
    return (
      <Alert color="red" title="Cannot reach the agent" role="alert">
        {appErrorOf(supported.error).message}
      </Alert>
    );
  }
  if (!supported.data) {
    return (
      <Alert color="gray" icon={<IconInfoCircle />} title="This agent does not support listing tasks" role="status">
        {protocolVersion === '0.3'
          ? 'It speaks A2A 0.3, which has no tasks/list method.'
          : protocolVersion === '1.0'
            ? 'It answered ListTasks with “method not found”.'
            : 'It offers no ListTasks method.'}{' '}
        Open a task by its id above; tasks started in a conversation are in the Conversation tab.
      </Alert>
    );
  }
  const tasks = (list.data?.tasks ?? []) as A2aTaskView[];
  return (
    <Paper withBorder radius="md">
      <Group justify="space-between" p="sm" style={{ borderBottom: '1px solid var(--mantine-color-default-border)' }}>
        <Text fw={600} size="sm">
          Tasks at the agent{list.data?.totalSize !== undefined ? ` (${list.data.totalSize})` : ''}
        </Text>
        <Group gap="xs">
          <ClearableTextInput
            size="xs"
            w={300}
            placeholder="Filter by context id"
            aria-label="Filter by context id"
            value={contextId}
            // Clearing is a filter change like typing: back to the first page of every task.
            onValueChange={(value) => {
              setContextId(value);
              setPageTokens(['']);
            }}
            styles={MONO_INPUT}
            clearLabel="Clear filter"
          />
          <Button size="xs" variant="default" leftSection={<IconRefresh size={14} />} onClick={() => void list.refetch()} loading={list.isFetching}>
            Refresh
          </Button>
        </Group>
      </Group>
      {list.error ? (
        <Alert color="red" m="sm" role="alert">
          {appErrorOf(list.error).message}
        </Alert>
      ) : (
        <Table highlightOnHover verticalSpacing={6} fz="sm" aria-label="Tasks">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Task</Table.Th>
              <Table.Th w={150}>State</Table.Th>
              <Table.Th>Context</Table.Th>
              <Table.Th w={170}>Updated</Table.Th>
              <Table.Th w={90} ta="right">
                Artifacts
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {tasks.map((t) => (
              <Table.Tr
                key={t.id}
                style={{ cursor: 'pointer' }}
                bg={t.id === openId ? 'var(--mantine-primary-color-light)' : undefined}
                aria-selected={t.id === openId}
                onClick={() => onOpen(t.id)}
                aria-label={`Task ${t.id}`}
              >
                <Table.Td ff="monospace" title={t.id}>
                  {shortId(t.id)}
                </Table.Td>
                <Table.Td>
                  <TaskStateBadge state={t.state} size="xs" />
                </Table.Td>
                <Table.Td ff="monospace" title={t.contextId}>
                  {shortId(t.contextId)}
                </Table.Td>
                <Table.Td style={{ whiteSpace: 'nowrap' }}>{t.updatedAt ? formatStamp(t.updatedAt) : '—'}</Table.Td>
                <Table.Td ta="right">{t.artifacts.length}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {list.isPending && !list.error && (
        <Center py="md">
          <Loader size="sm" aria-label="Loading tasks" />
        </Center>
      )}
      {list.data && tasks.length === 0 && (
        <Text size="sm" c="dimmed" ta="center" py="lg">
          No tasks{contextId.trim() ? ' in this context' : ''}.
        </Text>
      )}
      {(pageTokens.length > 1 || list.data?.nextPageToken) && (
        <Group justify="flex-end" p="xs" gap="xs">
          <Button
            size="xs"
            variant="default"
            leftSection={<IconChevronLeft size={14} />}
            disabled={pageTokens.length <= 1}
            onClick={() => setPageTokens((p) => p.slice(0, -1))}
          >
            Previous
          </Button>
          <Button
            size="xs"
            variant="default"
            rightSection={<IconChevronRight size={14} />}
            disabled={!list.data?.nextPageToken}
            onClick={() => setPageTokens((p) => [...p, list.data!.nextPageToken!])}
          >
            Next
          </Button>
        </Group>
      )}
    </Paper>
  );
}
