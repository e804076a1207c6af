import { Anchor, Badge, Code, Group, Loader, Paper, Select, Table, Text, Tooltip } from '@mantine/core';
import { IconActivity } from '@tabler/icons-react';
import { useState } from 'react';
import type { GatewayCallView, GatewaySessionView } from '../../../../shared/gateway';
import { EmptyState } from '../../components/EmptyState';
import { formatClock, formatDuration } from '../../components/format';
import { isSectionId } from '../../shell/sectionIds';
import { useNavigate } from '../../shell/useSection';
import { CallStatusBadge } from '../history/CallStatusBadge';

const stateLook: Record<GatewayCallView['state'], { label: string; color: string }> = {
  running: { label: 'Running', color: 'blue' },
  held: { label: 'Held', color: 'orange' },
  done: { label: 'Done', color: 'gray' },
};

/** Where a held call's approval is decided: a link into the Approvals inbox when the console has one. */
function ApprovalName({ name }: { name: string }) {
  const navigate = useNavigate();
  if (isSectionId('approvals')) {
    return (
      <Anchor component="button" size="xs" ff="monospace" onClick={() => navigate('approvals', { approval: name })} aria-label={`Approval ${name}`}>
        {name}
      </Anchor>
    );
  }
  return (
    <Text size="xs" ff="monospace" aria-label={`Approval ${name}`} truncate="end">
      {name}
    </Text>
  );
}

/** Calls agents make through the gateway, newest first, as they run, wait for a person and finish. */
export function LiveCallsCard({ calls, running, url }: { calls: GatewayCallView[]; running: boolean; url?: string }) {
  const navigate = useNavigate();
  const [agent, setAgent] = useState<string | null>(null);
  const agents = [...new Set(calls.map((call) => call.agent))].sort();
  const shown = agent ? calls.filter((call) => call.agent === agent) : calls;

  if (calls.length === 0) {
    return (
      <EmptyState
        icon={<IconActivity size={30} />}
        color={running ? undefined : 'gray'}
        title={running ? 'No calls yet' : 'The gateway is off'}
        description={
          running
            ? `Calls agents make through ${url ?? 'the gateway'} show here as they happen: running, held for a person's approval, done with latency and outcome. Every one is also in History under the agent's name.`
            : 'Turn it on above, hand an agent the URL and its credential, and its calls show here as they happen.'
        }
        actions={null}
      />
    );
  }

  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Live calls">
      <Group justify="space-between" mb="xs">
        <div>
          <Text fw={600} size="sm">
            Live calls
          </Text>
          <Text size="xs" c="dimmed">
            {calls.length === 1 ? 'The first call through the gateway.' : `The latest ${calls.length} calls through the gateway, newest first.`}
          </Text>
        </div>
        <Select size="xs" w={200} aria-label="Agent" placeholder="Every agent" data={agents} value={agent} onChange={setAgent} clearable />
      </Group>
      <Table aria-label="Live calls" verticalSpacing={5} fz="xs" layout="fixed" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th w={100}>Started</Table.Th>
            <Table.Th w="16%">Agent</Table.Th>
            <Table.Th>Tool</Table.Th>
            <Table.Th w={96}>State</Table.Th>
            <Table.Th w={80} ta="right">
              Latency
            </Table.Th>
            <Table.Th w={150}>Outcome</Table.Th>
            <Table.Th w="14%">Approval</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {shown.map((call) => {
            const look = stateLook[call.state];
            return (
              <Table.Tr key={call.id} aria-label={`${call.agent} ${call.tool} ${look.label}`}>
                <Table.Td>
                  <Text size="xs" ff="monospace">
                    {formatClock(call.startedAt).slice(0, 8)}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="xs" ff="monospace" truncate="end">
                    {call.agent}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Text size="xs" ff="monospace" truncate="end" title={call.tool}>
                    {call.tool}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Badge size="sm" variant="light" color={look.color} leftSection={call.state === 'running' ? <Loader size={8} color="blue" /> : undefined}>
                    {look.label}
                  </Badge>
                </Table.Td>
                <Table.Td ta="right">{call.latencyMs !== undefined ? formatDuration(call.latencyMs) : '—'}</Table.Td>
                <Table.Td>
                  {call.status ? (
                    <Group gap={4} wrap="nowrap">
                      {call.error ? (
                        <Tooltip label={call.error} withArrow multiline maw={360}>
                          <span>
                            <CallStatusBadge record={{ status: call.status }} size="xs" />
                          </span>
                        </Tooltip>
                      ) : (
                        <CallStatusBadge record={{ status: call.status }} size="xs" />
                      )}
                      {call.recordId && (
                        <Anchor component="button" size="xs" onClick={() => navigate('history', { call: call.recordId! })} aria-label={`Open call ${call.id} in History`}>
                          History
                        </Anchor>
                      )}
                    </Group>
                  ) : (
                    <Text size="xs" c="dimmed">
                      —
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>{call.approval ? <ApprovalName name={call.approval} /> : <Text size="xs" c="dimmed">—</Text>}</Table.Td>
              </Table.Tr>
            );
          })}
        </Table.Tbody>
      </Table>
    </Paper>
  );
}

const eraLabel: Record<GatewaySessionView['era'], string> = { '2025-11-25': 'session (2025-11-25)', '2026-07-28': 'stateless (2026-07-28)', stdio: 'stdio' };

/** The agents connected now: their MCP sessions with the gateway. */
export function SessionsCard({ sessions }: { sessions: GatewaySessionView[] }) {
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Connected sessions" h="100%">
      <Text fw={600} size="sm" mb="xs">
        Connected sessions
      </Text>
      {sessions.length === 0 ? (
        <Text size="sm" c="dimmed">
          No agent is connected.
        </Text>
      ) : (
        <Table aria-label="Sessions" verticalSpacing={5} fz="xs" layout="fixed">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Agent</Table.Th>
              <Table.Th>Client</Table.Th>
              <Table.Th w={96}>Since</Table.Th>
              <Table.Th w={56} ta="right">
                Calls
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {sessions.map((session) => (
              <Table.Tr key={session.id}>
                <Table.Td>
                  <Text size="xs" ff="monospace" truncate="end">
                    {session.agent}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <Tooltip label={`${eraLabel[session.era]} · ${session.id}`} withArrow>
                    <Text size="xs" truncate="end">
                      {session.clientName ?? <Code fz="xs">{session.era}</Code>}
                    </Text>
                  </Tooltip>
                </Table.Td>
                <Table.Td>
                  <Text size="xs" ff="monospace">
                    {formatClock(session.openedAt).slice(0, 8)}
                  </Text>
                </Table.Td>
                <Table.Td ta="right">{session.calls}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Paper>
  );
}
