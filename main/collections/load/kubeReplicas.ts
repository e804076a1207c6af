import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppError } from '../../../shared/errors';
import type { ToolResult } from '../../../shared/registry';
import { isNotFound } from '../../kube/KubeApiError';
import type { FetchLike } from '../../kube/KubeRest';
import { mcpToolEntry } from '../../mcp/McpToolSource';
import type { ToolCatalog } from '../../registry/ToolCatalog';
import type { ToolExecutor } from '../../registry/types';
import type { RunTarget } from '../CollectionRunner';
import type { LoadStreamTarget, ReplicaResolver } from './CollectionLoadRunner';

/** What the resolver needs of a cluster connection (KubeRest has it). */
export interface ClusterAccess {
  server: string;
  request<T>(method: string, path: string): Promise<T>;
  fetch: FetchLike;
}

export interface ReplicaResolverOptions {
  catalog: ToolCatalog;
  rest: ClusterAccess;
  /** The LanguageTools' namespace; `default` when not given. */
  namespace?: string;
  clientInfo: { name: string; version: string };
  connectTimeoutMs?: number;
}

/** A ready pod behind a Service. */
export interface ReadyReplica {
  pod: string;
  address: string;
  port: number;
}

interface EndpointSliceList {
  items: Array<{
    ports?: Array<{ name?: string; port?: number }>;
    endpoints: Array<{ addresses: string[]; conditions?: { ready?: boolean; terminating?: boolean }; targetRef?: { kind?: string; name?: string } }>;
  }>;
}

interface EndpointsObject {
  subsets?: Array<{ addresses?: Array<{ ip: string; targetRef?: { kind?: string; name?: string } }>; ports?: Array<{ name?: string; port: number }> }>;
}

const SERVICE_PORT_NAME = 'http';

/**
 * The ready pods of a Service: from its EndpointSlices (what clusters keep today), or from its
 * Endpoints object where no slice exists. Endpoints that are not ready, are terminating, or have
 * no Pod behind them are left out.
 */
export async function readyReplicas(rest: ClusterAccess, ns: string, service: string): Promise<ReadyReplica[]> {
  const slices = await rest
    .request<EndpointSliceList>('GET', `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices?labelSelector=${encodeURIComponent(`kubernetes.io/service-name=${service}`)}`)
    .catch((error: unknown) => (isNotFound(error) ? { items: [] } : Promise.reject(error)));
  const replicas = new Map<string, ReadyReplica>();
  for (const slice of slices.items) {
    const port = (slice.ports ?? []).find((p) => p.name === SERVICE_PORT_NAME)?.port ?? slice.ports?.[0]?.port;
    if (!port) continue;
    for (const endpoint of slice.endpoints ?? []) {
      if (endpoint.conditions?.ready === false || endpoint.conditions?.terminating) continue;
      if (endpoint.targetRef?.kind !== 'Pod' || !endpoint.targetRef.name) continue;
      replicas.set(endpoint.targetRef.name, { pod: endpoint.targetRef.name, address: endpoint.addresses[0]!, port });
    }
  }
  if (slices.items.length === 0) {
    const endpoints = await rest
      .request<EndpointsObject>('GET', `/api/v1/namespaces/${ns}/endpoints/${service}`)
      .catch((error: unknown): EndpointsObject | Promise<never> => (isNotFound(error) ? {} : Promise.reject(error)));
    for (const subset of endpoints.subsets ?? []) {
      const port = (subset.ports ?? []).find((p) => p.name === SERVICE_PORT_NAME)?.port ?? subset.ports?.[0]?.port;
      if (!port) continue;
      // `addresses` holds only ready endpoints; the others are under `notReadyAddresses`.
      for (const address of subset.addresses ?? []) {
        if (address.targetRef?.kind !== 'Pod' || !address.targetRef.name) continue;
        replicas.set(address.targetRef.name, { pod: address.targetRef.name, address: address.ip, port });
      }
    }
  }
  return [...replicas.values()].sort((a, b) => a.pod.localeCompare(b.pod));
}

/** A registry source name for one replica: `<tool>@<pod>` (dots, which end a source name, become `_`). */
export function replicaSourceName(tool: string, pod: string): string {
  return `${tool}@${pod}`.replace(/\./g, '_');
}

/**
 * `--per-replica`: each `mcp:<name>` target of the collection is a LanguageTool of that name in the
 * namespace; each ready pod of its Service is reached through the API server's pod proxy
 * (`/api/v1/namespaces/<ns>/pods/<pod>:<port>/proxy/mcp`, the only proxy path that picks a pod; the
 * Service's own proxy picks one for us) with the cluster's credentials, and registered for the run
 * as registry source `mcp:<tool>@<pod>`, so every call still goes through the pipeline. Replicas are
 * paired by position: stream i calls replica i of every target (a collection of one tool is the
 * usual case).
 */
export function replicaResolver(options: ReplicaResolverOptions): ReplicaResolver {
  return async (targets: RunTarget[], signal: AbortSignal) => {
    const ns = options.namespace ?? 'default';
    const registered: Array<{ source: { kind: 'mcp'; name: string }; close: () => Promise<void> }> = [];
    const release = async () => {
      for (const item of registered.splice(0)) {
        options.catalog.removeSource(item.source);
        await item.close();
      }
    };
    try {
      const perTarget = new Map<string, Array<{ replica: ReadyReplica; source: string }>>();
      for (const target of targets) {
        if (target.kind !== 'mcp') throw new AppError('InvalidInput', `--per-replica sends to LanguageTools (mcp:<tool>); ${target.kind}:${target.name} is not one`);
        await options.rest.request('GET', `/apis/langop.io/v1alpha1/namespaces/${ns}/languagetools/${target.name}`).catch((error: unknown) => {
          throw isNotFound(error) ? new AppError('NotFound', `No LanguageTool named "${target.name}" in namespace ${ns}`) : error;
        });
        const replicas = await readyReplicas(options.rest, ns, target.name);
        if (replicas.length === 0) throw new AppError('NotFound', `LanguageTool ${ns}/${target.name} has no ready pod behind its Service`);
        const connected = await Promise.all(
          replicas.map(async (replica) => {
            const source = { kind: 'mcp' as const, name: replicaSourceName(target.name, replica.pod) };
            const url = `${options.rest.server}/api/v1/namespaces/${ns}/pods/${replica.pod}:${replica.port}/proxy/mcp`;
            const connection = await connectReplica(url, options, signal).catch((error: Error) => {
              throw new AppError('ConnectionFailed', `Replica ${replica.pod} of ${ns}/${target.name} (${replica.address}): ${error.message}`);
            });
            registered.push({ source, close: connection.close });
            options.catalog.replaceSource(
              source,
              connection.tools.map((tool) => mcpToolEntry(source.name, tool)),
              connection.executor,
            );
            return { replica, source: source.name };
          }),
        );
        perTarget.set(`mcp:${target.name}`, connected);
      }
      const count = Math.min(...[...perTarget.values()].map((list) => list.length));
      const streams: LoadStreamTarget[] = Array.from({ length: count }, (_, i) => {
        const first = [...perTarget.values()][0]![i]!;
        return {
          label: [...perTarget.values()].map((list) => list[i]!.replica.pod).join('+'),
          address: `${first.replica.address}:${first.replica.port}`,
          toolName: (request) => `mcp:${perTarget.get(request.target)![i]!.source}.${request.tool}`,
        };
      });
      return { streams, release };
    } catch (error) {
      await release();
      throw error;
    }
  };
}

interface ReplicaConnection {
  tools: Awaited<ReturnType<Client['listTools']>>['tools'];
  executor: ToolExecutor;
  close: () => Promise<void>;
}

/** One MCP session with one pod, through the apiserver; ends the session on close. */
async function connectReplica(url: string, options: ReplicaResolverOptions, signal: AbortSignal): Promise<ReplicaConnection> {
  const timeout = options.connectTimeoutMs ?? 20_000;
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: options.rest.fetch });
  const client = new Client(options.clientInfo, { versionNegotiation: { mode: 'auto', probe: { timeoutMs: Math.min(3_000, timeout) } }, capabilities: {} });
  try {
    await client.connect(transport, { signal, timeout });
    const tools = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { cacheMode: 'bypass', signal, timeout });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return {
      tools,
      executor: {
        // The pipeline owns the timeouts and aborts through the signal; the SDK's own timer stays out of it.
        execute: async (entry, args, ctx) => (await client.callTool({ name: entry.toolName, arguments: args }, { signal: ctx.signal, timeout: 24 * 3_600_000 })) as ToolResult,
      },
      close: async () => {
        await transport.terminateSession().catch(() => undefined);
        await client.close().catch(() => undefined);
      },
    };
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
}
