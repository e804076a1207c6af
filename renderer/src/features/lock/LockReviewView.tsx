import { Alert, Badge, Box, Center, Code, Group, Loader, Paper, ScrollArea, SegmentedControl, Stack, Text, Tooltip, UnstyledButton } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconAlertTriangle, IconLock } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import type { NewSourcesPolicy, SourceReview } from '../../../../shared/lock';
import { useTRPC } from '../../rpc/client';
import { appErrorOf } from '../../rpc/appError';
import { DefinitionHistoryPanel } from './DefinitionHistoryPanel';
import { useLockStatus } from './useLock';

/**
 * Every source's tool definitions against tooldeck.lock: which are held for review and why, the
 * setting for sources the lock does not know yet, and per source its history and diffs.
 */
export function LockReviewView({ selected, onSelect }: { selected?: string; onSelect: (source: string) => void }) {
  const { status, error } = useLockStatus();
  const trpc = useTRPC();
  const setPolicy = useMutation(
    trpc.lock.setNewSources.mutationOptions({ onError: (failure) => notifications.show({ color: 'red', title: 'tooldeck.lock not changed', message: appErrorOf(failure).message }) }),
  );
  if (error) return <Alert color="red">{error}</Alert>;
  if (!status) {
    return (
      <Center py="xl">
        <Loader aria-label="Loading tooldeck.lock" />
      </Center>
    );
  }
  const sources = [...status.sources].sort((a, b) => b.held - a.held || a.source.localeCompare(b.source));
  const current = sources.find((source) => source.source === selected) ?? sources[0];
  return (
    <Stack gap="md">
      <Paper withBorder p="sm">
        <Group justify="space-between" wrap="wrap">
          <Group gap="xs">
            <IconLock size={18} />
            <Text size="sm" ff="monospace">
              {status.file}
            </Text>
            {!status.exists && (
              <Badge variant="outline" size="sm">
                not written yet
              </Badge>
            )}
          </Group>
          <Group gap="xs">
            <Text size="sm">Sources not in the lock:</Text>
            <Tooltip label="Trust on first use writes a new source's first definitions into the lock; hold keeps every tool of it held until someone approves it." multiline maw={340}>
              <SegmentedControl
                size="xs"
                value={status.newSources}
                onChange={(value) => setPolicy.mutate({ policy: value as NewSourcesPolicy })}
                data={[
                  { value: 'trust-on-first-use', label: 'Trust on first use' },
                  { value: 'hold', label: 'Hold for review' },
                ]}
                aria-label="Sources not in the lock"
                disabled={!!status.error}
              />
            </Tooltip>
          </Group>
        </Group>
        {status.error && (
          <Alert mt="sm" color="red" icon={<IconAlertTriangle size={18} />} title="tooldeck.lock cannot be used">
            <Text size="sm">{status.error}</Text>
            <Text size="xs" mt={4}>
              Every tool of every source is held until the file is fixed; nothing is written over it.
            </Text>
          </Alert>
        )}
      </Paper>
      {sources.length === 0 ? (
        <Text c="dimmed" size="sm">
          No sources yet: connect a server, agent or service and its definitions are recorded here.
        </Text>
      ) : (
        <Group align="flex-start" gap="lg" wrap="nowrap">
          <Paper withBorder w={280} p={6} style={{ flexShrink: 0 }}>
            <ScrollArea.Autosize mah="calc(100vh - 300px)">
              <Stack gap={2} role="list" aria-label="Sources">
                {sources.map((source) => (
                  <SourceRow key={source.source} source={source} active={source.source === current?.source} onClick={() => onSelect(source.source)} />
                ))}
              </Stack>
            </ScrollArea.Autosize>
          </Paper>
          <Box style={{ flex: 1, minWidth: 0 }}>
            {current && (
              <Stack gap="xs">
                <Group gap="xs">
                  <Code fz="md">{current.source}</Code>
                  {!current.live && (
                    <Badge variant="outline" color="gray" size="sm">
                      not connected: last revision shown
                    </Badge>
                  )}
                </Group>
                {current.card && (current.card.undeclared.length > 0 || current.card.missing.length > 0) && (
                  <Alert color="orange" icon={<IconAlertTriangle size={18} />} title="It lists other tools than its Server Card declared" aria-label="Server Card claims">
                    <Text size="sm">
                      Installed from a registry with a Server Card declaring {current.card.declared} tool{current.card.declared === 1 ? '' : 's'}.
                      {current.card.undeclared.length > 0 && ` Listed but never declared: ${current.card.undeclared.join(', ')}.`}
                      {current.card.missing.length > 0 && ` Declared but not listed: ${current.card.missing.join(', ')}.`}
                    </Text>
                  </Alert>
                )}
                <DefinitionHistoryPanel key={current.source} source={current.source} />
              </Stack>
            )}
          </Box>
        </Group>
      )}
    </Stack>
  );
}

function SourceRow({ source, active, onClick }: { source: SourceReview; active: boolean; onClick: () => void }) {
  return (
    <UnstyledButton role="listitem" aria-current={active || undefined} aria-label={source.source} onClick={onClick} px="sm" py={6} style={{ borderRadius: 6, background: active ? 'var(--mantine-color-default-hover)' : undefined }}>
      <Group justify="space-between" wrap="nowrap" gap="xs">
        <div style={{ minWidth: 0 }}>
          <Text size="sm" fw={600} ff="monospace" truncate>
            {source.source}
          </Text>
          <Text size="xs" c="dimmed">
            {source.tools.length} tools{source.locked ? '' : ' · not in the lock'}
            {source.live ? '' : ' · offline'}
          </Text>
        </div>
        {source.held > 0 ? (
          <Badge color="orange" size="sm" variant="filled">
            {source.held} held
          </Badge>
        ) : (
          <Badge color="teal" size="sm" variant="light">
            ok
          </Badge>
        )}
      </Group>
    </UnstyledButton>
  );
}
