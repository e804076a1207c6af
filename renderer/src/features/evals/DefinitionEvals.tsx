import { Alert, Badge, Button, Group, Paper, Table, TagsInput, Text } from '@mantine/core';
import { IconFlask } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { EvalCaseResult } from '../../../../shared/evals';
import { appErrorOf } from '../../rpc/appError';
import { useTRPC } from '../../rpc/client';
import { useModelSuggestions } from './useEvals';

const percent = (rate: number) => `${Math.round(rate * 100)}%`;
const calledTools = (result: EvalCaseResult | undefined) => [...new Set((result?.runs ?? []).flatMap((run) => run.tool_calls.map((call) => call.name)))].join(', ') || 'no tool';

/**
 * In the drift review of a changed tool: the workspace's eval suites that use it, run with the
 * definition the lockfile approved and with the pending one, side by side — does the change alter
 * which tool a model picks? Tool calls are answered with a placeholder; only the choice is compared.
 */
export function DefinitionEvals({ tool }: { tool: string }) {
  const trpc = useTRPC();
  const suggestions = useModelSuggestions();
  const [models, setModels] = useState<string[]>([]);
  const compare = useMutation(trpc.evals.compareDefinitions.mutationOptions());
  return (
    <Paper withBorder p="xs" radius="sm" aria-label="Evals with both definitions">
      <Group align="flex-end" gap="xs">
        <TagsInput label="Models" size="xs" placeholder="provider/model" data={suggestions} value={models} onChange={setModels} style={{ flex: 1 }} />
        <Button size="xs" variant="light" leftSection={<IconFlask size={14} />} disabled={models.length === 0} loading={compare.isPending} onClick={() => compare.mutate({ tool, models })}>
          Run evals with both definitions
        </Button>
      </Group>
      {compare.error && (
        <Alert color="red" variant="light" mt="xs" p="xs">
          {appErrorOf(compare.error).message}
        </Alert>
      )}
      {compare.data && (
        <Table mt="xs" withTableBorder aria-label="Approved and pending definition">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Case</Table.Th>
              <Table.Th>Model</Table.Th>
              <Table.Th>Approved</Table.Th>
              <Table.Th>Pending</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {compare.data.suites.flatMap((suite) =>
              suite.approved.cases.map((before, index) => {
                const after = suite.pending.cases[index];
                const changed = after !== undefined && after.pass_rate !== before.pass_rate;
                return (
                  <Table.Tr key={`${suite.file}:${before.name}:${before.model}`} aria-label={`${before.name} with ${before.model}`}>
                    <Table.Td>
                      <Text size="sm">{before.name}</Text>
                      <Text size="xs" c="dimmed">
                        {suite.file}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" ff="monospace">
                        {before.model}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Badge color={before.passed ? 'green' : 'red'} variant="light">
                        {percent(before.pass_rate)}
                      </Badge>
                      <Text size="xs" c="dimmed">
                        {calledTools(before)}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Group gap={4}>
                        <Badge color={after?.passed ? 'green' : 'red'} variant="light">
                          {after ? percent(after.pass_rate) : '—'}
                        </Badge>
                        {changed && (
                          <Text size="xs" c="orange" fw={700}>
                            selection changed
                          </Text>
                        )}
                      </Group>
                      <Text size="xs" c="dimmed">
                        {calledTools(after)}
                      </Text>
                    </Table.Td>
                  </Table.Tr>
                );
              }),
            )}
          </Table.Tbody>
        </Table>
      )}
    </Paper>
  );
}
