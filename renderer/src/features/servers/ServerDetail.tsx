import { Alert, Badge, Button, Code, Group, Menu, Paper, ScrollArea, SimpleGrid, Stack, Table, Tabs, Text, Title, Tooltip } from '@mantine/core';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import { IconDots, IconPencil, IconPlugConnected, IconPlugConnectedX, IconRefresh, IconStethoscope, IconTrash } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useMemo, useState } from 'react';
import type { ServerSnapshot } from '../../../../shared/mcp';
import { useTRPC } from '../../rpc/client';
import { useNavigate } from '../../shell/useSection';
import { ConnectionBadge } from './ConnectionBadge';
import { ServerToolsTab } from './ServerToolsTab';
import { useSourceReview } from '../lock/useLock';
import { McpIconImage } from '../../components/McpIconImage';
import type { McpIcon } from '../../../../shared/icons';

// Tabs other than Tools, and the edit form, load when first opened: the Servers view is the
// console's first screen and should not wait for their code.
const AuthorizationPanel = lazy(() => import('./AuthorizationPanel').then((m) => ({ default: m.AuthorizationPanel })));
const ExcludedToolModal = lazy(() => import('./ExcludedToolModal').then((m) => ({ default: m.ExcludedToolModal })));
const DefinitionHistoryPanel = lazy(() => import('../lock/DefinitionHistoryPanel').then((m) => ({ default: m.DefinitionHistoryPanel })));
const PromptsPanel = lazy(() => import('./PromptsPanel').then((m) => ({ default: m.PromptsPanel })));
const ResourcesPanel = lazy(() => import('./ResourcesPanel').then((m) => ({ default: m.ResourcesPanel })));
const ServerFormModal = lazy(() => import('./ServerFormModal').then((m) => ({ default: m.ServerFormModal })));
const TasksPanel = lazy(() => import('./TasksPanel').then((m) => ({ default: m.TasksPanel })));
const TranscriptPanel = lazy(() => import('./TranscriptPanel').then((m) => ({ default: m.TranscriptPanel })));

const STEP_HELP: Record<string, string> = {
  spawn: 'The command could not be started. Check that it is installed and on the PATH, or give its full path.',
  transport: 'Nothing answered at the address, or the connection dropped. Check the URL and that the server is running.',
  negotiation: 'Something answered but did not complete the MCP handshake. Check that it is an MCP server and that it writes only JSON-RPC to stdout.',
  auth: 'The server needs authorization or refused the credentials: use Sign in on the Authorization tab, or check the bearer token and headers.',
  listing: 'The handshake worked but listing tools failed.',
};

export function ServerDetail({ server }: { server: ServerSnapshot }) {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const [editing, setEditing] = useState(false);
  /** A listed tool the workspace keeps out of the registry, opened to say why. */
  const [excluded, setExcluded] = useState<string>();
  const [tab, setTab] = useState<string | null>('tools');
  const name = server.config.name;
  const review = useSourceReview(`mcp:${name}`);
  // Stable between renders (a click's pending state, a status push), so the tools tab and its rows
  // are not rendered again for them: with a 1,000-tool server that was the click's main cost.
  const heldTools = useMemo(() => new Map((review?.tools ?? []).filter((tool) => tool.state !== 'approved').map((tool) => [tool.tool, tool.state])), [review]);
  const connect = useMutation(trpc.mcp.connect.mutationOptions());
  const disconnect = useMutation(trpc.mcp.disconnect.mutationOptions());
  const refresh = useMutation(trpc.mcp.refresh.mutationOptions());
  const remove = useMutation(trpc.mcp.remove.mutationOptions());
  const { state } = server;
  const openTool = useCallback((tool: string) => navigate('tools', { tool: `mcp:${name}.${tool}` }), [navigate, name]);
  const excludedTools = server.excludedTools;
  const openListedTool = useCallback((tool: string) => (excludedTools?.[tool] ? setExcluded(tool) : openTool(tool)), [excludedTools, openTool]);
  const where = server.config.transport === 'stdio' ? [server.config.command, ...server.config.args].join(' ') : server.config.url;

  const confirmRemove = () =>
    modals.openConfirmModal({
      title: `Remove ${name}?`,
      children: <Text size="sm">The connection closes, its process ends and its stored secrets are deleted.</Text>,
      labels: { confirm: 'Remove', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        remove.mutate(
          { name },
          {
            onSuccess: () => {
              notifications.show({ title: `Removed ${name}`, message: 'Server, connection and secrets are gone.' });
              navigate('servers', {});
            },
          },
        ),
    });

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-start">
        <div style={{ minWidth: 0 }}>
          <Group gap="sm">
            <McpIconImage icons={(server.serverInfo as { icons?: McpIcon[] } | undefined)?.icons} size={28} label={`${name} icon`} />
            <Title order={3}>{name}</Title>
            <ConnectionBadge state={state} size="md" />
            {server.origin?.kind === 'workspace' && (
              <Badge
                component="button"
                type="button"
                variant="outline"
                color="gray"
                style={{ cursor: 'pointer', textTransform: 'none' }}
                onClick={() => server.origin?.kind === 'workspace' && navigate('resources', { file: server.origin.file })}
                aria-label={`Declared in ${server.origin.file}`}
              >
                workspace · {server.origin.file}
              </Badge>
            )}
          </Group>
          <Text c="dimmed" size="sm" ff="monospace" truncate="end" maw={640} title={where}>
            {server.config.transport === 'stdio' ? 'stdio · ' : server.config.transport === 'http' ? 'Streamable HTTP · ' : 'HTTP+SSE · '}
            {where}
          </Text>
        </div>
        <Group gap="xs">
          {state.status === 'ready' || state.status === 'connecting' ? (
            <Button size="xs" variant="default" leftSection={<IconPlugConnectedX size={14} />} onClick={() => disconnect.mutate({ name })} loading={disconnect.isPending}>
              Disconnect
            </Button>
          ) : (
            <Button size="xs" leftSection={<IconPlugConnected size={14} />} onClick={() => connect.mutate({ name })} loading={connect.isPending}>
              Connect
            </Button>
          )}
          <Button size="xs" variant="default" leftSection={<IconRefresh size={14} />} disabled={state.status !== 'ready'} onClick={() => refresh.mutate({ name })} loading={refresh.isPending}>
            Refresh
          </Button>
          <Menu position="bottom-end" withinPortal>
            <Menu.Target>
              <Button size="xs" variant="default" px={8} aria-label="More actions">
                <IconDots size={16} />
              </Button>
            </Menu.Target>
            <Menu.Dropdown>
              <Menu.Item leftSection={<IconPencil size={14} />} onClick={() => setEditing(true)}>
                Edit
              </Menu.Item>
              <Menu.Item color="red" leftSection={<IconTrash size={14} />} onClick={confirmRemove}>
                Remove
              </Menu.Item>
            </Menu.Dropdown>
          </Menu>
        </Group>
      </Group>

      {state.status === 'error' && (
        <Alert color="red" icon={<IconStethoscope />} title={`Connection failed${state.step ? ` at step “${state.step}”` : ''}`} role="alert">
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {state.message}
          </Text>
          {state.step && (
            <Text size="xs" c="dimmed" mt={6}>
              {STEP_HELP[state.step]}
            </Text>
          )}
          {state.nextRetryAt && (
            <Text size="xs" mt={6}>
              Retrying automatically (attempt {state.attempt}).
            </Text>
          )}
        </Alert>
      )}
      {(connect.error || refresh.error) && state.status !== 'error' && <Alert color="red">{(connect.error ?? refresh.error)!.message}</Alert>}

      {server.problems.length > 0 && (
        <Alert color="yellow" title="What this server gets wrong" variant="light" role="status" aria-label="Server problems">
          <Stack gap={2}>
            {server.problems.map((problem) => (
              <Text key={problem} size="sm">
                {problem}
              </Text>
            ))}
          </Stack>
        </Alert>
      )}
      {server.lastDiff && (
        <Alert color="blue" title="The tool list changed" variant="light">
          <Text size="sm">
            {server.lastDiff.added.length > 0 && <>Added: {server.lastDiff.added.join(', ')}. </>}
            {server.lastDiff.removed.length > 0 && <>Removed: {server.lastDiff.removed.join(', ')}. </>}
            {server.lastDiff.changed.map((c) => `${c.name} (${c.fields.join(', ')})`).join('; ')}
          </Text>
        </Alert>
      )}

      {heldTools.size > 0 && (
        <Alert color="orange" title={`${heldTools.size} tool${heldTools.size === 1 ? '' : 's'} held for review`} variant="light">
          <Group justify="space-between">
            <Text size="sm">Their definitions differ from tooldeck.lock: agents do not get them until they are approved.</Text>
            <Button size="xs" color="orange" variant="light" onClick={() => setTab('history')}>
              Review
            </Button>
          </Group>
        </Alert>
      )}

      <Suspense fallback={null}>
      <Tabs value={tab} onChange={setTab} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="tools">Tools ({server.tools.length})</Tabs.Tab>
          <Tabs.Tab value="resources">Resources ({server.resources.length + server.resourceTemplates.length})</Tabs.Tab>
          <Tabs.Tab value="prompts">Prompts ({server.prompts.length})</Tabs.Tab>
          <Tabs.Tab value="tasks">Tasks</Tabs.Tab>
          <Tabs.Tab value="transcript">Transcript</Tabs.Tab>
          <Tabs.Tab value="history">History{heldTools.size ? ` (${heldTools.size} held)` : ''}</Tabs.Tab>
          {server.config.transport !== 'stdio' && <Tabs.Tab value="authorization">Authorization</Tabs.Tab>}
          <Tabs.Tab value="info">Info</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="tools" pt="md">
          <ServerToolsTab
            server={name}
            tools={server.tools}
            ready={state.status === 'ready'}
            listing={state.listing}
            excluded={server.excludedTools}
            held={heldTools}
            onOpen={openListedTool}
          />
        </Tabs.Panel>
        <Tabs.Panel value="resources" pt="md">
          <ResourcesPanel server={server} />
        </Tabs.Panel>
        <Tabs.Panel value="prompts" pt="md">
          <PromptsPanel server={server} />
        </Tabs.Panel>
        <Tabs.Panel value="tasks" pt="md">
          <TasksPanel server={name} connected={state.status === 'ready'} />
        </Tabs.Panel>
        <Tabs.Panel value="transcript" pt="md">
          <TranscriptPanel server={name} />
        </Tabs.Panel>
        <Tabs.Panel value="history" pt="md">
          <DefinitionHistoryPanel source={`mcp:${name}`} />
        </Tabs.Panel>
        {server.config.transport !== 'stdio' && (
          <Tabs.Panel value="authorization" pt="md">
            <AuthorizationPanel server={name} />
          </Tabs.Panel>
        )}
        <Tabs.Panel value="info" pt="md">
          <ServerInfo server={server} />
        </Tabs.Panel>
      </Tabs>
      {excluded && <ExcludedToolModal server={name} tool={server.tools.find((t) => t.name === excluded)} exclusion={excluded ? server.excludedTools?.[excluded] : undefined} onClose={() => setExcluded(undefined)} />}
      {editing && <ServerFormModal opened onClose={() => setEditing(false)} existing={server} onSaved={(saved) => navigate('servers', { server: saved })} />}
      </Suspense>
    </Stack>
  );
}

function ServerInfo({ server }: { server: ServerSnapshot }) {
  return (
    <SimpleGrid cols={{ base: 1, md: 2 }}>
      <Paper withBorder p="md">
        <Table variant="vertical" aria-label="Server information">
          <Table.Tbody>
            <Table.Tr>
              <Table.Th w={150}>Server</Table.Th>
              <Table.Td>{server.serverInfo ? `${server.serverInfo.title ?? server.serverInfo.name} ${server.serverInfo.version}` : '—'}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Protocol</Table.Th>
              <Table.Td>
                {server.protocolVersion ?? '—'}{' '}
                {server.era && (
                  <Tooltip label={server.era === 'modern' ? 'Stateless 2026-07-28 era' : 'Session era (initialize, 2025-11-25 and earlier)'}>
                    <Badge size="xs" variant="light">
                      {server.era}
                    </Badge>
                  </Tooltip>
                )}
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Capabilities</Table.Th>
              <Table.Td>
                <Group gap={4}>
                  {Object.keys(server.capabilities ?? {}).map((c) => (
                    <Badge key={c} size="xs" variant="outline">
                      {c}
                    </Badge>
                  ))}
                </Group>
              </Table.Td>
            </Table.Tr>
            {server.pid && (
              <Table.Tr>
                <Table.Th>Process</Table.Th>
                <Table.Td ff="monospace">pid {server.pid}</Table.Td>
              </Table.Tr>
            )}
          </Table.Tbody>
        </Table>
      </Paper>
      <Paper withBorder p="md">
        <Text size="xs" tt="uppercase" fw={700} c="dimmed" mb={6}>
          Instructions
        </Text>
        <ScrollArea.Autosize mah={300}>
          {server.instructions ? (
            <Code block fz="xs" style={{ whiteSpace: 'pre-wrap' }}>
              {server.instructions}
            </Code>
          ) : (
            <Text size="sm" c="dimmed">
              None
            </Text>
          )}
        </ScrollArea.Autosize>
      </Paper>
    </SimpleGrid>
  );
}
