import { Badge, Tooltip } from '@mantine/core';
import type { InvocationRecord } from '../../../../shared/invocation';

interface StatusLook {
  label: string;
  color: string;
  description: string;
}

/** How a call ended, told apart the way an operator needs it: a tool-level isError is not a transport failure. */
export function statusLook(record: Pick<InvocationRecord, 'status' | 'isError' | 'errorCode'>): StatusLook {
  switch (record.status) {
    case 'ok':
      return { label: 'OK', color: 'teal', description: 'Succeeded' };
    case 'timeout':
      return { label: 'Timeout', color: 'yellow', description: 'Timed out' };
    case 'canceled':
      return { label: 'Canceled', color: 'gray', description: 'Canceled before it finished' };
    case 'denied':
      return { label: 'Denied', color: 'orange', description: 'Denied by policy' };
    case 'error':
      if (record.isError) return { label: 'isError', color: 'pink', description: 'The tool ran and reported an error' };
      return { label: record.errorCode ?? 'Error', color: 'red', description: 'Failed before the tool could answer' };
  }
}

export function CallStatusBadge({ record, size = 'sm' }: { record: Pick<InvocationRecord, 'status' | 'isError' | 'errorCode'>; size?: 'xs' | 'sm' | 'md' }) {
  const look = statusLook(record);
  return (
    <Tooltip label={look.description} withArrow openDelay={400}>
      <Badge size={size} variant="light" color={look.color} tt="none" maw="100%" style={{ flexShrink: 1 }}>
        {look.label}
      </Badge>
    </Tooltip>
  );
}
