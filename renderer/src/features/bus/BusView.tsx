import { Alert, Anchor, Badge, Button, Group, Paper, PasswordInput, SimpleGrid, Skeleton, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconArrowsExchange } from '@tabler/icons-react';
import { useState } from 'react';
import type { BusAgentTotals, BusConnectionState, BusDeadLetterView, BusExchangeView, BusOutcome, BusPeerView, BusStatus } from '../../../../shared/bus';
import { EmptyState } from '../../components/EmptyState';
import { formatClock, formatDuration } from '../../components/format';
import { useNavigate } from '../../shell/useSection';
import { useBusActions, useBusDeadLetters, useBusOverview } from './useBus';

const stateLook: Record<BusConnectionState, { label: string; color: string }> = {
  stopped: { label: 'Stopped', color: 'gray' },
  connecting: { label: 'Connecting', color: 'blue' },
  connected: { label: 'Connected', color: 'teal' },
  reconnecting: { label: 'Reconnecting', color: 'orange' },
};

const outcomeLook: Record<BusOutcome, { label: string; color: string }> = {
  ok: { label: 'Result', color: 'teal' },
  tool_error: { label: 'Tool error', color: 'orange' },
  tool_not_found: { label: 'tool_not_found', color: 'red' },
  execution_failed: { label: 'execution_failed', color: 'red' },
  timeout: { label: 'timeout', color: 'red' },
  invalid_arguments: { label: 'invalid_arguments', color: 'red' },
  replayed: { label: 'Replayed', color: 'gray' },
  dead_lettered: { label: 'Dead-lettered', color: 'grape' },
};

/**
 * RockBot's bus: Tooldeck as a RockBot MCP bridge on RabbitMQ. RockBot agents' tool calls run
 * through the pipeline as themselves (`via: bus`), so they are in History and Metrics too; this
 * shows the connection and the requests and replies as they pass.
 */
export function BusView() {
  const { overview, error } = useBusOverview();
  return (
    <Stack gap="md">
      <div>
        <Title order={2}>Bus</Title>
        <Text c="dimmed" size="sm">
          Tooldeck as a RockBot MCP bridge on RabbitMQ: RockBot agents call the registry&apos;s tools over the bus, under the policy for each agent, and every call is recorded.
        </Text>
      </div>
      {error && (
        <Alert color="red" variant="light" title="The bridge's state could not be read">
          {error}
        </Alert>
      )}
      {!overview ? (
        <Skeleton h={160} />
      ) : (
        <>
          <ConnectionCard status={overview.status} />
          {overview.status.discovery && <PeersCard peers={overview.peers ?? []} />}
          {overview.perAgent.length > 0 && <AgentsCard agents={overview.perAgent} />}
          <ExchangesCard exchanges={overview.recent} running={overview.status.state !== 'stopped'} />
          {overview.status.state !== 'stopped' && <DeadLettersCard />}
        </>
      )}
    </Stack>
  );
}

/** RabbitMQ's own default account on this machine: what the form starts with. */
const DEFAULT_BROKER_URL = 'amqp://guest:guest@127.0.0.1:5672';

/** Whether a broker URL carries a password worth hiding: RabbitMQ's well-known `guest` default is none. */
export function brokerUrlCarriesSecret(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.password !== '' && !(parsed.username === 'guest' && parsed.password === 'guest');
  } catch {
    return url.includes('@');
  }
}

/** Connected or not, to which broker (masked), under which name; the form to start it. */
function ConnectionCard({ status }: { status: BusStatus }) {
  const { start, stop } = useBusActions();
  const [url, setUrl] = useState(DEFAULT_BROKER_URL);
  const [urlShown, setUrlShown] = useState(false);
  const [agent, setAgent] = useState('tooldeck');
  const [discover, setDiscover] = useState(true);
  const [trustRbSource, setTrustRbSource] = useState(false);
  const look = stateLook[status.state];
  const busy = start.isPending || stop.isPending;
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Bus connection">
      <Stack gap="sm">
        <Group justify="space-between">
          <Group gap="xs">
            <Badge color={look.color} variant="light" aria-label="Connection state">
              {look.label}
            </Badge>
            {status.url && (
              <Text size="sm" ff="monospace" aria-label="Broker">
                {status.url}
              </Text>
            )}
          </Group>
          {status.state !== 'stopped' && (
            <Button size="xs" variant="default" loading={stop.isPending} onClick={() => stop.mutate()}>
              Stop the bridge
            </Button>
          )}
        </Group>
        {status.state !== 'stopped' ? (
          <Text size="sm" c="dimmed">
            Bridge <b>{status.agent}</b> consumes <Text span ff="monospace">{status.queue}</Text>; other bridges with the same name share its queue.{' '}
            {status.trustRbSource
              ? 'A request without user_id is taken as the agent its rb-source claims.'
              : 'The calling agent is the broker user RabbitMQ vouches for (user_id); a request without it is refused.'}
          </Text>
        ) : (
          <Group align="flex-end" gap="sm">
            <PasswordInput
              label="Broker URL"
              description="amqp://USER:PASSWORD@HOST:PORT/VHOST — a password is masked, and never shown again once the bridge runs"
              w={360}
              value={url}
              // The default (guest:guest, RabbitMQ's own) is shown as it is: masking it read like a saved secret.
              visible={urlShown || !brokerUrlCarriesSecret(url)}
              onVisibilityChange={setUrlShown}
              onChange={(event) => setUrl(event.currentTarget.value)}
            />
            <TextInput label="Bridge name" description="its queues are rockbot.mcp-bridge.NAME" w={200} value={agent} onChange={(event) => setAgent(event.currentTarget.value)} />
            <Switch
              label="Offer other bridges' tools"
              description="as bus:AGENT.TOOL entries"
              checked={discover}
              onChange={(event) => setDiscover(event.currentTarget.checked)}
            />
            <Switch
              label="Trust rb-source"
              description="without user_id, take the agent a request claims"
              checked={trustRbSource}
              onChange={(event) => setTrustRbSource(event.currentTarget.checked)}
            />
            <Button loading={busy} disabled={!url.trim() || !agent.trim()} onClick={() => start.mutate({ url: url.trim(), agent: agent.trim(), discover, trustRbSource })}>
              Start the bridge
            </Button>
          </Group>
        )}
        {status.state !== 'stopped' && status.trustRbSource && (
          <Alert color="orange" variant="light" title="Trusting rb-source">
            Anyone who may publish on this broker’s rockbot exchange can call as any agent: only for brokers where every publisher is trusted.
          </Alert>
        )}
        {status.error && (
          <Alert color={status.state === 'stopped' ? 'red' : 'orange'} variant="light" title={status.state === 'stopped' ? 'Not connected' : 'Connection problem'}>
            {status.error}
          </Alert>
        )}
      </Stack>
    </Paper>
  );
}

/**
 * Other RockBot MCP bridges on the bus, from their McpServersIndexed: each server and its tools,
 * which are `bus:AGENT.TOOL` entries of the Tools registry (called over tool.invoke.mcp, under policy).
 */
function PeersCard({ peers }: { peers: BusPeerView[] }) {
  const navigate = useNavigate();
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Other bridges on the bus">
      <Text fw={600} size="sm">
        Other bridges on the bus
      </Text>
      <Text size="xs" c="dimmed" mb="xs">
        Their tools are in the Tools registry as bus:AGENT.TOOL; calls go over tool.invoke.mcp and are answered on Tooldeck&apos;s own queue.
      </Text>
      {peers.length === 0 ? (
        <Text size="sm" c="dimmed">
          None has announced its servers yet.
        </Text>
      ) : (
        <Table aria-label="Other bridges on the bus" verticalSpacing={5} fz="xs" layout="fixed">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w="18%">Bridge</Table.Th>
              <Table.Th w="18%">Server</Table.Th>
              <Table.Th>Tools</Table.Th>
              <Table.Th w={100}>Last heard</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {peers.flatMap((peer) =>
              (peer.servers.length > 0 ? peer.servers : [undefined]).map((server, index) => (
                <Table.Tr key={`${peer.agent}/${server?.serverName ?? ''}`}>
                  <Table.Td>
                    <Text size="xs" fw={600} truncate="end">
                      {index === 0 ? peer.agent : ''}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="xs" truncate="end" title={server?.summary}>
                      {server ? (server.displayName ?? server.serverName) : '—'}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Group gap={6}>
                      {(server?.tools ?? []).slice(0, 12).map((tool) => (
                        <Anchor key={tool} component="button" type="button" size="xs" ff="monospace" onClick={() => navigate('tools', { tool: `bus:${peer.agent}.${tool}` })}>
                          {tool}
                        </Anchor>
                      ))}
                      {(server?.tools.length ?? 0) > 12 && (
                        <Text size="xs" c="dimmed">
                          +{server!.tools.length - 12} more
                        </Text>
                      )}
                    </Group>
                  </Table.Td>
                  <Table.Td>{index === 0 ? formatClock(peer.lastSeenAt) : ''}</Table.Td>
                </Table.Tr>
              )),
            )}
          </Table.Tbody>
        </Table>
      )}
    </Paper>
  );
}

function AgentsCard({ agents }: { agents: BusAgentTotals[] }) {
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Traffic per agent">
      <Text fw={600} size="sm" mb="xs">
        Traffic per agent
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
        {agents.map((agent) => (
          <Paper key={agent.agent} withBorder radius="sm" px="sm" py={6} role="group" aria-label={`Agent ${agent.agent}`}>
            <Text size="sm" fw={600} truncate="end">
              {agent.agent}
            </Text>
            <Text size="xs" c="dimmed">
              {agent.requests} request{agent.requests === 1 ? '' : 's'}, {agent.errors} error{agent.errors === 1 ? '' : 's'}
            </Text>
          </Paper>
        ))}
      </SimpleGrid>
    </Paper>
  );
}

/** Requests and replies as they pass, newest first, with latency and how each ended. */
function ExchangesCard({ exchanges, running }: { exchanges: BusExchangeView[]; running: boolean }) {
  if (exchanges.length === 0) {
    return (
      <EmptyState
        icon={<IconArrowsExchange size={30} />}
        color={running ? undefined : 'gray'}
        title={running ? 'No requests yet' : 'The bridge is off'}
        description={
          running
            ? "RockBot agents' ToolInvokeRequests on tool.invoke.mcp show here as they are answered, with latency and outcome. Each call is also in History under the agent's name."
            : 'Start it above (or run tooldeck bus bridge --amqp URL --agent NAME) and RockBot agents on that broker can call the registry’s tools.'
        }
        actions={null}
      />
    );
  }
  const newestFirst = [...exchanges].reverse();
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Requests and replies">
      <Text fw={600} size="sm" mb="xs">
        Requests and replies
      </Text>
      <Table aria-label="Requests and replies" verticalSpacing={5} fz="xs" layout="fixed" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={100}>Received</Table.Th>
            <Table.Th w="18%">Agent</Table.Th>
            <Table.Th>Tool</Table.Th>
            <Table.Th w="16%">Server</Table.Th>
            <Table.Th w={80} ta="right">
              Latency
            </Table.Th>
            <Table.Th w={150}>Outcome</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {newestFirst.map((exchange) => (
            <Table.Tr key={exchange.id}>
              <Table.Td>{formatClock(exchange.startedAt)}</Table.Td>
              <Table.Td>
                <Text size="xs" truncate="end">
                  {exchange.agent ?? '—'}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="xs" ff="monospace" truncate="end">
                  {exchange.tool ?? '—'}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="xs" truncate="end">
                  {exchange.server ?? '—'}
                </Text>
              </Table.Td>
              <Table.Td ta="right">{exchange.latencyMs === undefined ? '…' : formatDuration(exchange.latencyMs)}</Table.Td>
              <Table.Td>
                {exchange.outcome ? (
                  <Badge size="xs" variant="light" color={outcomeLook[exchange.outcome].color}>
                    {outcomeLook[exchange.outcome].label}
                  </Badge>
                ) : (
                  <Badge size="xs" variant="light" color="blue">
                    Running
                  </Badge>
                )}
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}

/** Requests the bridge could not answer (no reply_to) or that ended in its dead-letter queues otherwise: inspect, replay, purge. */
function DeadLettersCard() {
  const { letters, refresh, replay, purge } = useBusDeadLetters(true);
  const list: BusDeadLetterView[] = letters.data ?? [];
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Dead letters">
      <Group justify="space-between" mb="xs">
        <div>
          <Text fw={600} size="sm">
            Dead letters
          </Text>
          <Text size="xs" c="dimmed">
            Requests in the bridge&apos;s dead-letter queues, read without taking them.
          </Text>
        </div>
        <Group gap="xs">
          <Button size="xs" variant="default" onClick={refresh} loading={letters.isFetching}>
            Refresh
          </Button>
          <Button size="xs" variant="default" disabled={list.length === 0} loading={replay.isPending} onClick={() => replay.mutate({})}>
            Replay all
          </Button>
          <Button size="xs" color="red" variant="light" disabled={list.length === 0} loading={purge.isPending} onClick={() => confirmPurge(list.length, () => purge.mutate())}>
            Purge
          </Button>
        </Group>
      </Group>
      {letters.error ? (
        <Alert color="red" variant="light" title="The dead letters could not be read">
          {letters.error.message}
        </Alert>
      ) : list.length === 0 ? (
        <Text size="sm" c="dimmed">
          None.
        </Text>
      ) : (
        <Table aria-label="Dead letters" verticalSpacing={5} fz="xs" layout="fixed">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w="22%">Queue</Table.Th>
              <Table.Th w="14%">From</Table.Th>
              <Table.Th w="24%">Reason</Table.Th>
              <Table.Th>Body</Table.Th>
              <Table.Th w={90} />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.map((letter) => (
              <Table.Tr key={`${letter.queue}/${letter.messageId}`}>
                <Table.Td>
                  <Text size="xs" ff="monospace" truncate="end">
                    {letter.queue}
                  </Text>
                </Table.Td>
                <Table.Td>{letter.source ?? '—'}</Table.Td>
                <Table.Td>
                  {/* The bridge's own words when this process refused it; the broker's x-death reason otherwise. */}
                  <Text size="xs" lineClamp={2} title={letter.bridgeReason ? `${letter.bridgeReason} (broker: ${letter.reason ?? 'no x-death'})` : undefined}>
                    {letter.bridgeReason ?? letter.reason ?? '—'}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="xs" ff="monospace" truncate="end" title={letter.bodyPreview}>
                    {letter.bodyPreview}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Button size="compact-xs" variant="subtle" aria-label={`Replay ${letter.messageId}`} onClick={() => replay.mutate({ messageIds: [letter.messageId] })}>
                    Replay
                  </Button>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Paper>
  );
}

/** Purging cannot be undone: the requests are gone from the broker, so it is asked once more. */
function confirmPurge(count: number, purge: () => void) {
  modals.openConfirmModal({
    title: `Purge ${count === 1 ? 'the dead letter' : `${count} dead letters`}?`,
    children: <Text size="sm">The requests are deleted from the broker&apos;s dead-letter queues and cannot be replayed afterwards.</Text>,
    labels: { confirm: 'Purge', cancel: 'Cancel' },
    confirmProps: { color: 'red' },
    onConfirm: purge,
  });
}
