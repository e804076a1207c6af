import { Button, Group, Paper, Progress, Stack, Text } from '@mantine/core';
import { IconPlayerStop } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { formatDuration } from '../../components/format';
import type { InvocationProgress } from '../../../../shared/registry';
import type { TaskEvent } from '../../../../shared/tasks';
import { TaskStatusBadge, McpTaskTimeline } from '../tasks/McpTaskTimeline';

/** A running task-augmented call: its task and the status changes so far. */
export interface RunningTask {
  taskId: string;
  events: TaskEvent[];
}

export interface RunStatusProps {
  startedAt: number;
  progress?: InvocationProgress;
  task?: RunningTask;
  onCancel: () => void;
}

function formatElapsed(ms: number): string {
  return ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : formatDuration(ms);
}

function Elapsed({ since }: { since: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(timer);
  }, []);
  return (
    <Text size="sm" ff="monospace" c="dimmed" aria-label="Elapsed time">
      {formatElapsed(Math.max(0, now - since))}
    </Text>
  );
}

/** A running call: progress (determinate once the tool gives a total), its message, elapsed time, Cancel. */
export function RunStatus({ startedAt, progress, task, onCancel }: RunStatusProps) {
  const latest = task?.events.at(-1);
  const total = progress?.total;
  const determinate = progress !== undefined && total !== undefined && total > 0;
  const percent = determinate ? Math.min(100, Math.max(0, (progress.progress / total) * 100)) : 100;
  const detail = determinate
    ? `${progress.progress.toLocaleString()} of ${total.toLocaleString()} (${Math.round(percent)}%)`
    : progress
      ? `${progress.progress.toLocaleString()} so far`
      : undefined;

  return (
    <Paper withBorder radius="md" p="md">
      <Stack gap={8}>
        <Group justify="space-between" wrap="nowrap">
          <Group gap="xs" wrap="nowrap">
            {latest && <TaskStatusBadge status={latest.status} />}
            <Text size="sm" fw={500} lineClamp={2} aria-live="polite">
              {progress?.message ?? latest?.statusMessage ?? (latest?.status === 'input_required' ? 'The task needs your input' : task ? 'Task running…' : progress ? 'Working…' : 'Waiting for the tool…')}
            </Text>
          </Group>
          <Group gap="md" wrap="nowrap">
            {detail && (
              <Text size="sm" c="dimmed">
                {detail}
              </Text>
            )}
            <Elapsed since={startedAt} />
            <Button size="xs" variant="light" color="red" leftSection={<IconPlayerStop size={14} aria-hidden />} onClick={onCancel}>
              Cancel
            </Button>
          </Group>
        </Group>
        <Progress.Root size="sm" role="progressbar" aria-label="Progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={determinate ? Math.round(percent) : undefined} aria-valuetext={detail}>
          <Progress.Section value={percent} animated={!determinate} striped={!determinate} withAria={false} />
        </Progress.Root>
        {task && (
          <>
            <Text size="xs" c="dimmed">
              Task <Text span ff="monospace" size="xs">{task.taskId}</Text>
            </Text>
            <McpTaskTimeline events={task.events} label={`Timeline of task ${task.taskId}`} />
          </>
        )}
      </Stack>
    </Paper>
  );
}
