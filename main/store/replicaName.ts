import { hostname } from 'node:os';
import { ReplicaName } from '../../shared/invocation';

/**
 * The name every record of this process carries: the pod's name in a cluster (Kubernetes sets
 * HOSTNAME to it, and KUBERNETES_SERVICE_HOST in every pod), else the host's name. Characters a
 * replica name does not allow become dashes.
 */
export function defaultReplicaName(env: NodeJS.ProcessEnv = process.env, host: () => string = hostname): string {
  const name = env.KUBERNETES_SERVICE_HOST && env.HOSTNAME ? env.HOSTNAME : host();
  const cleaned = name.replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 253);
  return ReplicaName.safeParse(cleaned).success ? cleaned : 'tooldeck';
}

/** `--replica-name`, checked: one sentence when it is not a name a record can carry. */
export function parseReplicaName(value: string): string {
  const parsed = ReplicaName.safeParse(value);
  if (!parsed.success) throw new Error('A replica name is 1 to 253 letters, digits, dots, dashes and underscores, starting with a letter or digit.');
  return parsed.data;
}
