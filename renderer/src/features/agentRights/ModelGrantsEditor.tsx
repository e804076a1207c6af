import { Button, Code, Group, NumberInput, Paper, Stack, TagsInput, Text } from '@mantine/core';
import { IconDeviceFloppy } from '@tabler/icons-react';
import { useState } from 'react';
import { ModelPattern, type AgentView } from '../../../../shared/agents';
import { useGrantModels } from './useAgentRights';

/** The first pattern the backend would refuse, as one sentence; none when all are stored as typed. */
function patternProblem(patterns: string[]): string | undefined {
  for (const pattern of patterns) {
    const parsed = ModelPattern.safeParse(pattern);
    if (!parsed.success) return `"${pattern}": ${parsed.error.issues[0]?.message ?? 'not a model pattern'}.`;
  }
  return undefined;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

/**
 * The `<provider>/<model>` patterns an agent may use through mediation, deny by default, and its
 * optional daily token budget; Save grants exactly what is shown (as `tooldeck agents models`).
 * Mounted again (keyed) when the saved grant changes, so it starts from what is stored.
 */
export function ModelGrantsEditor({ agent }: { agent: AgentView }) {
  const grant = useGrantModels();
  // A cluster's agent is granted models by its LanguageAgent's annotation, which wins over a grant made here.
  const fromCluster = Boolean(agent.doors.cluster);
  const [models, setModels] = useState<string[]>(agent.models);
  const [budget, setBudget] = useState<string | number>(agent.dailyTokenBudget ?? '');
  const problem = patternProblem(models);
  const budgetValue = budget === '' ? null : Number(budget);
  const budgetProblem = budgetValue !== null && (!Number.isInteger(budgetValue) || budgetValue < 1) ? 'A budget is a whole number of tokens, at least 1; empty: no budget.' : undefined;
  const changed = !sameList(models, agent.models) || budgetValue !== (agent.dailyTokenBudget ?? null);

  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Models" h="100%">
      <Text fw={600} size="sm">
        Models
      </Text>
      <Text size="xs" c="dimmed" mb="xs">
        The models {agent.name} may use through mediation (<Text span ff="monospace" fz="xs">/v1/chat/completions</Text>, <Text span ff="monospace" fz="xs">/v1/messages</Text>). Any other model is refused.
      </Text>
      <Stack gap="xs">
        <Text size="sm" aria-label={`Models granted to ${agent.name}`} c={agent.models.length === 0 ? 'orange' : undefined}>
          {agent.models.length === 0 ? 'deny by default: no model' : `May use ${agent.models.join(', ')}`}
        </Text>
        {fromCluster && (
          <Text size="xs" c="dimmed">
            A Language Operator LanguageAgent of the cluster: its models are its <Code fz="xs">tooldeck.dev/models</Code> annotation; change them there.
          </Text>
        )}
        <TagsInput
          label="Model patterns"
          description={<>&lt;provider&gt;/&lt;model&gt;, * for any run of characters (mock/*, openai/gpt-4o); Enter adds one</>}
          placeholder={models.length === 0 ? 'mock/*' : undefined}
          value={models}
          onChange={setModels}
          splitChars={[',', ' ']}
          clearable
          disabled={fromCluster}
          error={problem}
        />
        <Group align="flex-end" gap="sm" wrap="wrap">
          <NumberInput
            label="Daily token budget"
            description={agent.dailyTokenBudget !== undefined ? `${agent.tokensToday ?? 0} of ${agent.dailyTokenBudget} spent today (UTC)` : 'Tokens per UTC day; empty: no budget'}
            placeholder="no budget"
            value={budget}
            onChange={setBudget}
            min={1}
            allowDecimal={false}
            allowNegative={false}
            thousandSeparator=","
            error={budgetProblem}
            disabled={fromCluster}
            w={240}
          />
          <Button
            leftSection={<IconDeviceFloppy size={16} />}
            disabled={fromCluster || !changed || Boolean(problem) || Boolean(budgetProblem)}
            loading={grant.isPending}
            onClick={() => grant.mutate({ name: agent.name, models, dailyTokens: budgetValue })}
          >
            Save models
          </Button>
        </Group>
      </Stack>
    </Paper>
  );
}
