import { Badge, Code, Group, Paper, Text, Tooltip } from '@mantine/core';
import type { TracedCall } from '../../../../shared/mediation';
import { formatDuration } from '../../components/format';
import { JsonTree } from '../../components/JsonTree';

/** A managed result's error code (cllama's JSON), when the call failed and says which. */
function errorCode(result: string): string | undefined {
  try {
    const parsed = JSON.parse(result) as { ok?: boolean; error?: { code?: unknown } };
    return parsed.ok === false && typeof parsed.error?.code === 'string' ? parsed.error.code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One tool call a model made in a mediated turn, as a card: the name it used (the registry's on
 * hover), the outcome or error code, latency, arguments as a tree and the result as the model read
 * it. The Playground draws these as rounds end; the Evals view in a run's transcript.
 */
export function TracedCallCard({ call }: { call: Pick<TracedCall, 'name' | 'tool' | 'arguments' | 'result' | 'latency_ms' | 'status' | 'duplicate'> }) {
  const code = errorCode(call.result);
  return (
    <Paper withBorder p="xs" radius="sm" aria-label={`Tool call ${call.name}`}>
      <Group justify="space-between" mb={4}>
        <Tooltip label={call.tool}>
          <Code>{call.name}</Code>
        </Tooltip>
        <Group gap={6}>
          {call.duplicate && (
            <Badge size="xs" color="gray" variant="light">
              repeated
            </Badge>
          )}
          <Badge size="xs" color={call.status === 'ok' ? 'green' : 'red'} variant="light">
            {code ?? call.status}
          </Badge>
          <Text size="xs" c="dimmed">
            {formatDuration(call.latency_ms)}
          </Text>
        </Group>
      </Group>
      <JsonTree value={call.arguments} label="Arguments" expandDepth={2} />
      <Text size="xs" c="dimmed" mt={4}>
        Result
      </Text>
      <Code block style={{ maxHeight: 160, overflow: 'auto', whiteSpace: 'pre-wrap' }}>
        {call.result}
      </Code>
    </Paper>
  );
}
