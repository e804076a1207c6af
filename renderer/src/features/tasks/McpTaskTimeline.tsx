import { Badge, Group, Stack, Text, Timeline } from '@mantine/core';
import type { TaskEvent, TaskStatus } from '../../../../shared/tasks';
import { formatClock } from '../../components/format';

export const TASK_STATUS_COLOR: Record<TaskStatus, string> = {
  working: 'blue',
  input_required: 'yellow',
  completed: 'teal',
  failed: 'red',
  cancelled: 'gray',
};

const STATUS_LABEL: Record<TaskStatus, string> = {
  working: 'working',
  input_required: 'needs input',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

const VIA_LABEL: Record<TaskEvent['via'], string> = {
  created: 'created',
  poll: 'tasks/get',
  notification: 'notification',
  result: 'tasks/result',
  cancel: 'tasks/cancel',
};

export function TaskStatusBadge({ status, size = 'sm' }: { status: TaskStatus; size?: 'xs' | 'sm' | 'md' }) {
  return (
    <Badge color={TASK_STATUS_COLOR[status]} variant="light" size={size}>
      {STATUS_LABEL[status]}
    </Badge>
  );
}

/** An MCP task's status changes in order (A2A tasks have A2aTaskTimeline): when Tooldeck saw each, the status, the server's message and how it was learned. */
export function McpTaskTimeline({ events, label }: { events: readonly TaskEvent[]; label: string }) {
  if (!events.length) return null;
  const start = events[0]!.at;
  return (
    <Timeline active={events.length - 1} bulletSize={14} lineWidth={2} aria-label={label}>
      {events.map((event, i) => (
        <Timeline.Item key={`${event.at}-${i}`} color={TASK_STATUS_COLOR[event.status]} title={<TaskStatusBadge status={event.status} size="xs" />}>
          <Stack gap={0}>
            {event.statusMessage && <Text size="sm">{event.statusMessage}</Text>}
            <Group gap={6}>
              <Text size="xs" c="dimmed" ff="monospace">
                {formatClock(event.at)}
                {i > 0 ? ` (+${((event.at - start) / 1000).toFixed(1)} s)` : ''}
              </Text>
              <Text size="xs" c="dimmed">
                via {VIA_LABEL[event.via]}
              </Text>
            </Group>
          </Stack>
        </Timeline.Item>
      ))}
    </Timeline>
  );
}
