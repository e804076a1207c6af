import {
  Alert,
  Anchor,
  Badge,
  Box,
  Button,
  Center,
  Code,
  Group,
  Loader,
  Paper,
  ScrollArea,
  SegmentedControl,
  Stack,
  Table,
  Text,
  ThemeIcon,
  Title,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle, IconDeviceFloppy, IconDownload, IconFileCode, IconRobot } from '@tabler/icons-react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { useEffect, useState } from 'react';
import type { AgentSummary, CompileFormat } from '../../../../shared/agentTools';
import { CopyButton } from '../../components/CopyButton';
import { useTRPC } from '../../rpc/client';
import { downloadText } from '../../shell/download';
import { useNavigate } from '../../shell/useSection';
import { appErrorOf } from '../../rpc/appError';

const DECLARES: Record<AgentSummary['declares'], { label: string; hint: string }> = {
  defaults: {
    label: 'pod defaults',
    hint: 'Declares no tools of its own: it gets the pod’s tools-defaults.',
  },
  own: {
    label: 'own list',
    hint: 'Its own tools list replaces the pod’s defaults.',
  },
  ownAndDefaults: {
    label: 'own list + defaults',
    hint: 'Its own tools list, with the pod’s defaults spliced in by "...".',
  },
};

/**
 * Agents of the workspace's pod files (Clawdapus): what each may call, resolved against the
 * registry, and a preview of its compiled tools.json and config.yaml to copy, download or write.
 */
export function AgentAccessView({ selected, onSelect, toolsVersion }: { selected?: string; onSelect: (ref: string) => void; toolsVersion: unknown }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.agentTools.list.queryOptions());
  // Pod files edited (here or on disk) and tools discovered both change what an agent resolves to.
  useSubscription(
    trpc.resources.watch.subscriptionOptions(undefined, {
      onData: () =>
        void queryClient.invalidateQueries({
          queryKey: trpc.agentTools.pathKey(),
        }),
    }),
  );
  useEffect(
    () =>
      void queryClient.invalidateQueries({
        queryKey: trpc.agentTools.pathKey(),
      }),
    [toolsVersion, queryClient, trpc],
  );

  const agents = list.data;
  const current = agents?.find((agent) => agent.ref === selected) ?? agents?.[0];

  if (list.error) return <Alert color="red">{appErrorOf(list.error).message}</Alert>;
  if (!agents) {
    return (
      <Center py="xl">
        <Loader aria-label="Loading agents" />
      </Center>
    );
  }
  if (agents.length === 0) return <NoAgents />;
  return (
    <Group align="flex-start" gap="lg" wrap="nowrap">
      <Paper withBorder w={300} p={6} style={{ flexShrink: 0 }}>
        <ScrollArea.Autosize mah="calc(100vh - 240px)">
          <Stack gap={2} role="list" aria-label="Agents">
            {agents.map((agent) => (
              <AgentRow key={agent.ref} agent={agent} active={agent.ref === current?.ref} onClick={() => onSelect(agent.ref)} />
            ))}
          </Stack>
        </ScrollArea.Autosize>
      </Paper>
      <Box style={{ flex: 1, minWidth: 0 }}>{current && <AgentAccessDetail key={current.ref} agent={current} />}</Box>
    </Group>
  );
}

function AgentRow({ agent, active, onClick }: { agent: AgentSummary; active: boolean; onClick: () => void }) {
  return (
    <UnstyledButton
      role="listitem"
      aria-current={active || undefined}
      onClick={onClick}
      px="sm"
      py={6}
      style={{
        borderRadius: 6,
        background: active ? 'var(--mantine-color-default-hover)' : undefined,
      }}
    >
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <div style={{ minWidth: 0 }}>
          <Text size="sm" fw={600} truncate>
            {agent.name}
          </Text>
          <Text size="xs" c="dimmed" truncate>
            pod {agent.pod}
          </Text>
        </div>
        <Group gap={4} wrap="nowrap">
          {agent.problems.length > 0 && (
            <Tooltip label={`${agent.problems.length} problem(s)`}>
              <IconAlertTriangle size={16} color="var(--mantine-color-yellow-6)" aria-label="Has problems" />
            </Tooltip>
          )}
          <Badge variant="light" size="sm">
            {agent.toolCount} {agent.toolCount === 1 ? 'tool' : 'tools'}
          </Badge>
        </Group>
      </Group>
    </UnstyledButton>
  );
}

function AgentAccessDetail({ agent }: { agent: AgentSummary }) {
  const navigate = useNavigate();
  const declares = DECLARES[agent.declares];
  return (
    <Stack gap="md">
      <div>
        <Group gap="sm" align="center">
          <Title order={3} ff="monospace">
            {agent.name}
          </Title>
          <Badge variant="outline">pod {agent.pod}</Badge>
          {agent.cllama && (
            <Tooltip label="The proxy that mediates this agent's tool calls">
              <Badge variant="light" color="grape">
                cllama: {agent.cllama}
              </Badge>
            </Tooltip>
          )}
          <Tooltip label={declares.hint}>
            <Badge variant="default">{declares.label}</Badge>
          </Tooltip>
        </Group>
        <Text size="sm" c="dimmed" mt={4}>
          Declared in{' '}
          <Anchor size="sm" ff="monospace" onClick={() => navigate('resources', { file: agent.file })}>
            {agent.file}
          </Anchor>
          . Deny by default: the agent may call only what is granted here.
        </Text>
      </div>
      {agent.problems.length > 0 && (
        <Alert color="yellow" icon={<IconAlertTriangle size={18} />} title="Cannot compile everything as declared">
          <Stack gap={2}>
            {agent.problems.map((problem) => (
              <Text key={problem} size="sm">
                {problem}
              </Text>
            ))}
          </Stack>
        </Alert>
      )}
      <Paper withBorder p="sm">
        <Text fw={600} size="sm" mb={6}>
          Grants
        </Text>
        {agent.grants.length === 0 ? (
          <Text size="sm" c="dimmed">
            No grants: this agent may call no tools.
          </Text>
        ) : (
          <Table verticalSpacing={6} aria-label="Grants">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Source</Table.Th>
                <Table.Th>Allow</Table.Th>
                <Table.Th ta="right">Granted</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {agent.grants.map((grant) => (
                <Table.Tr key={grant.source}>
                  <Table.Td ff="monospace" fz="sm">
                    {grant.source}
                  </Table.Td>
                  <Table.Td>
                    {grant.allow === 'all' ? (
                      <Badge color="orange" variant="light" size="sm">
                        all
                      </Badge>
                    ) : (
                      <Group gap={4}>
                        {grant.allow.map((name) => (
                          <Code key={name}>{name}</Code>
                        ))}
                      </Group>
                    )}
                  </Table.Td>
                  <Table.Td ta="right" fz="sm">
                    {grant.granted} of {grant.available}
                    {grant.held.length > 0 && (
                      <Tooltip label={grant.held.map((item) => `${item.tool}: ${item.reason}`).join('\n')} multiline maw={420} style={{ whiteSpace: 'pre-line' }}>
                        <Badge ml={6} size="xs" color="orange" variant="filled">
                          {grant.held.length} held
                        </Badge>
                      </Tooltip>
                    )}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
        <Group gap="xs" mt="sm">
          <Text size="xs" c="dimmed">
            Budget:
          </Text>
          <Badge variant="default" size="sm">
            {agent.policy.max_rounds} rounds
          </Badge>
          <Badge variant="default" size="sm">
            {agent.policy.timeout_per_tool_ms / 1000} s per tool
          </Badge>
          <Badge variant="default" size="sm">
            {agent.policy.total_timeout_ms / 1000} s in all
          </Badge>
          <Badge variant="default" size="sm">
            {agent.policy.max_tool_result_bytes.toLocaleString('en')} result bytes
          </Badge>
        </Group>
      </Paper>
      <CompiledPreview agent={agent} />
    </Stack>
  );
}

function CompiledPreview({ agent }: { agent: AgentSummary }) {
  const trpc = useTRPC();
  const [format, setFormat] = useState<CompileFormat>('tools.json');
  const compiled = useQuery({
    ...trpc.agentTools.compile.queryOptions({ agent: agent.ref, format }),
    retry: false,
  });
  const write = useMutation(
    trpc.agentTools.write.mutationOptions({
      onSuccess: (result) => {
        for (const file of result.written)
          notifications.show({
            color: 'teal',
            title: `Wrote ${file.format}`,
            message: file.path,
          });
        for (const file of result.failed)
          notifications.show({
            color: 'red',
            title: `${file.format} not written`,
            message: file.message,
          });
      },
      onError: (error) =>
        notifications.show({
          color: 'red',
          title: 'Nothing written',
          message: appErrorOf(error).message,
        }),
    }),
  );
  const text = compiled.data?.text;
  return (
    <Paper withBorder p="sm">
      <Group justify="space-between" mb={4}>
        <SegmentedControl
          size="xs"
          value={format}
          onChange={(value) => setFormat(value as CompileFormat)}
          data={[
            { value: 'tools.json', label: 'tools.json' },
            { value: 'config.yaml', label: 'config.yaml' },
          ]}
          aria-label="Compiled file"
        />
        <Group gap={6}>
          {text && <CopyButton value={text} label={`Copy ${format}`} />}
          <Button
            size="xs"
            variant="default"
            leftSection={<IconDownload size={14} />}
            disabled={!text}
            onClick={() => text && downloadText(`${agent.name}-${format}`, text, format === 'tools.json' ? 'application/json' : 'application/yaml')}
          >
            Download
          </Button>
          <Tooltip label="Writes tools.json and config.yaml to .claw-runtime/context/<agent>/ in the workspace folder">
            <Button size="xs" leftSection={<IconDeviceFloppy size={14} />} loading={write.isPending} onClick={() => write.mutate({ agent: agent.ref })}>
              Write files
            </Button>
          </Tooltip>
        </Group>
      </Group>
      <Text size="xs" c="dimmed" mb="xs">
        {format === 'tools.json'
          ? 'Read by the cllama proxy: tool schemas, execution metadata and the budget.'
          : "The agent's /etc/agent/config.yaml: the endpoints of its MCP servers."}
        {format === 'config.yaml' &&
          agent.withoutEndpoint.length > 0 &&
          ` ${agent.withoutEndpoint.join(', ')} run${agent.withoutEndpoint.length === 1 ? 's' : ''} over stdio on this machine and ha${agent.withoutEndpoint.length === 1 ? 's' : 've'} no endpoint to list.`}
      </Text>
      {compiled.isPending ? (
        <Center py="md">
          <Loader size="sm" aria-label="Compiling" />
        </Center>
      ) : compiled.error ? (
        <Alert color="red" title={`${format} cannot be compiled`}>
          {appErrorOf(compiled.error).message}
        </Alert>
      ) : (
        <ScrollArea.Autosize mah={420}>
          <Code block aria-label={`Compiled ${format}`} fz="xs">
            {text}
          </Code>
        </ScrollArea.Autosize>
      )}
      {compiled.data && compiled.data.withheld.length > 0 && (
        <Alert mt={6} color="orange" variant="light" title="Left out until approved in tooldeck.lock">
          <Stack gap={2}>
            {compiled.data.withheld.map((item) => (
              <Text key={item.name} size="xs">
                <Code>{item.name}</Code> {item.reason}
              </Text>
            ))}
          </Stack>
        </Alert>
      )}
      {compiled.data && (
        <Text size="xs" c="dimmed" mt={6}>
          {format === 'tools.json' ? `${compiled.data.toolCount} tool(s)` : `${compiled.data.toolCount} MCP server(s)`} · Write files puts it in {compiled.data.defaultPath}
        </Text>
      )}
    </Paper>
  );
}

function NoAgents() {
  const navigate = useNavigate();
  return (
    <Paper withBorder p="xl" radius="lg">
      <Stack align="center" gap="sm" py="xl">
        <ThemeIcon size={56} radius="xl" variant="light">
          <IconRobot size={30} />
        </ThemeIcon>
        <Text fw={600}>No agents in the workspace</Text>
        <Text c="dimmed" size="sm" ta="center" maw={460}>
          Declare agents and the tools each may call in a <Code>claw-pod.yml</Code> (or <Code>&lt;pod&gt;.claw-pod.yml</Code>) file of the workspace: services with an{' '}
          <Code>x-claw</Code> block, <Code>cllama: passthrough</Code> and a <Code>tools</Code> list.
        </Text>
        <Button variant="light" leftSection={<IconFileCode size={16} />} onClick={() => navigate('resources', {})}>
          Open Resources
        </Button>
      </Stack>
    </Paper>
  );
}
