import { ActionIcon, Badge, Code, Stack, Switch, Table, Text, Tooltip } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { Fragment, useState } from 'react';
import type { GatewayReplicaInfo, GatewayReplicasStatus } from '../../../../shared/kubeApi';
import { ClusterPanel, Problems } from './ClusterPanel';
import { formatAge } from './formatAge';
import { useKubeTRPC } from './useKubeTRPC';

const COUNT_COLUMNS = ['Calls', 'Errors', 'Held now', 'Approved / refused', 'Rate-limited'] as const;

/** How often the live view reads every replica's /metrics again (one proxied GET per replica). */
export const GATEWAY_POLL_MS = 5_000;

/**
 * The gateway in the cluster (`tooldeck kube install --gateway`), one row per replica: the calls it
 * served, how many failed, how many wait for a person now — and under it, the same per agent. Read
 * from each replica's /metrics through the API server; a replica that cannot be read says why.
 * Polled while Live is on: counters only move, so a watch would add nothing.
 */
export function GatewayPanel({ now }: { now?: number }) {
  const kube = useKubeTRPC();
  const [live, setLive] = useState(true);
  const gateway = useQuery({ ...kube.gateway.queryOptions(), refetchInterval: live ? GATEWAY_POLL_MS : false });
  const actions = (
    <>
      <Switch size="xs" label="Live" checked={live} onChange={(event) => setLive(event.currentTarget.checked)} aria-label="Read the replicas' metrics every 5 seconds" />
      <Tooltip label="Read every replica's metrics now" withArrow>
        <ActionIcon variant="subtle" aria-label="Refresh the gateway replicas" onClick={() => void gateway.refetch()} disabled={gateway.isFetching}>
          <IconRefresh size={16} />
        </ActionIcon>
      </Tooltip>
    </>
  );
  return (
    <ClusterPanel label="Gateway replicas" title="Gateway" noun="gateway replicas" query={gateway} actions={actions}>
      {(status) => <GatewayDetail status={status} now={now} />}
    </ClusterPanel>
  );
}

function GatewayDetail({ status, now }: { status: GatewayReplicasStatus; now?: number }) {
  if (status.deployments.length === 0 && status.replicas.length === 0) {
    return (
      <Stack gap={4}>
        <Text size="sm" c="dimmed">
          No gateway runs in this cluster: agents reach their tools directly, with no policy, approvals or record in between.
        </Text>
        <Text size="sm" c="dimmed">
          Install one with <Code>tooldeck kube install --gateway</Code> (or the Helm chart with <Code>gateway.enabled=true</Code>); each replica's calls, errors and held calls show here.
        </Text>
        {status.problems.length > 0 && <Problems problems={status.problems} />}
      </Stack>
    );
  }
  return (
    <Stack gap="sm">
      {status.deployments.map((d) => (
        <Text key={`${d.namespace}/${d.name}`} size="xs" c="dimmed">
          Deployment {d.namespace}/{d.name}: {d.readyReplicas}/{d.replicas} ready{d.image ? ` · ${d.image}` : ''}
        </Text>
      ))}
      {status.problems.length > 0 && <Problems problems={status.problems} />}
      {status.replicas.length === 0 ? (
        <Text size="sm" c="dimmed">
          No gateway pods yet.
        </Text>
      ) : (
        <Table aria-label="Gateway traffic per replica" verticalSpacing={4} fz="sm">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Replica / agent</Table.Th>
              <Table.Th w={90}>Ready</Table.Th>
              {COUNT_COLUMNS.map((column) => (
                <Table.Th key={column} ta="right" style={{ whiteSpace: 'nowrap' }}>
                  {column}
                </Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {status.replicas.map((replica) => (
              <ReplicaRows key={`${replica.namespace}/${replica.pod}`} replica={replica} now={now} />
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}

function ReplicaRows({ replica, now }: { replica: GatewayReplicaInfo; now?: number }) {
  const { traffic } = replica;
  const decided = replica.agents.reduce((sum, agent) => ({ approved: sum.approved + agent.approved, refused: sum.refused + agent.refused }), { approved: 0, refused: 0 });
  return (
    <Fragment>
      <Table.Tr aria-label={`Replica ${replica.pod}`}>
        <Table.Td>
          <Text size="sm" fw={600} span>
            {replica.pod}
          </Text>
          <Text size="xs" c="dimmed" span>
            {' '}
            {replica.namespace}
            {replica.startedAt ? ` · up ${formatAge(replica.startedAt, now)}` : ''}
          </Text>
        </Table.Td>
        <Table.Td>
          <Badge size="sm" variant="light" color={replica.ready ? 'teal' : replica.phase === 'Running' ? 'orange' : 'gray'}>
            {replica.ready ? 'Ready' : replica.phase === 'Running' ? 'Not ready' : replica.phase}
          </Badge>
        </Table.Td>
        {traffic ? (
          <>
            <Count label="Calls" value={traffic.calls} />
            <Count label="Errors" value={traffic.errors} color={traffic.errors > 0 ? 'red' : undefined} />
            <Count label="Held now" value={traffic.held} color={traffic.held > 0 ? 'orange' : undefined} />
            <Decided approved={decided.approved} refused={decided.refused} />
            <Count label="Rate-limited" value={traffic.rateLimited} />
          </>
        ) : (
          <Table.Td colSpan={5}>
            <Text size="xs" c="orange" aria-label="Problem">
              {replica.problem ?? 'No metrics.'}
            </Text>
          </Table.Td>
        )}
      </Table.Tr>
      {traffic && replica.agents.length === 0 && (
        <Table.Tr>
          <Table.Td colSpan={7} pl="xl">
            <Text size="xs" c="dimmed">
              No agent has called through this replica since it started.
            </Text>
          </Table.Td>
        </Table.Tr>
      )}
      {replica.agents.map((agent) => (
        <Table.Tr key={agent.agent} aria-label={`Agent ${agent.agent} on ${replica.pod}`}>
          <Table.Td pl="xl">
            <Text size="sm" span>
              {agent.agent}
            </Text>
          </Table.Td>
          <Table.Td />
          <Count label="Calls" value={agent.calls} />
          <Count label="Errors" value={agent.errors} color={agent.errors > 0 ? 'red' : undefined} />
          <Count label="Held now" value={agent.held} color={agent.held > 0 ? 'orange' : undefined} />
          <Decided approved={agent.approved} refused={agent.refused} />
          <Count label="Rate-limited" value={agent.rateLimited} />
        </Table.Tr>
      ))}
    </Fragment>
  );
}

/** Held calls whose approval ended: approved (they ran) / refused (denied, expired, canceled: they did not). */
function Decided({ approved, refused }: { approved: number; refused: number }) {
  return (
    <Table.Td ta="right" aria-label="Approved / refused">
      <Text size="sm" span ff="monospace" style={{ whiteSpace: 'nowrap' }}>
        {approved.toLocaleString('en-US')} / {refused.toLocaleString('en-US')}
      </Text>
    </Table.Td>
  );
}

function Count({ label, value, color }: { label: string; value: number; color?: string }) {
  return (
    <Table.Td ta="right" aria-label={label}>
      <Text size="sm" span c={color} ff="monospace">
        {value.toLocaleString('en-US')}
      </Text>
    </Table.Td>
  );
}

