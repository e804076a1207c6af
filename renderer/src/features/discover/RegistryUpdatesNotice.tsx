import { Alert, Anchor, List } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '../../rpc/client';
import { useNavigate } from '../../shell/useSection';

/** Asked of each registry at most every ten minutes while a view shows it. */
const UPDATES_STALE_MS = 10 * 60_000;

/**
 * Saved servers installed from a registry that now publishes a newer version, with the way to the
 * Discover section. Shown by the Servers view and the Discover section; nothing when all are current.
 */
export function RegistryUpdatesNotice() {
  const trpc = useTRPC();
  const navigate = useNavigate();
  const updates = useQuery({ ...trpc.mcpRegistry.updates.queryOptions(), staleTime: UPDATES_STALE_MS });
  if (!updates.data?.length) return null;
  return (
    <Alert color="blue" title="Newer versions published" aria-label="Newer versions">
      <List size="sm">
        {updates.data.map((update) => (
          <List.Item key={update.server}>
            {update.server}: {update.origin.version} → {update.latest} ({update.origin.name})
          </List.Item>
        ))}
      </List>
      <Anchor component="button" size="sm" onClick={() => navigate('discover')}>
        Open Discover
      </Anchor>
    </Alert>
  );
}
