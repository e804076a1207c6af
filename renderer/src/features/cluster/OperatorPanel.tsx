import { Badge, Code, Group, SimpleGrid, Stack, Table, Text, Tooltip } from '@mantine/core';
import { IconCrown } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import type { OperatorDeploymentInfo, OperatorLeaseInfo, OperatorStatus } from '../../../../shared/kubeApi';
import { ClusterPanel, Problems } from './ClusterPanel';
import { formatAge } from './formatAge';
import { useKubeTRPC } from './useKubeTRPC';

const EVENTS_SHOWN = 8;

/**
 * The in-cluster operator (`tooldeck operator`) seen from the console: who leads, for how long and
 * how often it renewed, how many replicas stand by, when it last reconciled, what it reported.
 * Polled: Leases renew every couple of seconds, so a watch would only add churn.
 */
export function OperatorPanel({ now }: { now?: number }) {
  const kube = useKubeTRPC();
  const operator = useQuery({ ...kube.operator.queryOptions(), refetchInterval: 5_000 });
  return (
    <ClusterPanel label="In-cluster operator" title="In-cluster operator" noun="operator" query={operator}>
      {(status) => <OperatorDetail status={status} now={now} />}
    </ClusterPanel>
  );
}

function OperatorDetail({ status, now }: { status: OperatorStatus; now?: number }) {
  if (status.leases.length === 0 && status.deployments.length === 0) {
    return (
      <Stack gap={4}>
        <Text size="sm" c="dimmed">
          No operator runs in this cluster: LanguageTools are reconciled only while someone runs <Code>tooldeck kube reconcile</Code>.
        </Text>
        <Text size="sm" c="dimmed">
          Install one with <Code>tooldeck kube install</Code> (or the Helm chart in <Code>deploy/helm/tooldeck-operator</Code>) to keep reconciling when this machine sleeps.
        </Text>
        {status.problems.length > 0 && <Problems problems={status.problems} />}
      </Stack>
    );
  }
  return (
    <Stack gap="sm">
      {status.leases.map((lease) => (
        <LeaseSummary key={`${lease.namespace}/${lease.name}`} lease={lease} deployment={status.deployments.find((d) => d.namespace === lease.namespace)} now={now} />
      ))}
      {status.leases.length === 0 &&
        status.deployments.map((d) => (
          <Text key={`${d.namespace}/${d.name}`} size="sm">
            Deployment {d.namespace}/{d.name}: {d.readyReplicas}/{d.replicas} ready, no Lease yet (no replica has started campaigning).
          </Text>
        ))}
      {status.problems.length > 0 && <Problems problems={status.problems} />}
      <EventsTable events={status.events} now={now} />
    </Stack>
  );
}

function LeaseSummary({ lease, deployment, now }: { lease: OperatorLeaseInfo; deployment?: OperatorDeploymentInfo; now?: number }) {
  const state = lease.held ? { color: 'teal', label: 'Leading' } : lease.holder ? { color: 'red', label: 'Lease expired' } : { color: 'gray', label: 'No leader' };
  return (
    <Stack gap={6}>
      <Group gap="xs">
        <IconCrown size={16} aria-hidden />
        <Text fw={600} size="sm" aria-label="Leader">
          {lease.holder ?? 'nobody'}
        </Text>
        <Badge color={state.color} variant="light" size="sm">
          {state.label}
        </Badge>
        <Text size="xs" c="dimmed">
          Lease {lease.namespace}/{lease.name}
          {lease.version ? ` · operator ${lease.version}` : ''} · reconciles {lease.scope ? lease.scope.join(', ') : 'all namespaces'}
        </Text>
      </Group>
      <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }} spacing="xs" verticalSpacing={4}>
        <Stat label="Held for" value={lease.held ? formatAge(lease.acquireTime, now) : '-'} hint={lease.acquireTime} />
        <Stat label="Renewals" value={lease.renewals !== undefined ? String(lease.renewals) : '-'} hint={lease.renewTime ? `last ${formatAge(lease.renewTime, now)} ago` : undefined} />
        <Stat label="Handovers" value={String(lease.transitions)} />
        <Stat label="Replicas ready" value={deployment ? `${deployment.readyReplicas}/${deployment.replicas}` : '-'} hint={deployment?.image} />
        <Stat label="Last reconcile" value={lease.lastReconcile ? `${formatAge(lease.lastReconcile, now)} ago` : '-'} hint={lease.lastReconcile} />
        <Stat label="Failing" value={lease.failingKeys !== undefined ? String(lease.failingKeys) : '-'} />
      </SimpleGrid>
    </Stack>
  );
}

function Stat({ label, value, hint }: { label: string; value: string; hint?: string }) {
  const body = (
    <div>
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="sm" fw={500} aria-label={label}>
        {value}
      </Text>
    </div>
  );
  return hint ? (
    <Tooltip label={hint} withArrow>
      {body}
    </Tooltip>
  ) : (
    body
  );
}

function EventsTable({ events, now }: { events: OperatorStatus['events']; now?: number }) {
  if (events.length === 0)
    return (
      <Text size="xs" c="dimmed">
        No Events from the operator yet.
      </Text>
    );
  return (
    <Table aria-label="Operator events" verticalSpacing={4} fz="xs">
      <Table.Thead>
        <Table.Tr>
          <Table.Th w={56}>Age</Table.Th>
          <Table.Th w={96}>Type</Table.Th>
          <Table.Th>Reason</Table.Th>
          <Table.Th>Object</Table.Th>
          <Table.Th>Message</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {events.slice(0, EVENTS_SHOWN).map((event, i) => (
          <Table.Tr key={`${event.time}-${event.regarding}-${event.reason}-${i}`}>
            <Table.Td>{formatAge(event.time, now)}</Table.Td>
            <Table.Td>
              <Badge size="xs" variant="light" color={event.type === 'Warning' ? 'orange' : 'gray'}>
                {event.type}
              </Badge>
            </Table.Td>
            <Table.Td>
              {event.reason}
              {event.count > 1 ? ` ×${event.count}` : ''}
            </Table.Td>
            <Table.Td>{event.regarding}</Table.Td>
            <Table.Td>
              <Text fz="xs" lineClamp={2}>
                {event.note}
              </Text>
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
