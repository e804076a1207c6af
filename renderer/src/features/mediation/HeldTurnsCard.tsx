import { Anchor, Badge, Code, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { IconHandStop } from '@tabler/icons-react';
import type { ToolApproval } from '../../../../shared/approvals';
import { useNavigate } from '../../shell/useSection';
import { formatTimeLeft, useApprovals, useTickingNow } from '../approvals/useApprovals';

/** Where mediation's held calls come from: their approval's task is `mediation/<agent>/<turn>`. */
export function isMediatedHold(approval: ToolApproval): boolean {
  return approval.status.phase === 'Pending' && approval.spec.task_ref.startsWith('mediation/');
}

/**
 * The turns in flight that wait for a person: a mediated turn is listed only once it ends, so
 * without this a turn whose tool call is held showed nothing at all. Each links to its approval.
 */
export function HeldTurnsCard() {
  const navigate = useNavigate();
  const held = (useApprovals().approvals ?? []).filter(isMediatedHold);
  const now = useTickingNow(held.length > 0);
  if (held.length === 0) return null;
  return (
    <Paper withBorder radius="md" p="md" component="section" aria-label="Turns waiting for approval" bg="var(--mantine-color-orange-light)">
      <Group gap="xs" mb="xs">
        <IconHandStop size={18} aria-hidden />
        <Title order={4}>Turns waiting for approval ({held.length})</Title>
      </Group>
      <Text size="sm" c="dimmed" mb="xs">
        A model asked for a tool whose verdict for its agent is approval_required: the turn goes on once the call is decided.
      </Text>
      <Stack gap={6}>
        {held.map((approval) => (
          <Group key={approval.metadata.name} gap="sm" wrap="nowrap" role="group" aria-label={`Held call of ${approval.spec.agent}`}>
            <Text size="sm" fw={600}>
              {approval.spec.agent}
            </Text>
            <Code fz="xs">{approval.spec.tool}</Code>
            <Text size="xs" c="dimmed" truncate="end" style={{ flex: 1, minWidth: 0 }}>
              turn {approval.spec.task_ref.split('/').at(-1)}
            </Text>
            <Badge size="sm" variant="light" color="orange">
              {formatTimeLeft(Date.parse(approval.status.expires_at) - now)} left
            </Badge>
            <Anchor component="button" type="button" size="sm" onClick={() => navigate('approvals', { approval: approval.metadata.name })}>
              Decide in Approvals
            </Anchor>
          </Group>
        ))}
      </Stack>
    </Paper>
  );
}
