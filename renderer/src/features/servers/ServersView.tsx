import { Alert, Badge, Box, Button, Center, Group, Loader, Paper, ScrollArea, Stack, Text, ThemeIcon, Title, UnstyledButton } from '@mantine/core';
import { IconDownload, IconFileImport, IconPlus, IconServer2, IconTerminal2, IconWorld } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import type { ServerSnapshot } from '../../../../shared/mcp';
import { useTRPC } from '../../rpc/client';
import { downloadText } from '../../shell/download';
import { useLocation, useNavigate } from '../../shell/useSection';
import { ConnectionBadge } from './ConnectionBadge';
import { HttpServicesPanel } from './HttpServicesPanel';
import { ServerDetail } from './ServerDetail';
import { useServers } from './useServers';
import { McpIconImage } from '../../components/McpIconImage';
import type { McpIcon } from '../../../../shared/icons';
import { EmptyState } from '../../components/EmptyState';
import { RegistryUpdatesNotice } from '../discover/RegistryUpdatesNotice';

const ImportServersModal = lazy(() => import('./ImportServersModal').then((m) => ({ default: m.ImportServersModal })));
const ServerFormModal = lazy(() => import('./ServerFormModal').then((m) => ({ default: m.ServerFormModal })));

export function ServersView() {
  const { servers, error } = useServers();
  const { params } = useLocation();
  const navigate = useNavigate();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [adding, setAdding] = useState(false);
  const [importing, setImporting] = useState(false);
  // A named server that is not in the list yet (just added, the list not refreshed) shows nothing
  // rather than the first server: falling back would mount that server's detail and then swap it
  // out from under the user a moment later.
  const selected = params.server ? servers?.find((s) => s.config.name === params.server) : servers?.[0];

  const exportAll = async () => downloadText('mcp.json', await queryClient.fetchQuery(trpc.mcp.export.queryOptions({})), 'application/json');

  return (
    <Stack gap="md" h="100%">
      <Group justify="space-between">
        <div>
          <Title order={2}>Servers</Title>
          <Text c="dimmed" size="sm">
            MCP servers over stdio, Streamable HTTP or legacy SSE. Their tools join the registry.
          </Text>
        </div>
        <Group gap="xs">
          <Button variant="default" size="sm" leftSection={<IconFileImport size={16} />} onClick={() => setImporting(true)}>
            Import
          </Button>
          <Button variant="default" size="sm" leftSection={<IconDownload size={16} />} onClick={() => void exportAll()} disabled={!servers?.length}>
            Export
          </Button>
          <Button size="sm" leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)}>
            Add server
          </Button>
        </Group>
      </Group>
      {error && <Alert color="red">{error}</Alert>}
      <RegistryUpdatesNotice />
      {!servers ? (
        <Center py="xl">
          <Loader aria-label="Loading servers" />
        </Center>
      ) : servers.length === 0 ? (
        <NoServers onAdd={() => setAdding(true)} onImport={() => setImporting(true)} />
      ) : (
        <Group align="flex-start" gap="lg" wrap="nowrap">
          <Paper withBorder w={280} p={6} style={{ flexShrink: 0 }}>
            <ScrollArea.Autosize mah="calc(100vh - 200px)">
              <Stack gap={2} role="list" aria-label="Saved servers">
                {servers.map((s) => (
                  <ServerListItem key={s.config.name} server={s} active={s.config.name === selected?.config.name} onClick={() => navigate('servers', { server: s.config.name })} />
                ))}
              </Stack>
            </ScrollArea.Autosize>
          </Paper>
          <Box style={{ flex: 1, minWidth: 0 }}>
            {selected ? (
              <ServerDetail key={selected.config.name} server={selected} />
            ) : (
              <Text c="dimmed" size="sm" role="status">
                No saved server named “{params.server}”.
              </Text>
            )}
          </Box>
        </Group>
      )}
      <HttpServicesPanel />
      <Suspense fallback={null}>
        {adding && <ServerFormModal opened onClose={() => setAdding(false)} onSaved={(name) => navigate('servers', { server: name })} />}
        {importing && <ImportServersModal opened onClose={() => setImporting(false)} />}
      </Suspense>
    </Stack>
  );
}

function ServerListItem({ server, active, onClick }: { server: ServerSnapshot; active: boolean; onClick: () => void }) {
  const Icon = server.config.transport === 'stdio' ? IconTerminal2 : IconWorld;
  return (
    <UnstyledButton
      role="listitem"
      aria-current={active ? 'true' : undefined}
      aria-label={server.config.name}
      onClick={onClick}
      p="xs"
      style={{ borderRadius: 8, background: active ? 'var(--mantine-color-default-hover)' : undefined }}
    >
      <Group gap="sm" wrap="nowrap">
        {(server.serverInfo as { icons?: McpIcon[] } | undefined)?.icons?.length ? (
          <McpIconImage icons={(server.serverInfo as { icons?: McpIcon[] }).icons} size={28} label={`${server.config.name} icon`} />
        ) : (
          <ThemeIcon variant="light" size="md" color={server.state.status === 'ready' ? 'teal' : server.state.status === 'error' ? 'red' : 'gray'}>
            <Icon size={16} />
          </ThemeIcon>
        )}
        <div style={{ minWidth: 0, flex: 1 }}>
          <Text size="sm" fw={600} truncate="end">
            {server.config.name}
          </Text>
          <Group gap={6}>
            <ConnectionBadge state={server.state} size="xs" />
            {server.state.status === 'ready' && !server.state.listing && (
              <Text size="xs" c="dimmed">
                {server.tools.length} tools
              </Text>
            )}
            {server.problems.length > 0 && (
              <Badge size="xs" color="yellow" variant="light" title={server.problems.join('\n')}>
                {server.problems.length} problem{server.problems.length === 1 ? '' : 's'}
              </Badge>
            )}
          </Group>
          {server.origin?.kind === 'workspace' && (
            <Text size="xs" c="dimmed" truncate="end" title={`Declared in the workspace file ${server.origin.file}`}>
              workspace · {server.origin.file}
            </Text>
          )}
        </div>
      </Group>
    </UnstyledButton>
  );
}

function NoServers({ onAdd, onImport }: { onAdd: () => void; onImport: () => void }) {
  return (
    <EmptyState
      icon={<IconServer2 size={30} />}
      title="No servers yet"
      description="Add an MCP server by command (stdio) or URL, or import the mcp.json you already use with Claude Desktop, Cursor or VS Code."
      descriptionWidth={460}
      actions={
        <Group mt="sm">
          <Button onClick={onAdd} leftSection={<IconPlus size={16} />}>
            Add server
          </Button>
          <Button variant="default" onClick={onImport} leftSection={<IconFileImport size={16} />}>
            Import mcp.json
          </Button>
        </Group>
      }
    />
  );
}
