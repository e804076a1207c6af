import { Group, Loader, Text, ThemeIcon, Timeline } from '@mantine/core';
import { isFinalA2aState, type A2aTimelineEntry } from '../../../../shared/a2a';
import { formatClock, formatDuration } from '../../components/format';
import { TaskStateBadge } from './TaskStateBadge';
import { TASK_STATE_STYLE } from './taskStateStyle';

/** An A2A task's timeline (MCP tasks have McpTaskTimeline): each state it went through, in order, with the agent's status text and when it came. */
export function A2aTaskTimeline({ entries, live = false }: { entries: A2aTimelineEntry[]; live?: boolean }) {
  const first = entries[0]?.at;
  const last = entries.at(-1);
  const waiting = live && !isFinalA2aState(last?.state);
  return (
    <Timeline active={entries.length - 1} bulletSize={22} lineWidth={2} role="list" aria-label="Task timeline">
      {entries.map((entry, index) => {
        const style = TASK_STATE_STYLE[entry.state];
        const isLast = index === entries.length - 1;
        return (
          <Timeline.Item
            key={`${index}-${entry.state}-${entry.at}`}
            role="listitem"
            color={style.color}
            lineVariant={isLast && waiting ? 'dashed' : 'solid'}
            bullet={
              isLast && waiting ? (
                <Loader size={12} color="white" aria-hidden />
              ) : (
                <ThemeIcon size={22} radius="xl" color={style.color} variant="filled" aria-hidden>
                  <style.icon size={13} />
                </ThemeIcon>
              )
            }
            title={
              <Group gap={8} justify="space-between" wrap="nowrap">
                <TaskStateBadge state={entry.state} size="sm" />
                <Text size="xs" c="dimmed" ff="monospace" title={new Date(entry.at).toISOString()}>
                  {formatClock(entry.at, 'fixed')}
                  {index > 0 && first !== undefined ? ` · +${formatDuration(entry.at - first)}` : ''}
                </Text>
              </Group>
            }
          >
            {entry.text && (
              <Text size="sm" mt={4} style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
                {entry.text}
              </Text>
            )}
          </Timeline.Item>
        );
      })}
    </Timeline>
  );
}
