import { Badge, Tooltip } from '@mantine/core';
import type { KubeConnectionState, KubeStatus } from '../../../../shared/kubeApi';

const COLORS: Record<KubeConnectionState, string> = { connected: 'teal', unreachable: 'red', error: 'red', unconfigured: 'gray' };
const LABELS: Record<KubeConnectionState, string> = { connected: 'Connected', unreachable: 'Unreachable', error: 'Error', unconfigured: 'Not configured' };

export function ClusterStatusBadge({ status }: { status: KubeStatus | undefined }) {
  const state = status?.state ?? 'unconfigured';
  const badge = (
    <Badge color={status ? COLORS[state] : 'gray'} variant="dot" size="md" aria-label={`Cluster: ${status ? LABELS[state] : 'Checking'}`}>
      {status ? LABELS[state] : 'Checking'}
      {status?.version ? ` · ${status.version}` : ''}
    </Badge>
  );
  const detail = [status?.server, status?.message, status?.crdsInstalled === false ? 'The langop.io CRDs are not installed: run tooldeck kube install (CRDs and the in-cluster operator) or tooldeck kube reconcile once.' : undefined].filter(Boolean).join(' — ');
  return detail ? (
    <Tooltip label={detail} multiline maw={420} withArrow>
      {badge}
    </Tooltip>
  ) : (
    badge
  );
}
