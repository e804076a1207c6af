import { ActionIcon, Alert, Anchor, Badge, Box, Button, Center, Grid, Group, Loader, Paper, ScrollArea, Stack, Table, Text, Title, Tooltip, UnstyledButton } from '@mantine/core';
import { IconChartLine, IconFileCode, IconHistory, IconPlugConnected, IconShieldLock } from '@tabler/icons-react';
import type { AgentListItem, AgentView } from '../../../../shared/agents';
import { EmptyState } from '../../components/EmptyState';
import { formatDuration } from '../../components/format';
import { useLocation, useNavigate } from '../../shell/useSection';
import { CallStatusBadge } from '../history/CallStatusBadge';
import { AgentToolsTable } from './AgentToolsTable';
import { DoorBadges } from './DoorBadges';
import { ModelGrantsEditor } from './ModelGrantsEditor';
import { useAgentRights } from './useAgentRights';

const dateTime = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });

const GRANT_HOW = 'a Clawdapus claw-pod.yml (its x-claw.tools), an Orloj ToolPermission scoped to it (apply_mode: scoped, target_agents) or a Language Operator LanguageAgent (spec.tools)';

/**
 * "What may agent X do, and why?": every agent with its doors, and for one the tools it is granted
 * with the verdict policy gives each for it (in Orloj's words) and every place that grants it, the
 * models it may use, its open sessions and its recent calls. The same answer `tooldeck agents show`
 * prints and every door (gateway, mediation, bus) enforces.
 */
export function AgentRightsView() {
  const { params } = useLocation();
  const navigate = useNavigate();
  const { agents, listError, selected, agent, agentError } = useAgentRights(params.agent);

  return (
    <Stack gap="md">
      <div>
        <Title order={2}>Agent rights</Title>
        <Text c="dimmed" size="sm">
          What each agent may call and why, whatever door it comes through (the MCP gateway, model mediation, RockBot&apos;s bus): the verdict for it in Orloj&apos;s words, where each grant is written, its models, sessions and recent calls.
        </Text>
      </div>
      {listError && (
        <Alert color="red" variant="light" title="The agents could not be read">
          {listError}
        </Alert>
      )}
      {!agents ? (
        !listError && (
          <Center py="xl">
            <Loader aria-label="Loading agents" />
          </Center>
        )
      ) : agents.length === 0 ? (
        <NoAgents />
      ) : (
        <Group align="flex-start" gap="lg" wrap="nowrap">
          <Paper withBorder w={300} p={6} style={{ flexShrink: 0 }}>
            <ScrollArea.Autosize mah="calc(100vh - 200px)">
              <Stack gap={2} role="list" aria-label="Agents">
                {agents.map((item) => (
                  <AgentRow key={item.name} agent={item} active={item.name === selected} onClick={() => navigate('agentRights', { agent: item.name })} />
                ))}
              </Stack>
            </ScrollArea.Autosize>
          </Paper>
          <Box style={{ flex: 1, minWidth: 0 }}>
            {agentError ? (
              <Alert color="red" variant="light" title={`What ${selected} may do could not be read`}>
                {agentError}
              </Alert>
            ) : agent ? (
              <AgentDetail agent={agent} />
            ) : (
              <Center py="xl">
                <Loader aria-label={`Loading ${selected}`} />
              </Center>
            )}
          </Box>
        </Group>
      )}
    </Stack>
  );
}

function NoAgents() {
  const navigate = useNavigate();
  return (
    <EmptyState
      icon={<IconShieldLock size={30} />}
      title="No agents yet"
      description={`An agent is here once the workspace grants it tools — in ${GRANT_HOW} — or once it holds a credential. Grant tools in Resources, or create a credential in Gateway.`}
      descriptionWidth={560}
      actions={
        <Group gap="sm">
          <Button variant="light" leftSection={<IconFileCode size={16} />} onClick={() => navigate('resources', {})}>
            Open Resources
          </Button>
          <Button variant="light" leftSection={<IconPlugConnected size={16} />} onClick={() => navigate('gateway', {})}>
            Open Gateway
          </Button>
        </Group>
      }
    />
  );
}

function AgentRow({ agent, active, onClick }: { agent: AgentListItem; active: boolean; onClick: () => void }) {
  return (
    <UnstyledButton
      role="listitem"
      aria-label={agent.name}
      aria-current={active || undefined}
      onClick={onClick}
      px="sm"
      py={6}
      style={{ borderRadius: 6, background: active ? 'var(--mantine-color-default-hover)' : undefined }}
    >
      <Group justify="space-between" wrap="nowrap" gap="xs" align="flex-start">
        <Stack gap={4} style={{ minWidth: 0 }}>
          <Text size="sm" fw={600} ff="monospace" truncate>
            {agent.name}
          </Text>
          <DoorBadges doors={agent.doors} name={agent.name} />
          <Text size="xs" c={agent.models.length ? 'dimmed' : 'orange'} truncate title={agent.models.join(', ')}>
            {agent.models.length ? `models: ${agent.models.join(', ')}` : 'no model'}
          </Text>
        </Stack>
        <Badge variant="light" size="sm" color={agent.toolCount ? undefined : 'orange'} style={{ flexShrink: 0 }}>
          {agent.toolCount} {agent.toolCount === 1 ? 'tool' : 'tools'}
        </Badge>
      </Group>
    </UnstyledButton>
  );
}

function AgentDetail({ agent }: { agent: AgentView }) {
  const navigate = useNavigate();
  const noDoor = !agent.doors.credential && !agent.doors.cluster && !agent.doors.bus;
  return (
    <Stack gap="md" aria-label={`Agent ${agent.name}`}>
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Stack gap={4}>
          <Group gap="sm" align="center">
            <Title order={3} ff="monospace">
              {agent.name}
            </Title>
            <DoorBadges doors={agent.doors} name={agent.name} />
          </Group>
          <Text size="sm" c="dimmed">
            Deny by default: {agent.name} may call only the tools below, and each runs under the verdict shown for it.
            {noDoor && (
              <>
                {' '}It has no way in yet:{' '}
                <Anchor component="button" type="button" size="sm" onClick={() => navigate('gateway', {})}>
                  create a credential in Gateway
                </Anchor>
                .
              </>
            )}
          </Text>
        </Stack>
        <Group gap={2} wrap="nowrap">
          <Tooltip label={`Calls of ${agent.name} in History`} withArrow>
            <ActionIcon variant="subtle" color="gray" aria-label={`History of ${agent.name}`} onClick={() => navigate('history', { agent: agent.name })}>
              <IconHistory size={18} />
            </ActionIcon>
          </Tooltip>
          <Tooltip label={`Metrics of ${agent.name}`} withArrow>
            <ActionIcon variant="subtle" color="gray" aria-label={`Metrics of ${agent.name}`} onClick={() => navigate('metrics', { agent: agent.name })}>
              <IconChartLine size={18} />
            </ActionIcon>
          </Tooltip>
        </Group>
      </Group>

      <Paper withBorder radius="md" p="md" component="section" aria-label="Granted tools">
        <Text fw={600} size="sm">
          Granted tools
        </Text>
        <Text size="xs" c="dimmed" mb="xs">
          {agent.tools.length === 0
            ? `Nothing is granted to ${agent.name}: it may call no tool.`
            : `${agent.tools.length === 1 ? 'One tool' : `${agent.tools.length} tools`}, the verdict policy gives each for ${agent.name}, and every place that grants it.`}
        </Text>
        {agent.tools.length === 0 ? (
          <Text size="sm">
            Grant tools in {GRANT_HOW}:{' '}
            <Anchor component="button" type="button" size="sm" onClick={() => navigate('resources', {})}>
              open Resources
            </Anchor>
            .
          </Text>
        ) : (
          <AgentToolsTable agent={agent.name} tools={agent.tools} />
        )}
      </Paper>

      <Grid gap="md" align="stretch">
        <Grid.Col span={{ base: 12, xl: 7 }}>
          <ModelGrantsEditor key={`${agent.name}|${agent.models.join(',')}|${agent.dailyTokenBudget ?? ''}`} agent={agent} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, xl: 5 }}>
          <SessionsPanel agent={agent} />
        </Grid.Col>
      </Grid>

      <RecentCallsPanel agent={agent} />
    </Stack>
  );
}

const eraLabel: Record<AgentView['sessions'][number]['era'], string> = { '2025-11-25': 'session (2025-11-25)', '2026-07-28': 'stateless (2026-07-28)', stdio: 'stdio' };

function SessionsPanel({ agent }: { agent: AgentView }) {
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Open sessions" h="100%">
      <Text fw={600} size="sm" mb="xs">
        Open sessions
      </Text>
      {agent.sessions.length === 0 ? (
        <Text size="sm" c="dimmed">
          No open session. {agent.name} opens one when it connects to the gateway with its credential.
        </Text>
      ) : (
        <Stack gap="xs" role="list" aria-label={`Sessions of ${agent.name}`}>
          {agent.sessions.map((session) => (
            <div key={session.id} role="listitem" aria-label={session.clientName ?? session.id}>
              <Text size="sm" fw={500} truncate="end" title={session.id}>
                {session.clientName ?? session.id}
              </Text>
              <Text size="xs" c="dimmed">
                {eraLabel[session.era]} · since {dateTime.format(new Date(session.openedAt))} · {session.calls === 1 ? '1 call' : `${session.calls} calls`}
              </Text>
            </div>
          ))}
        </Stack>
      )}
    </Paper>
  );
}

function RecentCallsPanel({ agent }: { agent: AgentView }) {
  const navigate = useNavigate();
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Recent calls">
      <Group justify="space-between" mb="xs">
        <div>
          <Text fw={600} size="sm">
            Recent calls
          </Text>
          <Text size="xs" c="dimmed">
            {agent.recentCalls.length === 0
              ? `None recorded for ${agent.name} yet.`
              : agent.recentCalls.length === 1
                ? `The one call ${agent.name} made so far, through any door.`
                : `The latest ${agent.recentCalls.length} calls ${agent.name} made, through any door, newest first.`}
          </Text>
        </div>
        <Button size="xs" variant="subtle" leftSection={<IconHistory size={14} />} onClick={() => navigate('history', { agent: agent.name })}>
          All in History
        </Button>
      </Group>
      {agent.recentCalls.length > 0 && (
        <Table aria-label={`Recent calls of ${agent.name}`} verticalSpacing={5} fz="xs" layout="fixed" highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={140}>Started</Table.Th>
              <Table.Th w={90}>Door</Table.Th>
              <Table.Th>Tool</Table.Th>
              <Table.Th w={110}>Outcome</Table.Th>
              <Table.Th w={80} ta="right">
                Latency
              </Table.Th>
              <Table.Th w={70} />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {agent.recentCalls.map((call) => {
              const tool = `${call.sourceKind}:${call.sourceName}.${call.tool}`;
              return (
                <Table.Tr key={call.id} aria-label={`${tool} ${call.status}`}>
                  <Table.Td>
                    <Text size="xs" ff="monospace">
                      {dateTime.format(new Date(call.startedAt))}
                    </Text>
                  </Table.Td>
                  <Table.Td>{call.via ?? '—'}</Table.Td>
                  <Table.Td>
                    <Text size="xs" ff="monospace" truncate="end" title={tool}>
                      {tool}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <CallStatusBadge record={call} size="xs" />
                  </Table.Td>
                  <Table.Td ta="right">{formatDuration(call.latencyMs)}</Table.Td>
                  <Table.Td ta="right">
                    <Anchor component="button" type="button" size="xs" onClick={() => navigate('history', { call: call.id })} aria-label={`Open call ${call.id} in History`}>
                      History
                    </Anchor>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      )}
    </Paper>
  );
}
