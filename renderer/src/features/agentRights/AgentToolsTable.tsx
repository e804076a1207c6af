import { Anchor, Badge, Group, Stack, Table, Text, Tooltip } from '@mantine/core';
import { IconShieldCheck, IconShieldQuestion, IconShieldX } from '@tabler/icons-react';
import type { AgentToolView, GrantOrigin, OrlojVerdict } from '../../../../shared/agents';
import { useNavigate } from '../../shell/useSection';

const VERDICT_LOOK: Record<OrlojVerdict, { color: string; Icon: typeof IconShieldCheck; hint: string }> = {
  allow: { color: 'teal', Icon: IconShieldCheck, hint: 'Runs when the agent calls it' },
  approval_required: { color: 'yellow', Icon: IconShieldQuestion, hint: 'Held until a person approves the exact call (Approvals)' },
  deny: { color: 'red', Icon: IconShieldX, hint: 'Refused when the agent calls it' },
};

/** The verdict policy gives a tool for this agent, in Orloj's words, coloured as every verdict in the console. */
export function AgentVerdictBadge({ verdict, agent }: { verdict: OrlojVerdict; agent: string }) {
  const look = VERDICT_LOOK[verdict];
  return (
    <Tooltip label={look.hint} withArrow>
      <Badge size="sm" variant="light" color={look.color} radius="sm" tt="none" leftSection={<look.Icon size={12} aria-hidden />} aria-label={`Verdict for ${agent}: ${verdict}`}>
        {verdict}
      </Badge>
    </Tooltip>
  );
}

/** A cluster's object (`cluster:<namespace>/<name>`) is no workspace file: only a workspace file opens in Resources. */
function isWorkspaceFile(file: string): boolean {
  return !file.startsWith('cluster:');
}

/** One place a tool is granted: its kind, the file (a link into Resources) and the rule that grants. */
function Origin({ origin }: { origin: GrantOrigin }) {
  const navigate = useNavigate();
  return (
    <div role="listitem" aria-label={`${origin.kind}${origin.file ? ` ${origin.file}` : ''}`}>
      <Group gap={6} wrap="nowrap">
        <Badge size="xs" variant="outline" color="gray" tt="none" style={{ flexShrink: 0 }}>
          {origin.kind}
        </Badge>
        {origin.file &&
          (isWorkspaceFile(origin.file) ? (
            <Anchor component="button" type="button" size="xs" ff="monospace" onClick={() => navigate('resources', { file: origin.file! })} title={`Open ${origin.file} in Resources`}>
              {origin.file}
            </Anchor>
          ) : (
            <Text size="xs" ff="monospace">
              {origin.file}
            </Text>
          ))}
      </Group>
      <Text size="xs" c="dimmed" ff="monospace" style={{ overflowWrap: 'anywhere' }}>
        {origin.rule}
      </Text>
    </div>
  );
}

/** The tools an agent is granted: the verdict for it, whether it is offered, and every place that grants it. */
export function AgentToolsTable({ agent, tools }: { agent: string; tools: AgentToolView[] }) {
  const navigate = useNavigate();
  return (
    <Table aria-label={`Tools granted to ${agent}`} verticalSpacing={8} fz="sm" layout="fixed">
      <Table.Thead>
        <Table.Tr>
          <Table.Th w="36%">Tool</Table.Th>
          <Table.Th w={160} title={`The verdict policy gives each tool for ${agent}'s calls`}>
            Verdict
          </Table.Th>
          <Table.Th>Granted by</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {tools.map((tool) => (
          <Table.Tr key={tool.name} aria-label={tool.name} style={{ verticalAlign: 'top' }}>
            <Table.Td>
              <Anchor component="button" type="button" size="sm" ff="monospace" ta="left" style={{ overflowWrap: 'anywhere' }} onClick={() => navigate('tools', { tool: tool.name })} title={`Open ${tool.name} in Tools`}>
                {tool.name}
              </Anchor>
              {tool.withheld && (
                <Group gap={6} mt={4} wrap="nowrap" align="flex-start">
                  <Badge size="xs" variant="light" color="orange" tt="none" style={{ flexShrink: 0 }}>
                    not offered
                  </Badge>
                  <Text size="xs" c="dimmed" aria-label={`Why ${tool.name} is not offered`}>
                    {tool.withheld}
                  </Text>
                </Group>
              )}
            </Table.Td>
            <Table.Td>
              <AgentVerdictBadge verdict={tool.verdict} agent={agent} />
            </Table.Td>
            <Table.Td>
              {tool.grantedBy.length === 0 ? (
                <Text size="xs" c="dimmed">
                  —
                </Text>
              ) : (
                <Stack gap={6} role="list" aria-label={`Where ${tool.name} is granted`}>
                  {tool.grantedBy.map((origin, index) => (
                    <Origin key={`${origin.kind}-${origin.file ?? ''}-${index}`} origin={origin} />
                  ))}
                </Stack>
              )}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
