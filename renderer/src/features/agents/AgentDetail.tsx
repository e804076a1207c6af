import { Alert, Badge, Button, Center, Group, Loader, Menu, Stack, Tabs, Text, Title } from '@mantine/core';
import { modals } from '@mantine/modals';
import { notifications } from '@mantine/notifications';
import {
  IconCards,
  IconChecklist,
  IconDots,
  IconListDetails,
  IconMessages,
  IconPencil,
  IconRefresh,
  IconStethoscope,
  IconTimeline,
  IconTrash,
} from '@tabler/icons-react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { A2aAgentConfig } from '../../../../shared/a2a';
import { CopyButton } from '../../components/CopyButton';
import { useTRPC } from '../../rpc/client';
import { useNavigate } from '../../shell/useSection';
import { AgentFormModal } from './AgentFormModal';
import { ProtocolBadge, ReachabilityBadge } from './AgentStatusBadges';
import { AgentTranscriptPanel } from './AgentTranscriptPanel';
import { CardPanel } from './CardPanel';
import { CHECK_COLOR, summarizeChecks } from './checkRows';
import { waitingTask } from './conversationModel';
import { ConversationPanel } from './ConversationPanel';
import { TasksPanel } from './TasksPanel';
import { useAgentCache } from './useAgentCache';
import { useAgentCard } from './useAgentCard';
import { useConversation } from './useConversation';
import { ValidationPanel } from './ValidationPanel';

export const AGENT_TABS = ['card', 'validation', 'conversation', 'tasks', 'transcript'] as const;
export type AgentTab = (typeof AGENT_TABS)[number];

const AUTH_LABEL: Record<A2aAgentConfig['auth']['kind'], string> = {
  none: 'no auth',
  bearer: 'bearer token',
  apiKey: 'API key',
  oauth2ClientCredentials: 'OAuth2 client credentials',
};

/**
 * One saved agent. The conversation lives here rather than in its tab, so a running task keeps
 * streaming while another tab is open.
 */
export function AgentDetail({ agent, tab, onTabChange }: { agent: A2aAgentConfig; tab: AgentTab; onTabChange: (tab: AgentTab) => void }) {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const name = agent.name;
  const { report, reachability, query: cardQuery } = useAgentCard(name);
  const connection = useQuery({ ...trpc.a2a.connectionInfo.queryOptions({ agent: name }), enabled: !!report, retry: false, staleTime: 60_000 });
  const conversation = useConversation(name);
  const [draft, setDraft] = useState('');
  const [streamChoice, setStreamChoice] = useState<boolean>();
  const [editing, setEditing] = useState(false);
  const remove = useMutation(trpc.a2a.remove.mutationOptions());
  const cache = useAgentCache();
  const streamingSupported = report?.card.capabilities.streaming;
  // Until the card is read, streaming is assumed: most agents stream, and the card corrects it.
  const stream = streamingSupported === false ? false : (streamChoice ?? true);
  const summary = report ? summarizeChecks(report.rows) : undefined;

  const refresh = () => void cache.refresh(name);

  const confirmRemove = () =>
    modals.openConfirmModal({
      title: `Remove ${name}?`,
      children: <Text size="sm">The agent, its stored secrets, its conversations and its skills in the tool registry are removed.</Text>,
      labels: { confirm: 'Remove', cancel: 'Keep' },
      confirmProps: { color: 'red' },
      onConfirm: () =>
        remove.mutate(
          { name },
          {
            onSuccess: async () => {
              await cache.forget(name);
              navigate('agents');
              notifications.show({ title: `Removed ${name}`, message: 'Agent, secrets and skills are gone.' });
            },
            onError: (error) => notifications.show({ color: 'red', title: `Could not remove ${name}`, message: error.message }),
          },
        ),
    });

  const tryExample = (text: string) => {
    setDraft(text);
    onTabChange('conversation');
  };

  const cardProblem = cardQuery.error && (
    <Alert color="red" icon={<IconStethoscope />} title="The agent card could not be read" role="alert">
      <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
        {reachability.error}
      </Text>
      <Button size="xs" variant="light" color="red" mt="xs" leftSection={<IconRefresh size={14} />} onClick={refresh} loading={cardQuery.isFetching}>
        Try again
      </Button>
    </Alert>
  );
  const cardLoading = cardQuery.isPending && (
    <Center py="xl">
      <Loader aria-label="Loading agent card" />
    </Center>
  );

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <div style={{ minWidth: 0 }}>
          <Group gap="sm">
            <Title order={3}>{name}</Title>
            <ProtocolBadge version={report?.protocolVersion} size="md" />
            <ReachabilityBadge reachability={reachability} size="md" />
          </Group>
          <Group gap={4} wrap="nowrap">
            <Text c="dimmed" size="sm" ff="monospace" truncate="end" maw={560} title={agent.url}>
              {agent.url}
            </Text>
            <CopyButton value={agent.url} label="Copy agent URL" size="xs" />
            <Text c="dimmed" size="sm">
              · {AUTH_LABEL[agent.auth.kind]}
              {agent.headers.length ? ` · ${agent.headers.length} header${agent.headers.length === 1 ? '' : 's'}` : ''}
              {connection.data ? ` · ${connection.data.binding}` : ''}
            </Text>
          </Group>
        </div>
        <Group gap="xs" wrap="nowrap">
          <Button size="xs" variant="default" leftSection={<IconRefresh size={14} />} onClick={refresh} loading={cardQuery.isFetching}>
            Refresh card
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

      <Tabs value={tab} onChange={(value) => value && onTabChange(value as AgentTab)} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="card" leftSection={<IconCards size={15} />}>
            Card
          </Tabs.Tab>
          <Tabs.Tab
            value="validation"
            leftSection={<IconChecklist size={15} />}
            rightSection={
              summary && (
                <Badge size="xs" variant={summary.worst === 'pass' ? 'light' : 'filled'} color={CHECK_COLOR[summary.worst]}>
                  {summary.label}
                </Badge>
              )
            }
          >
            Validation
          </Tabs.Tab>
          <Tabs.Tab
            value="conversation"
            leftSection={<IconMessages size={15} />}
            rightSection={
              conversation.turn.phase === 'running' ? (
                <Loader size={10} aria-label="Task running" />
              ) : waitingTask(conversation.conversation) ? (
                <Badge size="xs" color="yellow" variant="filled" aria-label="Waiting for your answer">
                  input
                </Badge>
              ) : undefined
            }
          >
            Conversation
          </Tabs.Tab>
          <Tabs.Tab value="tasks" leftSection={<IconListDetails size={15} />}>
            Tasks
          </Tabs.Tab>
          <Tabs.Tab value="transcript" leftSection={<IconTimeline size={15} />}>
            Transcript
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="card" pt="md">
          {cardLoading ||
            cardProblem ||
            (report && (
              <CardPanel
                report={report}
                endpoint={connection.data?.endpoint}
                onTryExample={tryExample}
                onOpenTool={(skill) => navigate('tools', { tool: `a2a:${name}.${skill}` })}
              />
            ))}
        </Tabs.Panel>
        <Tabs.Panel value="validation" pt="md">
          {cardLoading || cardProblem || (report && <ValidationPanel report={report} />)}
        </Tabs.Panel>
        <Tabs.Panel value="conversation" pt="md">
          <ConversationPanel
            agent={name}
            controller={conversation}
            draft={draft}
            onDraftChange={setDraft}
            stream={stream}
            onStreamChange={setStreamChoice}
            streamingSupported={streamingSupported}
            examples={report?.card.skills.flatMap((s) => s.examples) ?? []}
          />
        </Tabs.Panel>
        <Tabs.Panel value="tasks" pt="md">
          <TasksPanel agent={name} protocolVersion={report?.protocolVersion} />
        </Tabs.Panel>
        <Tabs.Panel value="transcript" pt="md">
          <AgentTranscriptPanel agent={name} />
        </Tabs.Panel>
      </Tabs>
      {editing && <AgentFormModal existing={agent} onClose={() => setEditing(false)} />}
    </Stack>
  );
}
