import { Badge, Tooltip } from '@mantine/core';
import type { LiveStatus } from '../history/useLiveCalls';
import classes from './LiveBadge.module.css';

export interface LiveBadgeProps {
  status: LiveStatus;
  /** False when the chosen range ends in the past, so new calls cannot change the view. */
  applies?: boolean;
}

/** "Live" while new calls stream in over `history.live`; says why when they do not. */
export function LiveBadge({ status, applies = true }: LiveBadgeProps) {
  const state = !applies
    ? { label: 'Paused', color: 'gray', tip: 'The range ends in the past; new calls do not change this view.' }
    : status === 'pending'
      ? { label: 'Live', color: 'teal', tip: 'Calls made through this app appear as they are recorded.' }
      : status === 'error'
        ? { label: 'Offline', color: 'red', tip: 'The live feed dropped; it reconnects on its own. Refresh to catch up.' }
        : { label: 'Connecting', color: 'gray', tip: 'Connecting to the live feed…' };
  const live = state.label === 'Live';
  return (
    <Tooltip label={state.tip} withArrow multiline maw={280}>
      <Badge
        variant="light"
        color={state.color}
        size="lg"
        radius="sm"
        tt="none"
        aria-label={`Live updates: ${state.label}`}
        leftSection={<span aria-hidden className={`${classes.dot} ${live ? classes.pulse : ''}`} style={{ background: `var(--mantine-color-${state.color}-6)` }} />}
      >
        {state.label}
      </Badge>
    </Tooltip>
  );
}
