import { ActionIcon, Alert, Badge, Box, Button, Center, Group, Loader, NavLink, Paper, ScrollArea, Select, Stack, Table, Text, ThemeIcon, Title, Tooltip, UnstyledButton } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconKey, IconPlus, IconRefresh, IconServerBolt, IconTrash } from '@tabler/icons-react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { useState } from 'react';
import type { GrpcSourceView, GrpcToolView } from '../../../../shared/grpc';
import { useTRPC } from '../../rpc/client';
import { useLocation, useNavigate } from '../../shell/useSection';
import { InvokePanel } from '../invoke/InvokePanel';
import type { ToolView } from '../invoke/types';
import { appErrorOf } from '../../rpc/appError';
import { GrpcMethodPanel } from './GrpcMethodPanel';
import { GrpcSourceModal, MetadataModal } from './GrpcSourceModal';

/** gRPC tool servers (tools.v1) and any service through reflection, beside MCP servers and A2A agents. */
export function GrpcView() {
  const trpc = useTRPC();
  const sub = useSubscription(trpc.grpc.watch.subscriptionOptions());
  const sources = sub.data as GrpcSourceView[] | undefined;
  const { params } = useLocation();
  const navigate = useNavigate();
  const [adding, setAdding] = useState(false);
  const selected = sources?.find((source) => source.name === params.source) ?? sources?.[0];

  return (
    <Stack gap="md" h="100%">
      <Group justify="space-between">
        <div>
          <Title order={2}>gRPC</Title>
          <Text c="dimmed" size="sm">
            tools.v1 tool servers and any service with server reflection, over plaintext, TLS or mTLS. Their tools and methods join the registry.
          </Text>
        </div>
        <Button size="sm" leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)}>
          Add gRPC source
        </Button>
      </Group>
      {sub.error && <Alert color="red">{sub.error.message}</Alert>}
      {!sources ? (
        <Center py="xl">
          <Loader aria-label="Loading gRPC sources" />
        </Center>
      ) : sources.length === 0 ? (
        <Paper withBorder p="xl" radius="lg">
          <Stack align="center" gap="sm" py="xl">
            <ThemeIcon size={56} radius="xl" variant="light">
              <IconServerBolt size={30} />
            </ThemeIcon>
            <Title order={4}>No gRPC sources yet</Title>
            <Text c="dimmed" size="sm" ta="center" maw={480}>
              Add a server that implements tools.v1.ToolServer (ListTools / ExecuteTool) by host:port, or any server with reflection to browse and call its methods. An Orloj Tool with type grpc in the workspace appears here too.
            </Text>
            <Button mt="sm" onClick={() => setAdding(true)} leftSection={<IconPlus size={16} />}>
              Add gRPC source
            </Button>
          </Stack>
        </Paper>
      ) : (
        <Group align="flex-start" gap="lg" wrap="nowrap">
          <Paper withBorder w={260} p={6} style={{ flexShrink: 0 }}>
            <ScrollArea.Autosize mah="calc(100vh - 200px)">
              <Stack gap={2} role="list" aria-label="gRPC sources">
                {sources.map((source) => (
                  <SourceListItem key={source.name} source={source} active={source.name === selected?.name} onClick={() => navigate('grpc', { source: source.name })} />
                ))}
              </Stack>
            </ScrollArea.Autosize>
          </Paper>
          <Box style={{ flex: 1, minWidth: 0 }}>{selected && <SourceDetail key={selected.name} source={selected} />}</Box>
        </Group>
      )}
      {adding && <GrpcSourceModal onClose={() => setAdding(false)} onSaved={(name) => navigate('grpc', { source: name })} />}
    </Stack>
  );
}

function stateColor(source: GrpcSourceView): string {
  return source.state === 'ready' ? 'teal' : source.state === 'error' ? 'red' : 'gray';
}

function SourceListItem({ source, active, onClick }: { source: GrpcSourceView; active: boolean; onClick: () => void }) {
  const count = source.protocol === 'reflection' ? `${source.services.length} services` : `${source.tools.filter((tool) => !tool.unusable).length} tools`;
  return (
    <UnstyledButton role="listitem" aria-current={active ? 'true' : undefined} aria-label={source.name} onClick={onClick} p="xs" style={{ borderRadius: 8, background: active ? 'var(--mantine-color-default-hover)' : undefined }}>
      <Group gap="sm" wrap="nowrap">
        <ThemeIcon variant="light" size="md" color={stateColor(source)}>
          <IconServerBolt size={16} />
        </ThemeIcon>
        <div style={{ minWidth: 0, flex: 1 }}>
          <Text size="sm" fw={600} truncate="end">
            {source.name}
          </Text>
          <Group gap={6}>
            <Badge size="xs" variant="light" color={stateColor(source)}>
              {source.state}
            </Badge>
            {source.state === 'ready' && (
              <Text size="xs" c="dimmed">
                {count}
              </Text>
            )}
          </Group>
        </div>
      </Group>
    </UnstyledButton>
  );
}

function SourceDetail({ source }: { source: GrpcSourceView }) {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const { params } = useLocation();
  const [editingMetadata, setEditingMetadata] = useState(false);
  const refresh = useMutation(trpc.grpc.refresh.mutationOptions());
  const remove = useMutation(trpc.grpc.remove.mutationOptions({ onSuccess: () => navigate('grpc') }));
  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-start">
        <div>
          <Group gap="xs">
            <Title order={3}>{source.name}</Title>
            <Badge variant="outline">{source.protocol === 'tools.v1' ? 'tools.v1 ToolServer' : 'reflection'}</Badge>
            <Badge variant="light" color={source.tls.mode === 'plaintext' ? 'gray' : 'teal'}>
              {source.tls.mode === 'plaintext' ? 'plaintext' : source.tls.mode === 'tls' ? 'TLS' : 'mTLS'}
            </Badge>
            {source.managedBy && (
              <Badge variant="light" color="violet">
                workspace
              </Badge>
            )}
          </Group>
          <Text size="sm" ff="monospace" c="dimmed">
            {source.address}
            {source.tls.serverName ? ` (as ${source.tls.serverName})` : ''}
            {source.tls.customCa ? ' · private CA' : ''}
          </Text>
          <Text size="xs" c="dimmed">
            Metadata: {source.metadataKeys.length ? source.metadataKeys.join(', ') : 'none'} (values in the secret store)
          </Text>
        </div>
        <Group gap="xs">
          <Button size="xs" variant="default" leftSection={<IconKey size={14} />} onClick={() => setEditingMetadata(true)}>
            Metadata
          </Button>
          <Button size="xs" variant="default" leftSection={<IconRefresh size={14} />} loading={refresh.isPending} onClick={() => refresh.mutate({ name: source.name })}>
            Refresh
          </Button>
          {!source.managedBy && (
            <Tooltip label="Remove this source and its secrets">
              <ActionIcon variant="subtle" color="red" aria-label={`Remove ${source.name}`} onClick={() => remove.mutate({ name: source.name })}>
                <IconTrash size={16} />
              </ActionIcon>
            </Tooltip>
          )}
        </Group>
      </Group>
      {source.error && (
        <Alert color="red" variant="light" title={`Cannot list${source.error.step ? ` — ${source.error.step}` : ''}`} role="alert">
          {source.error.message}
        </Alert>
      )}
      {source.protocol === 'tools.v1' ? <ToolsTable source={source} selected={params.tool} /> : <Services source={source} selected={params.method} />}
      {editingMetadata && <MetadataModal source={source} onClose={() => setEditingMetadata(false)} />}
    </Stack>
  );
}

function ToolsTable({ source, selected }: { source: GrpcSourceView; selected?: string }) {
  const navigate = useNavigate();
  const tool = source.tools.find((item) => item.name === selected && item.registryName);
  return (
    <Stack gap="md">
      <Paper withBorder>
        <Table highlightOnHover aria-label="Tools">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Tool</Table.Th>
              <Table.Th>Version</Table.Th>
              <Table.Th>Compatible versions</Table.Th>
              <Table.Th>Calls carry</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {source.tools.map((item) => (
              <Table.Tr
                key={item.name}
                aria-selected={item.name === selected}
                style={{ cursor: item.registryName ? 'pointer' : undefined, background: item.name === selected ? 'var(--mantine-color-default-hover)' : undefined }}
                onClick={() => item.registryName && navigate('grpc', { source: source.name, tool: item.name })}
              >
                <Table.Td>
                  <Text size="sm" fw={600} ff="monospace">
                    {item.name}
                  </Text>
                  {item.unusable ? (
                    <Text size="xs" c="red">
                      Unusable: {item.unusable}
                    </Text>
                  ) : (
                    <Text size="xs" c="dimmed" lineClamp={1}>
                      {item.description}
                    </Text>
                  )}
                </Table.Td>
                <Table.Td ff="monospace">{item.version || '—'}</Table.Td>
                <Table.Td ff="monospace">{item.compatibleVersions.join(', ') || '—'}</Table.Td>
                <Table.Td onClick={(event) => event.stopPropagation()}>{!item.unusable && <PinSelect source={source.name} tool={item} />}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Paper>
      {tool ? (
        <ToolInvoker name={tool.registryName!} />
      ) : (
        <Text size="sm" c="dimmed">
          Pick a tool to call it.
        </Text>
      )}
    </Stack>
  );
}

/** The version calls carry: the tool's own, one it lists as compatible, or any other (to see it refused). */
function PinSelect({ source, tool }: { source: string; tool: GrpcToolView }) {
  const trpc = useTRPC();
  const pin = useMutation(trpc.grpc.pin.mutationOptions({ onError: (error) => notifications.show({ color: 'red', title: 'Not pinned', message: appErrorOf(error).message }) }));
  const options = [...new Set([tool.version, ...tool.compatibleVersions, ...(tool.pinnedVersion ? [tool.pinnedVersion] : [])])].map((version) => ({
    value: version,
    label: version === tool.version ? `${version} (current)` : version,
  }));
  return (
    <Select
      size="xs"
      w={150}
      data={options}
      value={tool.callVersion}
      searchable
      aria-label={`Version calls of ${tool.name} carry`}
      onChange={(value) => pin.mutate({ name: source, tool: tool.name, ...(value && value !== tool.version ? { version: value } : {}) })}
    />
  );
}

function ToolInvoker({ name }: { name: string }) {
  const trpc = useTRPC();
  const entry = useQuery(trpc.tools.get.queryOptions({ name }));
  if (!entry.data) return entry.isPending ? <Loader size="sm" /> : <Text size="sm">Not in the registry.</Text>;
  return (
    <Paper withBorder p="md" aria-label={`Call ${name}`}>
      <Text size="sm" fw={600} ff="monospace" mb="sm">
        {name}
      </Text>
      <InvokePanel tool={entry.data as ToolView} />
    </Paper>
  );
}

function Services({ source, selected }: { source: GrpcSourceView; selected?: string }) {
  const navigate = useNavigate();
  const method = source.services.flatMap((service) => service.methods).find((item) => item.name === selected);
  return (
    <Group align="flex-start" gap="md" wrap="nowrap">
      <Paper withBorder w={300} p={4} style={{ flexShrink: 0 }} aria-label="Services">
        {source.services.map((service) => (
          <NavLink key={service.name} label={<Text size="sm" ff="monospace">{service.name}</Text>} defaultOpened childrenOffset={12}>
            {service.methods.map((item) => (
              <NavLink
                key={item.name}
                active={item.name === selected}
                label={item.method}
                description={item.unusable ? 'not callable from a form' : item.serverStreaming ? 'server streaming' : undefined}
                onClick={() => navigate('grpc', { source: source.name, method: item.name })}
              />
            ))}
          </NavLink>
        ))}
      </Paper>
      <Box style={{ flex: 1, minWidth: 0 }}>
        {method ? (
          <GrpcMethodPanel method={method} />
        ) : (
          <Text size="sm" c="dimmed">
            Pick a method to call it.
          </Text>
        )}
      </Box>
    </Group>
  );
}
