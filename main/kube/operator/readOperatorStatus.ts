import type { OperatorDeploymentInfo, OperatorEventInfo, OperatorStatus } from '../../../shared/kubeApi';
import { isKubeApiError } from '../KubeApiError';
import type { KubeRest } from '../KubeRest';
import { listOperatorLeases, OPERATOR_COMPONENT } from './operatorLease';

const EVENT_LIMIT = 50;
const REPORTER = `tooldeck.dev/${OPERATOR_COMPONENT}`;

interface EventObject {
  metadata: { namespace: string };
  type?: string;
  reason?: string;
  note?: string;
  eventTime?: string;
  reportingController?: string;
  reportingInstance?: string;
  series?: { count?: number; lastObservedTime?: string };
  deprecatedLastTimestamp?: string;
  regarding?: { kind?: string; namespace?: string; name?: string };
}

interface DeploymentObject {
  metadata: { namespace: string; name: string };
  spec?: { replicas?: number; template?: { spec?: { containers?: Array<{ image?: string }> } } };
  status?: { readyReplicas?: number };
}

/**
 * The in-cluster operator as the console shows it, from what anyone with read access can see: its
 * Leases (holder, age, renewals and the status the leader writes on them), its Deployment, and the
 * Events it reported. Whatever cannot be read is named in `problems` rather than failing the view.
 */
export async function readOperatorStatus(rest: KubeRest, now = Date.now()): Promise<OperatorStatus> {
  const problems: string[] = [];
  const [leases, deployments, events] = await Promise.all([
    listOperatorLeases(rest),
    readDeployments(rest).catch((error: unknown) => {
      if (!isForbidden(error)) throw error;
      problems.push(`Cannot list operator Deployments: ${(error as Error).message}`);
      return [];
    }),
    readEvents(rest).catch((error: unknown) => {
      if (!isForbidden(error)) throw error;
      problems.push(`Cannot list Events: ${(error as Error).message}`);
      return [];
    }),
  ]);
  if (leases.forbidden) problems.unshift(`Cannot list Leases: ${leases.forbidden}`);
  for (const lease of leases.leases) {
    const ref = `Lease ${lease.namespace}/${lease.name}`;
    if (lease.holder && !lease.held) {
      const since = lease.renewTime ? `${Math.round((now - Date.parse(lease.renewTime)) / 1_000)} s ago` : 'never';
      problems.push(`${ref} expired: ${lease.holder} last renewed it ${since}, so no replica is reconciling`);
    } else if (!lease.holder) problems.push(`${ref} is free: no replica is reconciling (it was released, or none has started yet)`);
    if (lease.held && lease.failingKeys) problems.push(`${lease.failingKeys} object${lease.failingKeys === 1 ? '' : 's'} failing to reconcile (see the Warning events)`);
  }
  return { leases: leases.leases, deployments, events, problems };
}

async function readDeployments(rest: KubeRest): Promise<OperatorDeploymentInfo[]> {
  const list = await rest.request<{ items: DeploymentObject[] }>('GET', '/apis/apps/v1/deployments', { query: { labelSelector: `app.kubernetes.io/name=${OPERATOR_COMPONENT}` } });
  return list.items.map((d) => ({
    namespace: d.metadata.namespace,
    name: d.metadata.name,
    replicas: d.spec?.replicas ?? 1,
    readyReplicas: d.status?.readyReplicas ?? 0,
    ...(d.spec?.template?.spec?.containers?.[0]?.image ? { image: d.spec.template.spec.containers[0].image } : {}),
  }));
}

async function readEvents(rest: KubeRest): Promise<OperatorEventInfo[]> {
  let items: EventObject[];
  try {
    items = (await rest.request<{ items: EventObject[] }>('GET', '/apis/events.k8s.io/v1/events', { query: { fieldSelector: `reportingController=${REPORTER}`, limit: 500 } })).items;
  } catch (error) {
    // Older apiservers do not select events.k8s.io Events by reporter: filter here instead.
    if (!isKubeApiError(error) || error.status !== 400) throw error;
    items = (await rest.request<{ items: EventObject[] }>('GET', '/apis/events.k8s.io/v1/events', { query: { limit: 500 } })).items.filter((e) => e.reportingController === REPORTER);
  }
  return items
    .map((e) => {
      const regarding = e.regarding ?? {};
      return {
        namespace: e.metadata.namespace,
        type: e.type ?? 'Normal',
        reason: e.reason ?? '',
        note: e.note ?? '',
        regarding: `${regarding.kind ?? 'object'} ${regarding.namespace ? `${regarding.namespace}/` : ''}${regarding.name ?? ''}`,
        ...(e.reportingInstance ? { instance: e.reportingInstance } : {}),
        time: e.series?.lastObservedTime ?? e.eventTime ?? e.deprecatedLastTimestamp ?? '',
        count: e.series?.count ?? 1,
      };
    })
    .sort((a, b) => b.time.localeCompare(a.time))
    .slice(0, EVENT_LIMIT);
}

const isForbidden = (error: unknown) => isKubeApiError(error) && error.status === 403;
