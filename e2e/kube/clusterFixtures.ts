import { CONTENT_TYPE, type KubeRest } from '../../main/kube/KubeRest';
import { isNotFound } from '../../main/kube/KubeApiError';

export const toolsPath = (ns: string) => `/apis/langop.io/v1alpha1/namespaces/${ns}/languagetools`;
export const agentsPath = (ns: string) => `/apis/langop.io/v1alpha1/namespaces/${ns}/languageagents`;

export interface DeploymentView {
  metadata: { name: string; generation: number; ownerReferences?: Array<{ kind: string; name: string; uid: string; controller?: boolean }> };
  spec: { replicas?: number; selector: { matchLabels: Record<string, string> }; template: { spec: { containers: Array<Record<string, unknown>>; initContainers?: Array<Record<string, unknown>> } } };
}

export async function createNamespace(rest: KubeRest, name: string) {
  await rest.request('POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
}

export async function getOrUndefined<T>(rest: KubeRest, path: string): Promise<T | undefined> {
  return rest.request<T>('GET', path).catch((error: unknown) => {
    if (isNotFound(error)) return undefined;
    throw error;
  });
}

/** What the deployment controller would report once every replica of the current generation is up. */
export async function markDeploymentReady(rest: KubeRest, ns: string, name: string) {
  const path = `/apis/apps/v1/namespaces/${ns}/deployments/${name}`;
  const dep = await rest.request<DeploymentView>('GET', path);
  const replicas = dep.spec.replicas ?? 1;
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  await rest.request('PATCH', `${path}/status`, {
    contentType: CONTENT_TYPE.mergePatch,
    body: {
      status: {
        observedGeneration: dep.metadata.generation,
        replicas,
        updatedReplicas: replicas,
        readyReplicas: replicas,
        availableReplicas: replicas,
        conditions: [
          { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'ready', lastUpdateTime: now, lastTransitionTime: now },
          { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: 'done', lastUpdateTime: now, lastTransitionTime: now },
        ],
      },
    },
  });
}

/** A Pod that "runs" at `address` (status written by hand: no kubelet here). */
export async function createRunningPod(rest: KubeRest, ns: string, name: string, address: string, labels: Record<string, string> = {}) {
  await rest.request('POST', `/api/v1/namespaces/${ns}/pods`, {
    body: { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels }, spec: { containers: [{ name: 'tool', image: 'tooldeck.test/tool:1' }] } },
  });
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  await rest.request('PATCH', `/api/v1/namespaces/${ns}/pods/${name}/status`, {
    contentType: CONTENT_TYPE.mergePatch,
    body: { status: { phase: 'Running', podIP: address, podIPs: [{ ip: address }], conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }] } },
  });
}

/** Endpoints for a tool's Service, as the endpoints controller would write them for `pod` at `address`. */
export async function createEndpoints(rest: KubeRest, ns: string, service: string, pod: string, address: string, port: number) {
  await rest.request('POST', `/api/v1/namespaces/${ns}/endpoints`, {
    body: {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: service, namespace: ns },
      subsets: [{ addresses: [{ ip: address, targetRef: { kind: 'Pod', namespace: ns, name: pod } }], ports: [{ name: 'http', port, protocol: 'TCP' }] }],
    },
  });
}

/** Polls until `check` returns a value (not undefined/false); throws with the last observation otherwise. */
export async function eventually<T>(check: () => Promise<T | undefined | false>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}; last: ${last instanceof Error ? last.message : JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
