import { Alert, Text } from '@mantine/core';
import { IconDatabaseExclamation } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../../rpc/client';

/** How often the banner asks whether history is being written: a full disk shows up within this. */
const HEALTH_POLL_MS = 15_000;

/**
 * A banner over every section when the invocation history is not what the operator expects: the
 * file was unusable and moved aside (the message says where to, so it can be inspected), history is kept in memory
 * for this session only, or recent calls are not being written. Dismissed per message.
 */
export function HistoryStoreNotice() {
  const trpc = useTRPC();
  const { data } = useQuery({ ...trpc.history.status.queryOptions(), refetchInterval: HEALTH_POLL_MS });
  const [dismissed, setDismissed] = useState<string>();
  if (!data) return null;
  const { open, health } = data;
  const lines: string[] = [];
  if (open.recovered || !open.persistent) lines.push(open.message);
  if (!health.ok && health.lastError) {
    lines.push(`Recent calls are not being written: ${health.lastError.message}${health.pendingRows ? ` (${health.pendingRows} waiting)` : ''}.`);
  }
  if (health.droppedRows) lines.push(`${health.droppedRows} call record${health.droppedRows === 1 ? ' was' : 's were'} lost this session.`);
  const key = lines.join('\n');
  if (!lines.length || dismissed === key) return null;
  return (
    <Alert
      color="yellow"
      variant="light"
      mb="md"
      icon={<IconDatabaseExclamation size={18} />}
      title="Invocation history"
      withCloseButton
      closeButtonLabel="Dismiss"
      onClose={() => setDismissed(key)}
    >
      {lines.map((line) => (
        <Text key={line} size="sm">
          {line}
        </Text>
      ))}
    </Alert>
  );
}
