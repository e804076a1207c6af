import { Badge, Button, Group, Paper, Stack, Text } from '@mantine/core';
import { IconPlayerStop, IconRefresh, IconRobot, IconUser } from '@tabler/icons-react';
import { isTerminalA2aState, type A2aTaskView } from '../../../../shared/a2a';
import { CopyButton } from '../../components/CopyButton';
import { ArtifactsView } from './ArtifactsView';
import { formatStamp } from './display';
import { PartView } from './PartView';
import { TaskStateBadge } from './TaskStateBadge';

/** A task as the agent reports it: state, status text, artifacts and message history. */
export function TaskDetails({
  task,
  onRefresh,
  refreshing,
  onCancel,
  canceling,
}: {
  task: A2aTaskView;
  onRefresh: () => void;
  refreshing: boolean;
  onCancel: () => void;
  canceling: boolean;
}) {
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label={`Task ${task.id}`}>
      <Stack gap="md">
        <Group justify="space-between" align="flex-start">
          <div style={{ minWidth: 0 }}>
            <Group gap={6}>
              <Text fw={700}>Task</Text>
              <Text ff="monospace" size="sm" style={{ overflowWrap: 'anywhere' }}>
                {task.id}
              </Text>
              <CopyButton value={task.id} label="Copy task id" size="xs" />
              <TaskStateBadge state={task.state} size="md" />
            </Group>
            <Group gap={6} mt={2}>
              <Text size="xs" c="dimmed" ff="monospace">
                context {task.contextId}
              </Text>
              {task.updatedAt && (
                <Text size="xs" c="dimmed">
                  · updated {formatStamp(task.updatedAt)}
                </Text>
              )}
            </Group>
          </div>
          <Group gap="xs">
            <Button size="xs" variant="default" leftSection={<IconRefresh size={14} />} onClick={onRefresh} loading={refreshing}>
              Refresh
            </Button>
            {!isTerminalA2aState(task.state) && (
              <Button size="xs" color="red" variant="light" leftSection={<IconPlayerStop size={14} />} onClick={onCancel} loading={canceling}>
                Cancel task
              </Button>
            )}
          </Group>
        </Group>
        {task.statusText && (
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {task.statusText}
          </Text>
        )}
        <div>
          <Text size="xs" tt="uppercase" fw={700} c="dimmed" mb={8}>
            Artifacts ({task.artifacts.length})
          </Text>
          <ArtifactsView artifacts={task.artifacts} emptyText={isTerminalA2aState(task.state) ? 'The task produced no artifacts.' : 'No artifacts yet.'} />
        </div>
        <div>
          <Text size="xs" tt="uppercase" fw={700} c="dimmed" mb={8}>
            History ({task.history.length})
          </Text>
          <Stack gap={6}>
            {task.history.map((message, i) => (
              <Group key={message.messageId || i} gap={8} align="flex-start" wrap="nowrap">
                <Badge
                  size="sm"
                  variant="light"
                  color={message.role === 'user' ? 'indigo' : 'grape'}
                  leftSection={message.role === 'user' ? <IconUser size={12} /> : <IconRobot size={12} />}
                  style={{ flexShrink: 0 }}
                >
                  {message.role}
                </Badge>
                <Stack gap={4} style={{ minWidth: 0 }}>
                  {message.text && (
                    <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                      {message.text}
                    </Text>
                  )}
                  {message.parts
                    .filter((p) => p.kind !== 'text')
                    .map((part, j) => (
                      <PartView key={j} part={part} />
                    ))}
                </Stack>
              </Group>
            ))}
            {task.history.length === 0 && (
              <Text size="sm" c="dimmed">
                The agent returned no history.
              </Text>
            )}
          </Stack>
        </div>
      </Stack>
    </Paper>
  );
}
