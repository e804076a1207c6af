import { Anchor, Group, Text, Tooltip } from '@mantine/core';
import { useQueries, useQuery } from '@tanstack/react-query';
import { useTRPC } from '../../rpc/client';
import { useNavigate } from '../../shell/useSection';

/** Agents asked about one tool at most: each is one question to the backend. */
const MAX_AGENTS = 12;

/**
 * The verdict on this tool for each agent granted it, beside the operator's own ("for you"): a
 * ToolPermission scoped by target_agents may hold an agent's calls that the operator's run at once.
 * The verdicts are the Agent rights view's (the pipeline's policy for that agent), never computed here.
 */
export function AgentVerdicts({ tool }: { tool: string }) {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const agents = useQuery(trpc.agents.list.queryOptions());
  const names = (agents.data ?? []).filter((agent) => agent.toolCount > 0).slice(0, MAX_AGENTS).map((agent) => agent.name);
  const views = useQueries({ queries: names.map((name) => trpc.agents.show.queryOptions({ name })) });
  const verdicts = views.flatMap((view) => {
    const granted = view.data?.tools.find((entry) => entry.name === tool);
    return view.data && granted ? [{ agent: view.data.name, verdict: granted.verdict, withheld: granted.withheld }] : [];
  });
  if (verdicts.length === 0) return null;
  return (
    <Group gap={6} mt={4} aria-label="Verdicts for agents">
      <Text size="xs" c="dimmed">
        For agents granted it:
      </Text>
      {verdicts.map(({ agent, verdict, withheld }) => (
        <Tooltip key={agent} label={withheld ? `Not offered to ${agent}: ${withheld}` : `What policy says of ${agent}'s calls of this tool; open ${agent}'s rights for where it is granted.`} multiline maw={320}>
          <Anchor component="button" type="button" size="xs" ff="monospace" onClick={() => navigate('agentRights', { agent })}>
            for {agent}: {verdict}
            {withheld ? ' (withheld)' : ''}
          </Anchor>
        </Tooltip>
      ))}
    </Group>
  );
}
