import { Badge, Tooltip } from '@mantine/core';
import type { A2aTaskState } from '../../../../shared/a2a';
import { TASK_STATE_STYLE } from './taskStateStyle';

/** A task state by its protocol name, colored, with what it means on hover. */
export function TaskStateBadge({ state, size = 'sm' }: { state: A2aTaskState | undefined; size?: 'xs' | 'sm' | 'md' }) {
  if (!state) {
    return (
      <Badge size={size} variant="light" color="gray">
        UNKNOWN
      </Badge>
    );
  }
  const style = TASK_STATE_STYLE[state];
  return (
    <Tooltip label={style.hint} withArrow>
      <Badge size={size} variant="light" color={style.color} leftSection={<style.icon size={12} aria-hidden />} style={{ flexShrink: 0 }}>
        {state}
      </Badge>
    </Tooltip>
  );
}
