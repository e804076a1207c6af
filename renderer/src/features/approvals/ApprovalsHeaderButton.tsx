import { Badge, Button } from '@mantine/core';
import { IconHandStop } from '@tabler/icons-react';
import { useNavigate } from '../../shell/useSection';
import { pendingCount, useApprovals } from './useApprovals';

/**
 * The header's way to the inbox, on every section: a held call must never wait unseen, whichever
 * section the operator is in. Orange with the count while calls wait; quiet otherwise.
 */
export function ApprovalsHeaderButton() {
  const navigate = useNavigate();
  const count = pendingCount(useApprovals().approvals);
  return (
    <Button
      size="xs"
      variant={count > 0 ? 'light' : 'subtle'}
      color={count > 0 ? 'orange' : 'gray'}
      leftSection={<IconHandStop size={14} />}
      rightSection={
        count > 0 ? (
          <Badge size="xs" circle={count < 10} color="orange" variant="filled">
            {count}
          </Badge>
        ) : undefined
      }
      aria-label={count > 0 ? `Approvals: ${count} waiting for a decision` : 'Approvals: none waiting'}
      onClick={() => navigate('approvals')}
    >
      Approvals
    </Button>
  );
}
