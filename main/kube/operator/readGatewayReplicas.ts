import { DEFAULT_GATEWAY_METRICS_PORT } from '../../../shared/gateway';
import type { GatewayAgentTraffic, GatewayReplicaInfo, GatewayReplicasStatus, OperatorDeploymentInfo } from '../../../shared/kubeApi';
import { GATEWAY_SERIES } from '../../agents/AgentMetrics';
import { readPrometheusText, type PrometheusSample } from '../../metrics/prometheusText';
import { readBoundedStream } from '../../platform/readBounded';
import { isKubeApiError } from '../KubeApiError';
import type { KubeRest } from '../KubeRest';
import { GATEWAY_COMPONENT } from './gatewayManifests';

/** A replica's /metrics is a few KiB (a few series per agent); more than this is not a gateway's. */
export const GATEWAY_METRICS_MAX_BYTES = 1024 * 1024;
/** A replica that does not answer within this is named as not answering; the others are shown meanwhile. */
export const GATEWAY_METRICS_TIMEOUT_MS = 5_000;
/** Agents shown per replica at most (the busiest first): more would not be read in a table anyway. */
const MAX_AGENTS = 200;
/** Proxy reads in flight at once: a Deployment scaled to fifty does not open fifty connections. */
const CONCURRENT_READS = 8;
/** How much of an answer's text a problem quotes: it comes from another process. */
const QUOTED_CHARS = 200;

interface DeploymentObject {
  metadata: { namespace: string; name: string };
  spec?: { replicas?: number; selector?: { matchLabels?: Record<string, string> }; template?: { spec?: { containers?: Array<{ image?: string }> } } };
  status?: { readyReplicas?: number };
}

interface PodObject {
  metadata: { namespace: string; name: string };
  spec?: { containers?: Array<{ ports?: Array<{ name?: string; containerPort?: number }> }> };
  status?: { phase?: string; podIP?: string; startTime?: string; conditions?: Array<{ type?: string; status?: string }> };
}

export interface ReadGatewayReplicasOptions {
  /** Only the gateway Deployments of this namespace (default: every namespace). */
  namespace?: string;
  timeoutMs?: number;
  maxBytes?: number;
}

/**
 * Each replica of the gateway Deployment and its traffic — calls, errors, held calls per agent —
 * read from its `/metrics` through the API server's pod proxy, with the console's own cluster
 * credentials (no agent credential is involved: the metrics port asks none). A replica that cannot
 * be read (forbidden, not running, not answering, answering garbage) carries a `problem` sentence;
 * it never fails the view. Listing what cannot be listed is named in `problems`.
 */
export async function readGatewayReplicas(rest: KubeRest, options: ReadGatewayReplicasOptions = {}): Promise<GatewayReplicasStatus> {
  const problems: string[] = [];
  let deployments: DeploymentObject[];
  try {
    const path = options.namespace ? `/apis/apps/v1/namespaces/${encodeURIComponent(options.namespace)}/deployments` : '/apis/apps/v1/deployments';
    deployments = (await rest.request<{ items: DeploymentObject[] }>('GET', path, { query: { labelSelector: `app.kubernetes.io/name=${GATEWAY_COMPONENT}` } })).items;
  } catch (error) {
    if (!isForbidden(error)) throw error;
    return { deployments: [], replicas: [], problems: [`Cannot list gateway Deployments: ${(error as Error).message}`] };
  }
  const pods: PodObject[] = [];
  for (const deployment of deployments) {
    const { namespace, name } = deployment.metadata;
    const selector = Object.entries(deployment.spec?.selector?.matchLabels ?? { 'app.kubernetes.io/name': GATEWAY_COMPONENT })
      .map(([key, value]) => `${key}=${value}`)
      .join(',');
    try {
      const list = await rest.request<{ items: PodObject[] }>('GET', `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods`, { query: { labelSelector: selector } });
      pods.push(...list.items);
    } catch (error) {
      if (!isForbidden(error)) throw error;
      problems.push(`Cannot list the pods of Deployment ${namespace}/${name}: ${(error as Error).message}`);
    }
  }
  pods.sort((a, b) => a.metadata.namespace.localeCompare(b.metadata.namespace) || a.metadata.name.localeCompare(b.metadata.name));
  const replicas = await mapBounded(pods, CONCURRENT_READS, (pod) => readReplica(rest, pod, options));
  return { deployments: deployments.map(deploymentInfo), replicas, problems };
}

async function readReplica(rest: KubeRest, pod: PodObject, options: ReadGatewayReplicasOptions): Promise<GatewayReplicaInfo> {
  const { namespace, name } = pod.metadata;
  const phase = pod.status?.phase ?? 'Unknown';
  const base = {
    namespace,
    pod: name,
    ready: pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
    phase,
    ...(pod.status?.startTime ? { startedAt: pod.status.startTime } : {}),
    agents: [],
  };
  if (phase !== 'Running' || !pod.status?.podIP) return { ...base, problem: `Not running (phase ${phase}${pod.status?.podIP ? '' : ', no pod IP yet'}): no metrics to read.` };
  const port = metricsPortOf(pod);
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}:${port}/proxy/metrics`;
  const timeoutMs = options.timeoutMs ?? GATEWAY_METRICS_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? GATEWAY_METRICS_MAX_BYTES;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`no answer within ${timeoutMs / 1_000} s`)), timeoutMs);
  let text: string;
  try {
    const response = await rest.fetch(`${rest.server}${path}`, { headers: { accept: 'text/plain;version=0.0.4' }, signal: abort.signal });
    const body = await readBoundedStream(response.body as AsyncIterable<Uint8Array> | null, `The /metrics of ${name}`, { maxBytes, what: "a gateway replica's metrics" });
    text = body.toString('utf8');
    if (!response.ok) return { ...base, problem: proxyRefusal(response.status, text, namespace, port) };
  } catch (error) {
    // The timer's reason says more than the AbortError it causes.
    const reason = abort.signal.aborted ? (abort.signal.reason as Error).message : (error as Error).message;
    abort.abort(new Error('read ended'));
    return { ...base, problem: `Its metrics could not be read through the API server: ${quote(reason)}` };
  } finally {
    clearTimeout(timer);
  }
  // Every gateway declares its series even before its first call: an answer without them (a page,
  // another exporter) is not read as an idle gateway.
  if (!text.includes(`# TYPE ${GATEWAY_SERIES.calls} counter`)) return { ...base, problem: `Port ${port} answered /metrics without the gateway's series: it is not a Tooldeck gateway's metrics port.` };
  const reading = readPrometheusText(text, WANTED);
  const agents = trafficPerAgent(reading.samples);
  const total = (key: 'calls' | 'errors' | 'held' | 'rateLimited') => agents.reduce((sum, agent) => sum + agent[key], 0);
  return { ...base, traffic: { calls: total('calls'), errors: total('errors'), held: total('held'), rateLimited: total('rateLimited') }, agents: agents.slice(0, MAX_AGENTS) };
}

const WANTED: ReadonlySet<string> = new Set(Object.values(GATEWAY_SERIES));

/**
 * The gateway's series as rows per agent, busiest first. A value that is not a finite, non-negative
 * number (NaN, Inf, a negative count) is not a count and is left out; so is a sample without an agent.
 */
export function trafficPerAgent(samples: readonly PrometheusSample[]): GatewayAgentTraffic[] {
  const rows = new Map<string, GatewayAgentTraffic>();
  for (const sample of samples) {
    const agent = sample.labels.get('agent');
    if (agent === undefined || !Number.isFinite(sample.value) || sample.value < 0) continue;
    let row = rows.get(agent);
    if (!row) {
      row = { agent, calls: 0, errors: 0, held: 0, approved: 0, refused: 0, rateLimited: 0 };
      rows.set(agent, row);
    }
    switch (sample.name) {
      case GATEWAY_SERIES.calls:
        row.calls += sample.value;
        break;
      case GATEWAY_SERIES.errors:
        row.errors += sample.value;
        break;
      case GATEWAY_SERIES.held:
        row.held += sample.value;
        break;
      case GATEWAY_SERIES.decided:
        if (sample.labels.get('decision') === 'approved') row.approved += sample.value;
        else row.refused += sample.value;
        break;
      case GATEWAY_SERIES.rateLimited:
        row.rateLimited += sample.value;
        break;
    }
  }
  return [...rows.values()].sort((a, b) => b.calls - a.calls || b.held - a.held || a.agent.localeCompare(b.agent));
}

/** The container port named `metrics` (as `tooldeck kube install --gateway` declares it), else the default. */
function metricsPortOf(pod: PodObject): number {
  for (const container of pod.spec?.containers ?? []) {
    const port = container.ports?.find((p) => p.name === 'metrics')?.containerPort;
    if (port !== undefined && Number.isInteger(port) && port > 0 && port < 65_536) return port;
  }
  return DEFAULT_GATEWAY_METRICS_PORT;
}

function proxyRefusal(status: number, text: string, namespace: string, port: number): string {
  let message = text;
  try {
    const parsed = JSON.parse(text) as { kind?: string; message?: string };
    if (parsed.kind === 'Status' && typeof parsed.message === 'string') message = parsed.message;
  } catch {
    // Not a Status: the replica's own answer (or the proxy's), quoted as text.
  }
  if (status === 403) return `Reading its metrics is forbidden: ${quote(message)} (it needs get on pods/proxy in namespace ${namespace}).`;
  return `The API server's proxy to port ${port} answered ${status}: ${quote(message)}`;
}

/** Text from elsewhere, on one line and cut to a length a sentence can hold. */
function quote(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > QUOTED_CHARS ? `${line.slice(0, QUOTED_CHARS)}…` : line || '(no message)';
}

function deploymentInfo(d: DeploymentObject): OperatorDeploymentInfo {
  return {
    namespace: d.metadata.namespace,
    name: d.metadata.name,
    replicas: d.spec?.replicas ?? 1,
    readyReplicas: d.status?.readyReplicas ?? 0,
    ...(d.spec?.template?.spec?.containers?.[0]?.image ? { image: d.spec.template.spec.containers[0].image } : {}),
  };
}

async function mapBounded<T, R>(items: readonly T[], limit: number, map: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await map(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

const isForbidden = (error: unknown) => isKubeApiError(error) && error.status === 403;
