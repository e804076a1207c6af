import { Alert, Badge, Button, Code, Group, Paper, SimpleGrid, Stack, Text, Tooltip } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import type { McpServerResourceView } from '../../../../shared/resources/statuses';
import { LaunchConfirmModal } from '../../components/LaunchConfirmModal';
import { useTRPC } from '../../rpc/client';
import { appErrorOf } from '../../rpc/appError';
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

/**
 * A stdio McpServer the folder declares whose command line the user has not confirmed for this
 * folder is not started: this shows the exact line and confirms it (the status then moves on).
 */
function ConfirmLaunch({ server, line }: { server: string; line: string }) {
  const trpc = useTRPC();
  const confirm = useMutation(trpc.resources.confirmLaunches.mutationOptions());
  const [reviewing, setReviewing] = useState(false);
  return (
    <>
      <Group gap="xs">
        <Button size="xs" color="orange" variant="light" onClick={() => setReviewing(true)} aria-label={`Review the command of ${server}`}>
          Review command…
        </Button>
      </Group>
      {confirm.error && (
        <Alert color="red" variant="light" p="xs">
          {appErrorOf(confirm.error).message}
        </Alert>
      )}
      <LaunchConfirmModal
        lines={reviewing ? [line] : undefined}
        loading={confirm.isPending}
        onCancel={() => setReviewing(false)}
        confirmLabel="Run"
        onConfirm={() => confirm.mutate({ lines: [line] }, { onSettled: () => setReviewing(false) })}
      />
    </>
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
              {status.unconfirmedLaunch && <ConfirmLaunch server={server.name} line={status.unconfirmedLaunch} />}
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
