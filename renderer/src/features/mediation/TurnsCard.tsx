import { Anchor, Badge, Group, Paper, ScrollArea, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import { IconMessageChatbot } from '@tabler/icons-react';
import { useState } from 'react';
import type { MediatedTurn, TracedCall, TracedRound } from '../../../../shared/mediation';
import { EmptyState } from '../../components/EmptyState';
import { JsonTree } from '../../components/JsonTree';
import { formatClock, formatDuration } from '../../components/format';
import { useNavigate } from '../../shell/useSection';

const sum = (rounds: TracedRound[], pick: (round: TracedRound) => number) => rounds.reduce((total, round) => total + pick(round), 0);

/** A managed result as the model read it: cllama's JSON when it parses, the text otherwise. */
function resultValue(result: string): unknown {
  try {
    return JSON.parse(result) as unknown;
  } catch {
    return result;
  }
}

function CallRow({ call }: { call: TracedCall }) {
  const navigate = useNavigate();
  return (
    <Table.Tr>
      <Table.Td>
        <Text size="sm" ff="monospace">
          {call.name}
        </Text>
        <Text size="xs" c="dimmed">
          {call.tool}
        </Text>
      </Table.Td>
      <Table.Td miw={140}>
        <JsonTree value={call.arguments} label={`Arguments of ${call.name}`} expandDepth={1} />
      </Table.Td>
      <Table.Td miw={180}>
        <JsonTree value={resultValue(call.result)} label={`Result of ${call.name}`} expandDepth={1} />
      </Table.Td>
      <Table.Td>
        <Group gap={4}>
          <Badge size="sm" variant="light" color={call.status === 'ok' ? 'green' : 'red'}>
            {call.status}
          </Badge>
          {call.duplicate && (
            <Tooltip label={`The same call as in round ${call.duplicate_of_round}: ${call.policy === 'reject' ? 'rejected' : 'its result replayed'}`}>
              <Badge size="sm" variant="outline" color="orange">
                duplicate
              </Badge>
            </Tooltip>
          )}
        </Group>
      </Table.Td>
      <Table.Td>{formatDuration(call.latency_ms)}</Table.Td>
      <Table.Td>
        {call.record_id ? (
          <Anchor component="button" size="sm" onClick={() => navigate('history', { call: call.record_id! })} aria-label={`History row of ${call.name}`}>
            History
          </Anchor>
        ) : (
          <Text size="xs" c="dimmed">
            not run
          </Text>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

/** One turn, round by round: what the model asked for, what ran, what it read — the rounds the runner never saw. */
function TurnDetail({ turn }: { turn: MediatedTurn }) {
  return (
    <Stack gap="sm" aria-label={`Turn ${turn.id}`}>
      <Group gap="xs">
        <Badge variant="light">{turn.agent}</Badge>
        <Badge variant="outline" color="gray">
          via {turn.via}
        </Badge>
        <Text size="sm" ff="monospace">
          {turn.model}
        </Text>
        {turn.continuity_injected ? (
          <Tooltip label="Hidden rounds of this agent's earlier turns put back before the answers they led to">
            <Badge variant="dot" color="blue">
              {turn.continuity_injected} messages reinjected
            </Badge>
          </Tooltip>
        ) : null}
      </Group>
      {turn.error && (
        <Text c="red" size="sm">
          {turn.error}
        </Text>
      )}
      {turn.tool_trace.map((round) => (
        <Paper key={round.round} withBorder radius="sm" p="sm" component="section" aria-label={`Round ${round.round}`}>
          <Group justify="space-between" mb={4}>
            <Text fw={600} size="sm">
              Round {round.round}
            </Text>
            <Text size="xs" c="dimmed">
              {formatDuration(round.wall_time_ms)} · {round.prompt_tokens} prompt + {round.completion_tokens} completion tokens
            </Text>
          </Group>
          {round.note && (
            <Text size="xs" c="orange" mb={4}>
              {round.note}
            </Text>
          )}
          {round.tool_calls.length === 0 ? (
            <Text size="sm" c="dimmed">
              The model answered without calling a managed tool.
            </Text>
          ) : (
            <ScrollArea type="auto">
              <Table verticalSpacing={4} fz="sm">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Tool</Table.Th>
                    <Table.Th>Arguments</Table.Th>
                    <Table.Th>Result (as the model read it)</Table.Th>
                    <Table.Th>Status</Table.Th>
                    <Table.Th>Latency</Table.Th>
                    <Table.Th />
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {round.tool_calls.map((call, index) => (
                    <CallRow key={index} call={call} />
                  ))}
                </Table.Tbody>
              </Table>
            </ScrollArea>
          )}
        </Paper>
      ))}
      {turn.answer !== undefined && (
        <Paper withBorder radius="sm" p="sm" bg="var(--mantine-color-default-hover)">
          <Text size="xs" c="dimmed" mb={4}>
            The answer the runner got
          </Text>
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {turn.answer}
          </Text>
        </Paper>
      )}
    </Stack>
  );
}

/** Every agent's mediated turns, newest first; one opens round by round. */
export function TurnsCard({ turns }: { turns: MediatedTurn[] }) {
  const [selected, setSelected] = useState<string | undefined>();
  const open = turns.find((turn) => turn.id === selected) ?? turns[0];
  if (turns.length === 0) {
    return (
      <EmptyState
        icon={<IconMessageChatbot size={30} />}
        title="No mediated turns yet"
        description="Point a runner's OpenAI or Anthropic client at the gateway (base URL http://127.0.0.1:PORT/v1, its credential as the API key, model provider/model). Each turn shows here round by round: the managed calls the model made, their results, tokens and the answer."
        descriptionWidth={560}
        actions={null}
      />
    );
  }
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Mediated turns">
      <Title order={4} mb="xs">
        Sessions
      </Title>
      <Group align="flex-start" gap="md" wrap="nowrap">
        <ScrollArea h={520} w={340} type="auto">
          <Table highlightOnHover verticalSpacing={6} aria-label="Turns">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>When</Table.Th>
                <Table.Th>Agent</Table.Th>
                <Table.Th>Rounds</Table.Th>
                <Table.Th>Calls</Table.Th>
                <Table.Th>Tokens</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {turns.map((turn) => (
                <Table.Tr key={turn.id} onClick={() => setSelected(turn.id)} style={{ cursor: 'pointer' }} bg={turn.id === open?.id ? 'var(--mantine-primary-color-light)' : undefined} aria-selected={turn.id === open?.id}>
                  <Table.Td>
                    <Text size="sm">{formatClock(turn.at)}</Text>
                    {turn.status === 'error' && (
                      <Badge size="xs" color="red" variant="light">
                        failed
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm">{turn.agent}</Text>
                    <Text size="xs" c="dimmed" ff="monospace">
                      {turn.model}
                    </Text>
                  </Table.Td>
                  <Table.Td>{turn.tool_trace.length}</Table.Td>
                  <Table.Td>{sum(turn.tool_trace, (round) => round.tool_calls.length)}</Table.Td>
                  <Table.Td>{sum(turn.tool_trace, (round) => round.prompt_tokens + round.completion_tokens)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </ScrollArea>
        <div style={{ flex: 1, minWidth: 0 }}>{open && <TurnDetail turn={open} />}</div>
      </Group>
    </Paper>
  );
}
