import { ActionIcon, Anchor, Badge, Button, Code, Group, Paper, Stack, Table, Text, Tooltip, UnstyledButton } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconChartLine, IconChevronDown, IconChevronRight, IconHistory, IconKey, IconPlus, IconBan } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Fragment, useEffect, useState } from 'react';
import type { GatewayAgentOverview } from '../../../../shared/gateway';
import { EmptyState } from '../../components/EmptyState';
import { useTRPC } from '../../rpc/client';
import { useNavigate } from '../../shell/useSection';
import { useGatewayActions } from './useGateway';

const dateTime = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hour12: false });

function when(iso: string): string {
  return dateTime.format(new Date(iso));
}

/**
 * The models each agent may use, from the same answer as the Agent rights section (`tooldeck agents
 * list`), read again whenever the gateway's overview changes.
 */
function useAgentModels(agents: GatewayAgentOverview[]): Map<string, string[]> | undefined {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.agents.list.queryOptions());
  useEffect(() => void queryClient.invalidateQueries({ queryKey: trpc.agents.list.queryKey() }), [agents, queryClient, trpc]);
  return list.data && new Map(list.data.map((agent) => [agent.name, agent.models]));
}

/** The agents holding credentials: what each may call now (its rights one click away), its models, its sessions, its calls elsewhere, and Revoke. */
export function AgentsCard({ agents, onNewCredential }: { agents: GatewayAgentOverview[]; onNewCredential: () => void }) {
  const navigate = useNavigate();
  const models = useAgentModels(agents);
  const { revoke } = useGatewayActions();
  const [expanded, setExpanded] = useState<string | null>(null);

  const confirmRevoke = (name: string) =>
    modals.openConfirmModal({
      title: `Revoke ${name}?`,
      children: <Text size="sm">Its credential stops working at once and its open sessions end; a call it is making is canceled. Create a new credential to let it back in.</Text>,
      labels: { confirm: 'Revoke', cancel: 'Cancel' },
      confirmProps: { color: 'red' },
      onConfirm: () => revoke.mutate({ name }),
    });

  if (agents.length === 0) {
    return (
      <EmptyState
        icon={<IconKey size={30} />}
        title="No agent credentials yet"
        description="An agent proves who it is with a credential, NAME:SECRET. Create one per agent, named as the workspace names it: it then sees exactly the tools granted to that name (Clawdapus x-claw.tools, Orloj ToolPermissions with target_agents, Language Operator agents)."
        actions={
          <Button leftSection={<IconPlus size={16} />} onClick={onNewCredential}>
            New credential
          </Button>
        }
      />
    );
  }

  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Agents">
      <Group justify="space-between" mb="xs">
        <div>
          <Text fw={600} size="sm">
            Agents
          </Text>
          <Text size="xs" c="dimmed">
            Each sees exactly what the workspace grants it; held or denied tools are left out.
          </Text>
        </div>
        <Button size="xs" leftSection={<IconPlus size={14} />} onClick={onNewCredential}>
          New credential
        </Button>
      </Group>
      <Table aria-label="Agents" verticalSpacing={6} fz="sm" layout="fixed">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Agent</Table.Th>
            <Table.Th w={116}>Created</Table.Th>
            <Table.Th w={116}>Credential</Table.Th>
            <Table.Th w={116}>Granted</Table.Th>
            <Table.Th w={76} ta="right">
              Sessions
            </Table.Th>
            <Table.Th w={100} />
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {agents.map((agent) => {
            const open = expanded === agent.name;
            return (
              <Fragment key={agent.name}>
                <Table.Tr aria-label={agent.name}>
                  <Table.Td>
                    <Tooltip label={`What ${agent.name} may do, and why (Agent rights)`} withArrow>
                      <Anchor component="button" type="button" size="sm" ff="monospace" maw="100%" style={{ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', display: 'block' }} onClick={() => navigate('agentRights', { agent: agent.name })}>
                        {agent.name}
                      </Anchor>
                    </Tooltip>
                    <AgentModels models={models?.get(agent.name)} />
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs">{when(agent.createdAt)}</Text>
                  </Table.Td>
                  <Table.Td>
                    {agent.revokedAt ? (
                      <Stack gap={0}>
                        <Badge size="sm" color="gray" variant="light">
                          Revoked
                        </Badge>
                        <Text size="xs" c="dimmed">
                          {when(agent.revokedAt)}
                        </Text>
                      </Stack>
                    ) : (
                      <Badge size="sm" color="teal" variant="light">
                        Live
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <UnstyledButton onClick={() => setExpanded(open ? null : agent.name)} aria-expanded={open} aria-label={`${agent.granted.length} granted tools of ${agent.name}`}>
                      <Group gap={4} wrap="nowrap">
                        {open ? <IconChevronDown size={14} /> : <IconChevronRight size={14} />}
                        <Text size="sm" c={agent.granted.length ? undefined : 'orange'}>
                          {agent.granted.length === 1 ? '1 tool' : `${agent.granted.length} tools`}
                        </Text>
                      </Group>
                    </UnstyledButton>
                  </Table.Td>
                  <Table.Td ta="right">
                    <Text size="sm" c={agent.sessions ? undefined : 'dimmed'}>
                      {agent.sessions}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={2} justify="flex-end" wrap="nowrap">
                      <Tooltip label={`Calls of ${agent.name} in History`} withArrow>
                        <ActionIcon variant="subtle" color="gray" aria-label={`History of ${agent.name}`} onClick={() => navigate('history', { agent: agent.name })}>
                          <IconHistory size={16} />
                        </ActionIcon>
                      </Tooltip>
                      <Tooltip label={`Metrics of ${agent.name}`} withArrow>
                        <ActionIcon variant="subtle" color="gray" aria-label={`Metrics of ${agent.name}`} onClick={() => navigate('metrics', { agent: agent.name })}>
                          <IconChartLine size={16} />
                        </ActionIcon>
                      </Tooltip>
                      <Tooltip label={agent.revokedAt ? 'Already revoked' : `Revoke ${agent.name}`} withArrow>
                        <ActionIcon variant="subtle" color="red" aria-label={`Revoke ${agent.name}`} disabled={Boolean(agent.revokedAt)} onClick={() => confirmRevoke(agent.name)}>
                          <IconBan size={16} />
                        </ActionIcon>
                      </Tooltip>
                    </Group>
                  </Table.Td>
                </Table.Tr>
                {open && (
                  <Table.Tr>
                    <Table.Td colSpan={6} bg="var(--mantine-color-default-hover)">
                      {agent.granted.length ? (
                        <Group gap={6} aria-label={`Tools granted to ${agent.name}`}>
                          {agent.granted.map((tool) => (
                            <Tooltip key={tool.name} label={tool.entry} withArrow>
                              <Code fz="xs">{tool.name}</Code>
                            </Tooltip>
                          ))}
                          <Anchor component="button" type="button" size="xs" onClick={() => navigate('agentRights', { agent: agent.name })}>
                            Where each is granted, and the verdict for {agent.name}
                          </Anchor>
                        </Group>
                      ) : (
                        <Text size="xs" c="dimmed">
                          Grants nothing yet: name {agent.name} in a Clawdapus pod’s x-claw.tools, an Orloj ToolPermission’s target_agents, or a Language Operator LanguageAgent (Resources).
                        </Text>
                      )}
                    </Table.Td>
                  </Table.Tr>
                )}
              </Fragment>
            );
          })}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}

/** The `<provider>/<model>` patterns an agent may use through mediation; none is deny by default. */
function AgentModels({ models }: { models: string[] | undefined }) {
  if (!models) return null;
  if (models.length === 0) {
    return (
      <Tooltip label="Deny by default: grant models in Agent rights" withArrow>
        <Text size="xs" c="orange" w="fit-content">
          no model
        </Text>
      </Tooltip>
    );
  }
  return (
    <Text size="xs" c="dimmed" truncate="end" title={models.join(', ')}>
      models: {models.join(', ')}
    </Text>
  );
}
