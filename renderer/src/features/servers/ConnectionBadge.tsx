import { Badge, Tooltip } from '@mantine/core';
import type { ConnectionState } from '../../../../shared/mcp';

const COLORS: Record<ConnectionState['status'], string> = { ready: 'teal', connecting: 'yellow', error: 'red', closed: 'gray' };
const LABELS: Record<ConnectionState['status'], string> = { ready: 'Connected', connecting: 'Connecting', error: 'Error', closed: 'Disconnected' };

export function ConnectionBadge({ state, size = 'sm' }: { state: ConnectionState; size?: 'xs' | 'sm' | 'md' }) {
  const retry = state.nextRetryAt && state.status === 'error' ? ` · retrying in ${Math.max(0, Math.round((state.nextRetryAt - Date.now()) / 1000))}s` : '';
  const badge = (
    <Badge color={COLORS[state.status]} variant="dot" size={size} aria-label={`Status: ${LABELS[state.status]}`}>
      {LABELS[state.status]}
      {state.step ? ` · ${state.step}` : ''}
      {state.status === 'ready' && state.listing ? ' · listing tools' : ''}
    </Badge>
  );
  return state.message ? (
    <Tooltip label={`${state.message}${retry}`} multiline maw={420} withArrow>
      {badge}
    </Tooltip>
  ) : (
    badge
  );
}
