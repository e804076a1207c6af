import { isKubeApiError } from '../KubeApiError';
import type { KubeRest } from '../KubeRest';
import type { LeaseObject } from '../leaderelection/LeaseLock';

/** The operator's name as a component: field manager, Event reporter, app.kubernetes.io/name. */
export const OPERATOR_COMPONENT = 'tooldeck-operator';
export const DEFAULT_LEASE_NAME = OPERATOR_COMPONENT;
export const OPERATOR_LABELS = { 'app.kubernetes.io/name': OPERATOR_COMPONENT, 'app.kubernetes.io/component': 'leader-election' } as const;
/** Finds operator Leases (and only them) in a namespace or across the cluster. */
export const OPERATOR_LEASE_SELECTOR = `app.kubernetes.io/name=${OPERATOR_COMPONENT},app.kubernetes.io/component=leader-election`;

/** Written on the Lease with every renewal: the operator's status, readable by anyone who may read the Lease. */
export const OPERATOR_ANNOTATIONS = {
  /** `*` or a comma-separated list: the namespaces this operator reconciles. */
  namespaces: 'tooldeck.dev/namespaces',
  version: 'tooldeck.dev/version',
  renewals: 'tooldeck.dev/renewals',
  lastReconcile: 'tooldeck.dev/last-reconcile',
  failing: 'tooldeck.dev/failing-keys',
} as const;

export interface OperatorLeaseState {
  namespace: string;
  name: string;
  holder?: string;
  /** The holder renewed within the lease duration (by this machine's clock, so allow for skew). */
  held: boolean;
  acquireTime?: string;
  renewTime?: string;
  leaseDurationSeconds?: number;
  transitions: number;
  renewals?: number;
  /** undefined: all namespaces. */
  scope?: string[];
  version?: string;
  lastReconcile?: string;
  failingKeys?: number;
}

export function leaseState(lease: LeaseObject, now = Date.now()): OperatorLeaseState {
  const spec = lease.spec;
  const annotations = lease.metadata.annotations ?? {};
  const renewed = spec.renewTime ? Date.parse(spec.renewTime) : NaN;
  const holder = spec.holderIdentity || undefined;
  const scope = annotations[OPERATOR_ANNOTATIONS.namespaces];
  const number = (value: string | undefined) => (value !== undefined && Number.isFinite(Number(value)) ? Number(value) : undefined);
  return {
    namespace: lease.metadata.namespace,
    name: lease.metadata.name,
    ...(holder ? { holder } : {}),
    held: !!holder && Number.isFinite(renewed) && renewed + (spec.leaseDurationSeconds ?? 0) * 1_000 > now,
    ...(spec.acquireTime ? { acquireTime: spec.acquireTime } : {}),
    ...(spec.renewTime ? { renewTime: spec.renewTime } : {}),
    ...(spec.leaseDurationSeconds !== undefined ? { leaseDurationSeconds: spec.leaseDurationSeconds } : {}),
    transitions: spec.leaseTransitions ?? 0,
    ...(number(annotations[OPERATOR_ANNOTATIONS.renewals]) !== undefined ? { renewals: number(annotations[OPERATOR_ANNOTATIONS.renewals]) } : {}),
    ...(scope && scope !== '*' ? { scope: scope.split(',').filter(Boolean) } : {}),
    ...(annotations[OPERATOR_ANNOTATIONS.version] ? { version: annotations[OPERATOR_ANNOTATIONS.version] } : {}),
    ...(annotations[OPERATOR_ANNOTATIONS.lastReconcile] ? { lastReconcile: annotations[OPERATOR_ANNOTATIONS.lastReconcile] } : {}),
    ...(number(annotations[OPERATOR_ANNOTATIONS.failing]) !== undefined ? { failingKeys: number(annotations[OPERATOR_ANNOTATIONS.failing]) } : {}),
  };
}

/** Operator Leases across the cluster; `forbidden` when the caller may not list them. */
export async function listOperatorLeases(rest: KubeRest): Promise<{ leases: OperatorLeaseState[]; forbidden?: string }> {
  try {
    const list = await rest.request<{ items: LeaseObject[] }>('GET', '/apis/coordination.k8s.io/v1/leases', { query: { labelSelector: OPERATOR_LEASE_SELECTOR } });
    const now = Date.now();
    return { leases: list.items.map((lease) => leaseState(lease, now)).sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name)) };
  } catch (error) {
    if (isKubeApiError(error) && error.status === 403) return { leases: [], forbidden: error.message };
    throw error;
  }
}

/** The held operator Lease whose scope covers `namespace` (undefined: the whole cluster, which any held lease overlaps). */
export function operatorCovering(leases: OperatorLeaseState[], namespace: string | undefined): OperatorLeaseState | undefined {
  return leases.find((lease) => lease.held && (namespace === undefined || !lease.scope || lease.scope.includes(namespace)));
}
