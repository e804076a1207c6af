import { Alert, Box, Button, Center, Group, Loader, Paper, ScrollArea, Stack, Text, ThemeIcon, Title, UnstyledButton } from '@mantine/core';
import { IconPlus, IconRobot } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { A2aAgentConfig } from '../../../../shared/a2a';
import { useTRPC } from '../../rpc/client';
import { useLocation, useNavigate } from '../../shell/useSection';
import { appErrorOf } from '../../rpc/appError';
import { AGENT_TABS, AgentDetail, type AgentTab } from './AgentDetail';
import { AgentFormModal } from './AgentFormModal';
import { ProtocolBadge, ReachabilityBadge } from './AgentStatusBadges';
import { useAgentCard } from './useAgentCard';
import { EmptyState } from '../../components/EmptyState';

/** The Agents section: saved A2A agents, their cards and validation, conversations, tasks and traffic. */
export function AgentsView() {
  const trpc = useTRPC();
  const { params } = useLocation();
  const navigate = useNavigate();
  const [adding, setAdding] = useState(false);
  const list = useQuery(trpc.a2a.list.queryOptions());
  const agents = list.data as A2aAgentConfig[] | undefined;
  const selected = agents?.find((a) => a.name === params.agent) ?? agents?.[0];
  const tab: AgentTab = AGENT_TABS.includes(params.tab as AgentTab) ? (params.tab as AgentTab) : 'card';
  const select = (agent: string, nextTab?: AgentTab) => navigate('agents', { agent, ...(nextTab && nextTab !== 'card' ? { tab: nextTab } : {}) });

  return (
    <Stack gap="md" h="100%">
      <Group justify="space-between">
        <div>
          <Title order={2}>A2A agents</Title>
          <Text c="dimmed" size="sm">
            A2A agents (1.0 and 0.3): inspect and validate their cards, talk to them, follow their tasks. Their skills join the registry.
          </Text>
        </div>
        <Button size="sm" leftSection={<IconPlus size={16} />} onClick={() => setAdding(true)}>
          Add agent
        </Button>
      </Group>
      {list.error && <Alert color="red">{appErrorOf(list.error).message}</Alert>}
      {!agents ? (
        !list.error && (
          <Center py="xl">
            <Loader aria-label="Loading agents" />
          </Center>
        )
      ) : agents.length === 0 ? (
        <NoAgents onAdd={() => setAdding(true)} />
      ) : (
        <Group align="flex-start" gap="lg" wrap="nowrap">
          <Paper withBorder w={250} p={6} style={{ flexShrink: 0 }}>
            <ScrollArea.Autosize mah="calc(100vh - 200px)">
              <Stack gap={2} role="list" aria-label="Saved agents">
                {[...agents]
                  .sort((a, b) => a.name.localeCompare(b.name))
                  .map((a) => (
                    <AgentListItem key={a.name} agent={a} active={a.name === selected?.name} onClick={() => select(a.name, tab)} />
                  ))}
              </Stack>
            </ScrollArea.Autosize>
          </Paper>
          <Box style={{ flex: 1, minWidth: 0 }}>
            {selected && <AgentDetail key={selected.name} agent={selected} tab={tab} onTabChange={(t) => select(selected.name, t)} />}
          </Box>
        </Group>
      )}
      {adding && <AgentFormModal onClose={() => setAdding(false)} onSaved={(name) => select(name)} />}
    </Stack>
  );
}

function AgentListItem({ agent, active, onClick }: { agent: A2aAgentConfig; active: boolean; onClick: () => void }) {
  const { report, reachability } = useAgentCard(agent.name);
  return (
    <UnstyledButton
      role="listitem"
      aria-current={active ? 'true' : undefined}
      aria-label={agent.name}
      onClick={onClick}
      p="xs"
      style={{ borderRadius: 8, background: active ? 'var(--mantine-color-default-hover)' : undefined }}
    >
      <Group gap="sm" wrap="nowrap">
        <ThemeIcon variant="light" size="md" color={reachability.checking ? 'gray' : reachability.error ? 'red' : 'grape'}>
          <IconRobot size={16} />
        </ThemeIcon>
        <div style={{ minWidth: 0, flex: 1 }}>
          <Group gap={6} wrap="nowrap">
            <Text size="sm" fw={600} truncate="end">
              {agent.name}
            </Text>
            <ProtocolBadge version={report?.protocolVersion} size="xs" />
          </Group>
          <Group gap={6} wrap="nowrap">
            <ReachabilityBadge reachability={reachability} size="xs" />
            {report && (
              <Text size="xs" c="dimmed" truncate="end">
                {report.card.skills.length} skill{report.card.skills.length === 1 ? '' : 's'}
              </Text>
            )}
          </Group>
        </div>
      </Group>
    </UnstyledButton>
  );
}

function NoAgents({ onAdd }: { onAdd: () => void }) {
  return (
    <EmptyState
      icon={<IconRobot size={30} />}
      color="grape"
      title="No agents yet"
      description="Add an A2A agent by its base URL or card URL. Tooldeck reads its agent card, checks it against the spec, and lets you send messages and follow its tasks live."
      actions={
        <Button mt="sm" onClick={onAdd} leftSection={<IconPlus size={16} />} variant="light">
          Add your first agent
        </Button>
      }
    />
  );
}
