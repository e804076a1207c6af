import { Badge, Code, Group, Paper, SimpleGrid, Stack, Text, Tooltip } from '@mantine/core';
import type { ReactNode } from 'react';
import type { McpServerResourceView } from '../../../../shared/resources/statuses';
import { phaseColor } from './phaseColor';

function relativeTime(iso: string): string {
  const seconds = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (Number.isNaN(seconds)) return iso;
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  return new Date(iso).toLocaleString();
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" component="div">
        {children}
      </Text>
    </div>
  );
}

/** What the local target made of each McpServer of the file: phase, tools found and the Tool resources generated. */
export function ReconcileStatus({ servers }: { servers: McpServerResourceView[] }) {
  return (
    <Stack gap="sm" role="region" aria-label="Reconcile status">
      {servers.map((server) => {
        const { status } = server;
        const behind = status.observedGeneration < server.generation;
        return (
          <Paper key={`${server.namespace}/${server.name}`} withBorder p="sm" radius="md">
            <Stack gap="xs">
              <Group justify="space-between" wrap="nowrap">
                <Text size="sm" fw={600} truncate="end">
                  McpServer {server.name}
                </Text>
                <Badge color={phaseColor(status.phase)} variant="light">
                  {status.phase}
                </Badge>
              </Group>
              {status.lastError && (
                <Text size="xs" c="red" style={{ wordBreak: 'break-word' }}>
                  {status.lastError}
                </Text>
              )}
              <SimpleGrid cols={2} spacing="xs" verticalSpacing={6}>
                <Field label="Discovered tools">{status.discoveredTools.length}</Field>
                <Field label="Observed generation">
                  {status.observedGeneration} of {server.generation}
                  {behind && (
                    <Text span size="xs" c="dimmed">
                      {' '}
                      (catching up)
                    </Text>
                  )}
                </Field>
                <Field label="Last synced">
                  {status.lastSyncedAt ? (
                    <Tooltip label={status.lastSyncedAt}>
                      <span>{relativeTime(status.lastSyncedAt)}</span>
                    </Tooltip>
                  ) : (
                    'never'
                  )}
                </Field>
                {status.attempts > 0 && <Field label="Failed attempts">{status.attempts}</Field>}
              </SimpleGrid>
              <div>
                <Text size="xs" c="dimmed" mb={4}>
                  Generated tools ({status.generatedTools.length})
                </Text>
                {status.generatedTools.length === 0 ? (
                  <Text size="xs" c="dimmed">
                    None yet.
                  </Text>
                ) : (
                  <Stack gap={2} role="list" aria-label={`Tools generated for ${server.name}`} mah={220} style={{ overflowY: 'auto' }}>
                    {status.generatedTools.map((tool) => (
                      <Code key={tool} role="listitem" style={{ alignSelf: 'flex-start' }}>
                        {tool}
                      </Code>
                    ))}
                  </Stack>
                )}
              </div>
            </Stack>
          </Paper>
        );
      })}
    </Stack>
  );
}
