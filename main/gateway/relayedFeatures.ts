import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, UriTemplate, type Server } from '@modelcontextprotocol/server';
import type { McpPrompt, McpResource, McpResourceTemplate, ServerSnapshot } from '../../shared/mcp';
import type { McpConnection } from '../mcp/McpConnection';

/**
 * What an agent is granted of each source beside its tools, by source id (`mcp:everything`).
 * Deny by default: a source missing from the map, or `false`, offers the agent nothing of that kind.
 */
export type SourceFeatureGrants = ReadonlyMap<string, { resources: boolean; prompts: boolean }>;

/** No source grants anything beside tools (the default until an agent's grants say otherwise). */
export const NO_SOURCE_GRANTS: SourceFeatureGrants = new Map();

/** One connected MCP source as the gateway relays it: what it listed at its last discovery (kept fresh by its list_changed). */
export interface UpstreamSource {
  /** `mcp:<name>` */
  id: string;
  name: string;
  resources: readonly McpResource[];
  resourceTemplates: readonly McpResourceTemplate[];
  prompts: readonly McpPrompt[];
}

/**
 * The MCP sources' resources, prompts and completion, as the gateway relays them to agents: through
 * the console's own connection to each server (McpConnection), never a second client.
 */
export interface UpstreamFeatures {
  /** The sources connected now, in the service's order. */
  sources(): UpstreamSource[];
  readResource(source: string, uri: string, signal?: AbortSignal): Promise<Record<string, unknown>>;
  getPrompt(source: string, name: string, args: Record<string, string>, signal?: AbortSignal): Promise<Record<string, unknown>>;
  complete(source: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>>;
  /**
   * Hears `notifications/resources/updated` for `uri` from `source`; the first listener of a URI
   * subscribes upstream, the last one to go unsubscribes. Rejects when the server refuses.
   */
  subscribe(source: string, uri: string, listener: () => void): Promise<() => void>;
  /** A source's resources (or templates) or prompts changed, or a source came or went. */
  onListsChanged(listener: (what: 'resources' | 'prompts') => void): () => void;
}

/** The MCP service as the relay reads it. */
export interface McpServiceView {
  list(): ServerSnapshot[];
  connection(name: string): Pick<McpConnection, 'readResource' | 'getPrompt' | 'complete' | 'subscribeResource' | 'unsubscribeResource' | 'onResourceUpdated'> | undefined;
  onChange(listener: () => void): () => void;
}

/** The relay over the console's MCP service (main/mcp/McpService.ts). */
export function mcpUpstreamFeatures(mcp: McpServiceView): UpstreamFeatures {
  const nameOf = (source: string) => (source.startsWith('mcp:') ? source.slice(4) : source);
  const require = (source: string) => {
    const connection = mcp.connection(nameOf(source));
    if (!connection) throw new ProtocolError(ProtocolErrorCode.InternalError, `The source ${source} is not connected.`);
    return connection;
  };
  /** Live upstream subscriptions: `<source>\n<uri>` → the agents' listeners and the upstream one. */
  const subscriptions = new Map<string, { listeners: Set<() => void>; stop: () => void; ready: Promise<void> }>();
  const listChanges = new Set<(what: 'resources' | 'prompts') => void>();
  let signatures = { resources: '', prompts: '' };
  const signaturesNow = () => {
    const ready = mcp.list().filter((snapshot) => snapshot.state.status === 'ready');
    return {
      resources: JSON.stringify(ready.map((snapshot) => [snapshot.config.name, snapshot.resources, snapshot.resourceTemplates])),
      prompts: JSON.stringify(ready.map((snapshot) => [snapshot.config.name, snapshot.prompts])),
    };
  };
  let stopWatching: (() => void) | undefined;
  return {
    sources: () =>
      mcp.list().flatMap((snapshot) =>
        snapshot.state.status === 'ready' && !snapshot.state.listing
          ? [{ id: `mcp:${snapshot.config.name}`, name: snapshot.config.name, resources: snapshot.resources, resourceTemplates: snapshot.resourceTemplates, prompts: snapshot.prompts }]
          : [],
      ),
    readResource: async (source, uri) => (await require(source).readResource(uri)) as Record<string, unknown>,
    getPrompt: async (source, name, args, signal) => (await require(source).getPrompt(name, args, signal)) as Record<string, unknown>,
    complete: async (source, params, signal) => (await require(source).complete(params as never, signal)) as Record<string, unknown>,
    async subscribe(source, uri, listener) {
      const key = `${source}\n${uri}`;
      let entry = subscriptions.get(key);
      if (!entry) {
        const connection = require(source);
        const listeners = new Set<() => void>();
        const stop = connection.onResourceUpdated((updated) => {
          if (updated === uri) for (const each of [...listeners]) each();
        });
        const ready = connection.subscribeResource(uri).catch((error: unknown) => {
          stop();
          subscriptions.delete(key);
          throw error;
        });
        entry = { listeners, stop, ready };
        subscriptions.set(key, entry);
      }
      const current = entry;
      current.listeners.add(listener);
      try {
        await current.ready;
      } catch (error) {
        current.listeners.delete(listener);
        throw error;
      }
      return () => {
        if (!current.listeners.delete(listener) || current.listeners.size > 0) return;
        current.stop();
        if (subscriptions.get(key) === current) subscriptions.delete(key);
        void mcp.connection(nameOf(source))?.unsubscribeResource(uri).catch(() => undefined);
      };
    },
    onListsChanged(listener) {
      if (!stopWatching) {
        signatures = signaturesNow();
        stopWatching = mcp.onChange(() => {
          const now = signaturesNow();
          const changed = (['resources', 'prompts'] as const).filter((what) => now[what] !== signatures[what]);
          signatures = now;
          for (const what of changed) for (const each of [...listChanges]) each(what);
        });
      }
      listChanges.add(listener);
      return () => {
        listChanges.delete(listener);
        if (listChanges.size === 0) {
          stopWatching?.();
          stopWatching = undefined;
        }
      };
    },
  };
}

/** What the relay needs of the gateway's MCP server instance for one agent. */
export interface RelayedFeaturesDeps {
  upstream: UpstreamFeatures;
  /** What the agent is granted of each source beside its tools. */
  sourceGrants: (agent: string) => SourceFeatureGrants;
  /** Waits for the sources' first sync, as tools/list does. */
  whenSynced: () => Promise<void>;
}

/** The capabilities the gateway declares when it relays resources, prompts and completion. */
export const RELAYED_CAPABILITIES = { resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {} };

const SOURCE_META = 'dev.tooldeck/source';

/**
 * Relays resources, prompts and completion of the sources an agent is granted them of, and nothing
 * of any other source (an agent learns nothing about what it may not read).
 *
 * Names: a prompt is offered as `<source>.<prompt>` (`everything.simple-prompt`), as tools are. A
 * resource keeps its URI (links in tool results stay readable); the source that serves a URI is the
 * one granted source that lists it, else the one whose template matches it, else the only granted
 * source of resources. Two granted sources claiming the same URI is an error naming both, never a
 * guess. Every item carries the source id in `_meta["dev.tooldeck/source"]`.
 */
export function registerRelayedFeatures(server: Server, deps: RelayedFeaturesDeps, agent: string, gone: AbortSignal): void {
  const granted = (kind: 'resources' | 'prompts') => grantedSources(deps, agent, kind);
  const tagged = <T extends object>(item: T, source: UpstreamSource) => ({ ...item, _meta: { ...((item as { _meta?: Record<string, unknown> })._meta ?? {}), [SOURCE_META]: source.id } });
  const sourceOfUri = (uri: string): UpstreamSource => sourceServing(granted('resources'), uri);

  /** `<source>.<prompt>` → the granted source and the prompt's own name. */
  const promptNamed = (name: string): { source: UpstreamSource; prompt: string } => {
    for (const source of granted('prompts')) {
      if (!name.startsWith(`${source.name}.`)) continue;
      const prompt = name.slice(source.name.length + 1);
      if (source.prompts.some((item) => item.name === prompt)) return { source, prompt };
    }
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown prompt: ${name}`);
  };

  const synced = async () => deps.whenSynced();

  server.setRequestHandler('resources/list', async () => {
    await synced();
    return { resources: granted('resources').flatMap((source) => source.resources.map((resource) => tagged(resource, source))) } as never;
  });
  server.setRequestHandler('resources/templates/list', async () => {
    await synced();
    return { resourceTemplates: granted('resources').flatMap((source) => source.resourceTemplates.map((template) => tagged(template, source))) } as never;
  });
  server.setRequestHandler('resources/read', async (request, ctx) => {
    await synced();
    const { uri } = request.params;
    return (await relayed(() => deps.upstream.readResource(sourceOfUri(uri).id, uri, ctx.mcpReq.signal))) as never;
  });

  /** This agent's live subscriptions on this server instance, by URI; all end when the agent goes. */
  const subscribed = new Map<string, Promise<() => void>>();
  gone.addEventListener('abort', () => {
    for (const unsubscribe of subscribed.values()) void unsubscribe.then((stop) => stop(), () => undefined);
    subscribed.clear();
  }, { once: true });
  server.setRequestHandler('resources/subscribe', async (request, ctx) => {
    // A 2026-07-28 request has no session to send updates on: that era listens with subscriptions/listen (relayResourceListen).
    if (ctx.mcpReq.envelope) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'resources/subscribe needs a session (protocol 2025-11-25); in 2026-07-28 use subscriptions/listen.');
    await synced();
    const { uri } = request.params;
    if (subscribed.has(uri)) return {};
    const source = sourceOfUri(uri);
    const subscription = relayed(() => deps.upstream.subscribe(source.id, uri, () => void server.sendResourceUpdated({ uri }).catch(() => undefined)));
    subscribed.set(uri, subscription);
    try {
      await subscription;
    } catch (error) {
      subscribed.delete(uri);
      throw error;
    }
    return {};
  });
  server.setRequestHandler('resources/unsubscribe', async (request) => {
    const subscription = subscribed.get(request.params.uri);
    subscribed.delete(request.params.uri);
    if (subscription) (await subscription)();
    return {};
  });

  server.setRequestHandler('prompts/list', async () => {
    await synced();
    return { prompts: granted('prompts').flatMap((source) => source.prompts.map((prompt) => tagged({ ...prompt, name: `${source.name}.${prompt.name}` }, source))) } as never;
  });
  server.setRequestHandler('prompts/get', async (request, ctx) => {
    await synced();
    const { source, prompt } = promptNamed(request.params.name);
    return (await relayed(() => deps.upstream.getPrompt(source.id, prompt, (request.params.arguments ?? {}) as Record<string, string>, ctx.mcpReq.signal))) as never;
  });

  server.setRequestHandler('completion/complete', async (request, ctx) => {
    await synced();
    const { ref } = request.params;
    if (ref.type === 'ref/prompt') {
      const { source, prompt } = promptNamed(ref.name);
      return (await relayed(() => deps.upstream.complete(source.id, { ...request.params, ref: { ...ref, name: prompt } }, ctx.mcpReq.signal))) as never;
    }
    // A resource template's argument: the granted source that lists that template (or serves its URI).
    const sources = granted('resources');
    const owners = sources.filter((source) => source.resourceTemplates.some((template) => template.uriTemplate === ref.uri));
    if (owners.length > 1) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `The template ${ref.uri} is offered by more than one source granted to you (${owners.map((source) => source.id).join(', ')}).`);
    const owner = owners[0] ?? sourceOfUri(ref.uri);
    return (await relayed(() => deps.upstream.complete(owner.id, request.params as Record<string, unknown>, ctx.mcpReq.signal))) as never;
  });
}

/** The connected sources `agent` is granted `kind` of. */
function grantedSources(deps: Pick<RelayedFeaturesDeps, 'upstream' | 'sourceGrants'>, agent: string, kind: 'resources' | 'prompts'): UpstreamSource[] {
  const grants = deps.sourceGrants(agent);
  return deps.upstream.sources().filter((source) => grants.get(source.id)?.[kind] === true);
}

/** Of `sources` (those granted), the one serving `uri`, by the rule in registerRelayedFeatures' comment; else a protocol error. */
function sourceServing(sources: readonly UpstreamSource[], uri: string): UpstreamSource {
  const pick = (matches: UpstreamSource[]) => {
    if (matches.length > 1) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `The resource ${uri} is served by more than one source granted to you (${matches.map((source) => source.id).join(', ')}).`);
    return matches[0];
  };
  const found =
    pick(sources.filter((source) => source.resources.some((resource) => resource.uri === uri))) ??
    pick(sources.filter((source) => source.resourceTemplates.some((template) => templateMatches(template.uriTemplate, uri)))) ??
    (sources.length === 1 ? sources[0] : undefined);
  if (!found) throw new ResourceNotFoundError(uri, `Resource not found: ${uri}`);
  return found;
}

/**
 * A 2026-07-28 agent's `subscriptions/listen` (the SDK serves the stream itself): the resources it
 * names are kept only where the agent may read them — the rest are taken out of the request, so
 * the acknowledgement's honored filter says which — and each kept one is subscribed upstream for
 * as long as the stream lasts (`ended`), its updates handed to `updated` (the handler's notifier,
 * which reaches the streams that asked for that URI).
 */
export function relayResourceListen(deps: Pick<RelayedFeaturesDeps, 'upstream' | 'sourceGrants'>, agent: string, message: unknown, ended: AbortSignal, updated: (uri: string) => void): void {
  const filter = (message as { params?: { notifications?: { resourceSubscriptions?: unknown } } } | undefined)?.params?.notifications;
  if (!filter || !Array.isArray(filter.resourceSubscriptions)) return;
  const sources = grantedSources(deps, agent, 'resources');
  const kept: string[] = [];
  const stops: Array<Promise<() => void>> = [];
  for (const uri of filter.resourceSubscriptions as unknown[]) {
    if (typeof uri !== 'string' || kept.includes(uri)) continue;
    let source: UpstreamSource;
    try {
      source = sourceServing(sources, uri);
    } catch {
      continue;
    }
    kept.push(uri);
    stops.push(deps.upstream.subscribe(source.id, uri, () => updated(uri)).catch(() => () => undefined));
  }
  filter.resourceSubscriptions = kept;
  const stop = () => stops.forEach((subscription) => void subscription.then((unsubscribe) => unsubscribe()));
  if (ended.aborted) stop();
  else ended.addEventListener('abort', stop, { once: true });
}

/** Whether `uri` is an expansion of the RFC 6570 `template` (a malformed template matches nothing). */
function templateMatches(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false;
  }
}

/** The upstream's protocol errors reach the agent as they were (code, message, data); anything else as an internal error. */
async function relayed<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'number') throw new ProtocolError(code, (error as Error).message, (error as { data?: unknown }).data);
    throw new ProtocolError(ProtocolErrorCode.InternalError, `The source failed to answer: ${(error as Error).message}`);
  }
}
