import { Alert, Badge, Button, Center, Code, Group, Loader, Paper, Stack, Table, Text, Textarea, Title, Tooltip, type MantineColor } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconArrowRight, IconCheck, IconClockHour4, IconHandStop, IconRobot, IconX } from '@tabler/icons-react';
import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { ToolApproval } from '../../../../shared/approvals';
import { EmptyState } from '../../components/EmptyState';
import { JsonTree } from '../../components/JsonTree';
import { appErrorOf } from '../../rpc/appError';
import { useTRPC } from '../../rpc/client';
import { useLocation } from '../../shell/useSection';
import { formatTimeLeft, useApprovals, useTickingNow } from './useApprovals';
import { reasonInOrlojWords } from '../../components/verdictWords';

/** As ApprovalDecision allows. */
const MAX_COMMENT_LENGTH = 2000;

const RISK_COLOR: Record<string, MantineColor> = { low: 'gray', medium: 'yellow', high: 'orange', critical: 'red' };
const PHASE_COLOR: Record<ToolApproval['status']['phase'], MantineColor> = { Pending: 'orange', Approved: 'teal', Denied: 'red', Expired: 'gray' };

function localTime(iso: string | undefined): string {
  return iso ? new Date(iso).toLocaleString(undefined, { hour12: false }) : '—';
}

/**
 * Agents' calls the policy held for a person (Orloj ToolApprovals): each with its agent, tool, exact
 * arguments, risk, the rule that held it and the time it has left; Approve lets that one call run
 * once, Deny ends it with the comment. Decided ones follow, newest first.
 */
export function ApprovalsView() {
  const { approvals, error } = useApprovals();
  const pending = approvals?.filter((approval) => approval.status.phase === 'Pending') ?? [];
  const decided = approvals?.filter((approval) => approval.status.phase !== 'Pending') ?? [];
  const now = useTickingNow(pending.length > 0);

  return (
    <Stack gap="lg">
      <div>
        <Title order={2}>Approvals</Title>
        <Text c="dimmed" size="sm" maw={760}>
          Agents&apos; calls the policy holds for a person&apos;s decision. An approval lets exactly one call run, once, with exactly the arguments shown; other arguments need their own.
        </Text>
      </div>
      {error && (
        <Alert color="red" title="Approvals could not be read">
          {error}
        </Alert>
      )}
      {!approvals && !error ? (
        <Center py="xl">
          <Loader aria-label="Loading approvals" />
        </Center>
      ) : (
        <>
          <section aria-label="Waiting for a decision">
            <Title order={4} mb="sm">
              Waiting for a decision ({pending.length})
            </Title>
            {pending.length === 0 ? (
              <EmptyState
                icon={<IconHandStop size={30} />}
                color="gray"
                title="No calls are waiting"
                description="When an agent calls a tool whose ToolPermission says approval_required, the call waits here until you approve or deny it, or its time runs out."
                actions={null}
              />
            ) : (
              <Stack gap="md">
                {pending.map((approval) => (
                  <PendingApproval key={approval.metadata.name} approval={approval} now={now} />
                ))}
              </Stack>
            )}
          </section>
          {decided.length > 0 && (
            <section aria-label="Decided">
              <Title order={4} mb="sm">
                Decided
              </Title>
              <DecidedTable approvals={decided} />
            </section>
          )}
        </>
      )}
    </Stack>
  );
}

function PendingApproval({ approval, now }: { approval: ToolApproval; now: number }) {
  const trpc = useTRPC();
  const [comment, setComment] = useState('');
  const { spec, binding, metadata } = approval;
  const left = Date.parse(approval.status.expires_at) - now;
  const decide = useMutation(
    trpc.approvals.decide.mutationOptions({
      onSuccess: (decided) =>
        notifications.show({
          color: decided.status.phase === 'Approved' ? 'teal' : 'red',
          title: `${decided.status.phase === 'Approved' ? 'Approved' : 'Denied'}: ${decided.spec.tool}`,
          message: decided.status.phase === 'Approved' ? `${decided.spec.agent}'s call runs once.` : `${decided.spec.agent}'s call ends without running.`,
        }),
    }),
  );
  const send = (decision: 'approve' | 'deny') => decide.mutate({ name: metadata.name, decision, ...(comment.trim() ? { comment } : {}) });
  // `?approval=NAME` (a link from Mediation or the Gateway): the card it names is brought into view and outlined.
  const linked = useLocation().params.approval === metadata.name;
  const card = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (linked) card.current?.scrollIntoView?.({ block: 'center' });
  }, [linked]);

  return (
    <Paper ref={card} withBorder radius="md" p="md" role="article" aria-label={`Approval ${metadata.name}`} aria-current={linked ? 'true' : undefined} style={linked ? { outline: '2px solid var(--mantine-color-orange-5)' } : undefined}>
      <Stack gap="sm">
        <Group justify="space-between" align="flex-start" wrap="nowrap">
          <Group gap="xs" wrap="wrap">
            <Group gap={4} wrap="nowrap">
              <IconRobot size={16} stroke={1.6} aria-hidden />
              <Text fw={600} aria-label="Agent">
                {spec.agent}
              </Text>
            </Group>
            <IconArrowRight size={14} aria-hidden color="var(--mantine-color-dimmed)" />
            <Code fz="sm" aria-label="Tool">
              {spec.tool}
            </Code>
            <Badge variant="light" color={RISK_COLOR[binding.risk ?? ''] ?? 'gray'} aria-label="Risk">
              risk: {binding.risk ?? 'unknown'}
            </Badge>
            <Badge variant="outline" color="gray" aria-label="Operation class">
              {spec.operation_class}
            </Badge>
          </Group>
          <Tooltip label={`Expires at ${localTime(approval.status.expires_at)} (ttl ${spec.ttl})`}>
            <Badge size="lg" variant="light" color={left < 60_000 ? 'red' : 'blue'} leftSection={<IconClockHour4 size={14} />} aria-label="Time left">
              {formatTimeLeft(left)} left
            </Badge>
          </Tooltip>
        </Group>
        <Text size="sm">
          <Text span c="dimmed">
            Rule:{' '}
          </Text>
          <span aria-label="Rule">{reasonInOrlojWords(spec.reason)}</span>
        </Text>
        <div>
          <Text size="xs" c="dimmed" mb={4}>
            Arguments
          </Text>
          <Paper withBorder radius="sm" p="xs" bg="var(--mantine-color-default-hover)">
            <JsonTree value={spec.input} label={`Arguments of ${metadata.name}`} expandDepth={3} />
          </Paper>
        </div>
        <Textarea
          label="Comment (optional)"
          description="Kept with the approval; a denial tells the agent."
          autosize
          minRows={1}
          maxRows={4}
          maxLength={MAX_COMMENT_LENGTH}
          value={comment}
          onChange={(event) => setComment(event.currentTarget.value)}
        />
        {decide.error && (
          <Alert color="red" title="Not decided" role="alert">
            {appErrorOf(decide.error).message}
          </Alert>
        )}
        <Group justify="space-between">
          <Text size="xs" c="dimmed">
            {metadata.name} · {spec.task_ref} · held {localTime(metadata.created_at)}
          </Text>
          <Group gap="xs">
            <Button color="red" variant="light" leftSection={<IconX size={16} />} loading={decide.isPending && decide.variables?.decision === 'deny'} disabled={decide.isPending} onClick={() => send('deny')} aria-label={`Deny ${metadata.name}`}>
              Deny
            </Button>
            <Button color="teal" leftSection={<IconCheck size={16} />} loading={decide.isPending && decide.variables?.decision === 'approve'} disabled={decide.isPending} onClick={() => send('approve')} aria-label={`Approve ${metadata.name}`}>
              Approve
            </Button>
          </Group>
        </Group>
      </Stack>
    </Paper>
  );
}

function DecidedTable({ approvals }: { approvals: ToolApproval[] }) {
  return (
    <Table.ScrollContainer minWidth={720}>
      <Table striped aria-label="Decided approvals" verticalSpacing="xs">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Outcome</Table.Th>
            <Table.Th>Agent</Table.Th>
            <Table.Th>Tool</Table.Th>
            <Table.Th>Arguments</Table.Th>
            <Table.Th>By</Table.Th>
            <Table.Th>When</Table.Th>
            <Table.Th>Comment</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {approvals.map((approval) => (
            <Table.Tr key={approval.metadata.name} aria-label={approval.metadata.name}>
              <Table.Td>
                <Badge variant="light" color={PHASE_COLOR[approval.status.phase]}>
                  {approval.status.phase}
                </Badge>
              </Table.Td>
              <Table.Td>{approval.spec.agent}</Table.Td>
              <Table.Td>
                <Code fz="xs">{approval.spec.tool}</Code>
              </Table.Td>
              <Table.Td maw={260}>
                <Text size="xs" ff="monospace" truncate="end" title={JSON.stringify(approval.spec.input)}>
                  {JSON.stringify(approval.spec.input)}
                </Text>
              </Table.Td>
              <Table.Td>{approval.status.decided_by ?? '—'}</Table.Td>
              <Table.Td>
                <Text size="xs">{localTime(approval.status.decided_at ?? approval.status.expires_at)}</Text>
              </Table.Td>
              <Table.Td maw={320}>
                <Text size="xs" lineClamp={2} title={approval.status.comment}>
                  {approval.status.comment ?? ''}
                </Text>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
