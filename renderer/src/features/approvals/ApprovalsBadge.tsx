import { Badge } from '@mantine/core';
import { pendingCount, useApprovals } from './useApprovals';

/** The navigation's count of calls waiting for a decision; nothing when none wait. */
export function ApprovalsBadge() {
  const count = pendingCount(useApprovals().approvals);
  if (count === 0) return null;
  return (
    <Badge size="sm" circle={count < 10} color="orange" variant="filled" aria-label={`${count} waiting for a decision`}>
      {count}
    </Badge>
  );
}
