import { timingSafeEqual } from 'node:crypto';
import { AppError } from '../../shared/errors';
import { LANGOP_API_VERSION } from '../../shared/kube';
import type { CredentialCheck } from '../agents/AgentCredentials';
import type { ClusterAgentSource } from '../agents/AgentIdentity';
import type { WorkspaceLanguageAgent } from '../agents/AgentGrants';
import { Emitter } from '../platform/Emitter';
import type { Logger } from '../platform/Logger';
import { isKubeApiError } from './KubeApiError';
import type { KubeConnection } from './KubeConnection';
import { GATEWAY_CREDENTIAL_HASH_ANNOTATION, GATEWAY_MODELS_ANNOTATION, gatewayAgentName, modelsFromAnnotation, parseGatewayAgentName, SHA256_HEX, sha256Hex } from './gatewayAgents';
import { ResilientInformer } from './ResilientInformer';
import type { LanguageAgentObject, LanguageToolObject } from './toolResources';
import type { ProvidedServer } from '../mcp/McpService';
import { checkClusterTool, clusterToolSourceName, clusterToolUrl, fetchWithoutRedirects, type ClusterToolReach } from './clusterToolSources';
import type { ToolPermission } from '../../shared/policy';
import { normalizeToolPermissionResource } from '../resources/kinds/normalizeToolPermissionResource';
import { ResourceIssues } from '../resources/kinds/ResourceIssues';
import type { RawObject } from '../resources/kinds/fieldReaders';
import { permissionPlan } from '../resources/resourcePolicy';
import { ORLOJ_GROUP, ORLOJ_VERSION } from './toolApprovalCrd';

export interface ClusterAgentsOptions {
  connection: KubeConnection;
  /** The namespaces whose LanguageAgents may use the gateway (`gateway --agent-namespace`). */
  namespaces: readonly string[];
  logger: Logger;
  /** close() also closes the connection (the source owns it). */
  closeConnection?: boolean;
  /** How the LanguageTools' Services are reached (see ClusterToolReach); the API server's service proxy when absent. */
  toolReach?: ClusterToolReach;
}

const REFUSED: CredentialCheck = { ok: false, status: 403, reason: 'The agent credential is not valid (unknown agent, wrong secret or revoked).' };

/**
 * The gateway's view of Language Operator agents in a cluster (`gateway --in-cluster` or
 * `--kubeconfig` with `--agent-namespace`): which agents hold a credential the operator issued
 * (the SHA-256 in each LanguageAgent's annotation; the gateway never reads a Secret) and which
 * LanguageTools each one's `spec.tools` grants; and those LanguageTools themselves, the gateway's
 * MCP sources (toolSources(), see clusterToolSources.ts). Watched, so an agent that opts out or is
 * deleted is refused from the next request on, and its open sessions end, and a tool that goes or
 * loses its endpoint stops being a source.
 */
export class ClusterAgents implements ClusterAgentSource {
  private readonly informers: Map<string, ResilientInformer<LanguageAgentObject>>;
  /** Orloj ToolPermissions of each agent namespace, where the cluster serves them. */
  private readonly permissionInformers = new Map<string, ResilientInformer<RawObject & { metadata: { name: string } }>>();
  /** The LanguageTools of each agent namespace: the gateway's MCP sources (see clusterToolSources.ts). */
  private readonly toolInformers: Map<string, ResilientInformer<LanguageToolObject>>;
  /** The last refusal said of each tool (`<ns>/<name>` → sentence), so each is logged once per change. */
  private readonly toolRefusals = new Map<string, string>();
  private readonly changes = new Emitter();

  private constructor(
    private readonly options: ClusterAgentsOptions,
    permissionNamespaces: readonly string[],
  ) {
    for (const namespace of permissionNamespaces) {
      this.permissionInformers.set(
        namespace,
        new ResilientInformer({
          kc: options.connection.kc,
          rest: options.connection.rest,
          path: toolPermissionsPath(namespace),
          logger: options.logger,
          onEvent: () => this.changes.emit(),
        }),
      );
    }
    this.informers = new Map(
      [...new Set(options.namespaces)].map((namespace) => [
        namespace,
        new ResilientInformer<LanguageAgentObject>({
          kc: options.connection.kc,
          rest: options.connection.rest,
          path: `/apis/${LANGOP_API_VERSION}/namespaces/${namespace}/languageagents`,
          logger: options.logger,
          onEvent: () => this.changes.emit(),
        }),
      ]),
    );
    this.toolInformers = new Map(
      [...new Set(options.namespaces)].map((namespace) => [
        namespace,
        new ResilientInformer<LanguageToolObject>({
          kc: options.connection.kc,
          rest: options.connection.rest,
          path: toolsPath(namespace),
          logger: options.logger,
          onEvent: () => this.changes.emit(),
        }),
      ]),
    );
  }

  /**
   * Checks that these credentials may list LanguageAgents in every namespace (one sentence
   * otherwise), then fills the caches before the gateway lets anyone in.
   */
  static async open(options: ClusterAgentsOptions): Promise<ClusterAgents> {
    for (const namespace of new Set(options.namespaces)) {
      try {
        await options.connection.rest.request('GET', `/apis/${LANGOP_API_VERSION}/namespaces/${namespace}/languageagents`, { query: { limit: 1 } });
      } catch (error) {
        const reason = isKubeApiError(error) && error.status === 404 ? `the ${LANGOP_API_VERSION} CRDs are not installed` : isKubeApiError(error) && error.status === 403 ? 'forbidden' : (error as Error).message;
        throw new AppError('ConnectionFailed', `Cannot read LanguageAgents in namespace ${namespace} on ${options.connection.server} (${reason}); the gateway needs get, list and watch on languageagents there.`);
      }
    }
    for (const namespace of new Set(options.namespaces)) {
      try {
        await options.connection.rest.request('GET', toolsPath(namespace), { query: { limit: 1 } });
      } catch (error) {
        const reason = isKubeApiError(error) && error.status === 403 ? 'forbidden' : (error as Error).message;
        throw new AppError('ConnectionFailed', `Cannot read LanguageTools in namespace ${namespace} on ${options.connection.server} (${reason}); the gateway needs get, list and watch on languagetools there.`);
      }
    }
    // Orloj's ToolPermission CRD is optional: where it is not installed, only spec.tools grants.
    const permissionNamespaces: string[] = [];
    for (const namespace of new Set(options.namespaces)) {
      try {
        await options.connection.rest.request('GET', toolPermissionsPath(namespace), { query: { limit: 1 } });
        permissionNamespaces.push(namespace);
      } catch (error) {
        if (isKubeApiError(error) && error.status === 404) continue;
        const reason = isKubeApiError(error) && error.status === 403 ? 'forbidden' : (error as Error).message;
        throw new AppError('ConnectionFailed', `Cannot read ToolPermissions in namespace ${namespace} on ${options.connection.server} (${reason}); the gateway needs get, list and watch on toolpermissions there.`);
      }
    }
    if (permissionNamespaces.length < new Set(options.namespaces).size) options.logger.info(`No ${ORLOJ_GROUP} ToolPermissions served in some agent namespaces: there, only each LanguageAgent's spec.tools grants`);
    const agents = new ClusterAgents(options, permissionNamespaces);
    await Promise.all([...agents.informers.values(), ...agents.toolInformers.values(), ...agents.permissionInformers.values()].map((informer) => informer.start()));
    return agents;
  }

  /** The agent behind a cluster agent name, if it is watched here and holds a live credential. */
  private credentialed(name: string): { agent: LanguageAgentObject; sha256: string } | undefined {
    const parsed = parseGatewayAgentName(name);
    const agent = parsed && this.informers.get(parsed.namespace)?.get(parsed.agent, parsed.namespace);
    const sha256 = agent?.metadata.annotations?.[GATEWAY_CREDENTIAL_HASH_ANNOTATION];
    // An agent being deleted is refused already: its credential ends with it.
    if (!agent || agent.metadata.deletionTimestamp || !sha256 || !SHA256_HEX.test(sha256)) return undefined;
    return { agent, sha256 };
  }

  knows(name: string): boolean {
    const parsed = parseGatewayAgentName(name);
    return parsed !== undefined && this.informers.has(parsed.namespace);
  }

  verify(name: string, secret: string): CredentialCheck {
    const found = this.credentialed(name);
    // Hash and compare even for an unknown agent, so the answer takes as long either way.
    const matches = timingSafeEqual(Buffer.from(found?.sha256 ?? '0'.repeat(64), 'hex'), Buffer.from(sha256Hex(secret), 'hex'));
    return found && matches ? { ok: true, agent: name } : REFUSED;
  }

  isLive(name: string): boolean {
    return this.credentialed(name) !== undefined;
  }

  /** The watched agents that hold a credential, named as the gateway knows them, with the LanguageTools they reference. */
  languageAgents(): WorkspaceLanguageAgent[] {
    return [...this.informers.entries()].flatMap(([namespace, informer]) =>
      informer.list(namespace).flatMap((agent) => {
        const name = gatewayAgentName(agent.metadata.name, namespace);
        if (!name || !this.credentialed(name)) return [];
        // A LanguageAgent references LanguageTools of its own namespace: each is the source named for it there.
        const tools = (agent.spec?.tools ?? []).filter((tool) => tool.enabled !== false).flatMap((tool) => clusterToolSourceName(tool.name, namespace) ?? []);
        return [{ name, tools, file: `cluster:${namespace}/${agent.metadata.name}`, models: modelsFromAnnotation(agent.metadata.annotations?.[GATEWAY_MODELS_ANNOTATION]) }];
      }),
    );
  }

  /**
   * The Orloj ToolPermissions of the agent namespaces, as the pipeline enforces them, each confined
   * to its namespace: a scoped one to the agents it names there, a global one to every agent of
   * its namespace holding a credential (never to another namespace's agents or the console's own
   * calls). Invalid ones are left out, as the workspace leaves out invalid resources.
   */
  permissions(): ToolPermission[] {
    return this.namespacePermissions().map((item) => item.permission);
  }

  /**
   * The permissions that grant tools: the scoped ones (Orloj's `target_agents`), as in the
   * workspace, and only for tools of their own namespace's LanguageTools: whoever may write
   * ToolPermissions in one namespace cannot give its agents another namespace's tools (or `*`).
   */
  grantingPermissions(): ToolPermission[] {
    return this.namespacePermissions()
      .filter((item) => item.scoped && grantsWithinNamespace(item.permission.toolRef, item.namespace))
      .map((item) => item.permission);
  }

  private namespacePermissions(): Array<{ permission: ToolPermission; scoped: boolean; namespace: string }> {
    return [...this.permissionInformers.entries()].flatMap(([namespace, informer]) => {
      const agentsHere = this.languageAgents()
        .filter((agent) => parseGatewayAgentName(agent.name)?.namespace === namespace)
        .map((agent) => agent.name);
      return informer.list(namespace).flatMap((raw) => {
        const issues = new ResourceIssues();
        const resource = normalizeToolPermissionResource(withNamespaceToolRef(raw, namespace), issues);
        const permission = issues.hasErrors ? undefined : permissionPlan(resource, []).permission;
        if (!permission) return [];
        const scoped = resource.spec.apply_mode === 'scoped';
        const targetAgents = scoped ? (resource.spec.target_agents ?? []).flatMap((agent) => gatewayAgentName(agent, namespace) ?? []) : agentsHere;
        return [{ permission: { ...permission, name: `${namespace}/${raw.metadata.name}`, targetAgents }, scoped, namespace }];
      });
    });
  }

  /**
   * The namespaces' LanguageTools that are MCP sources now (see clusterToolSources.ts), each named
   * `<tool>_<namespace>` and reached as `toolReach` says. A refused one is logged once, with why.
   */
  toolSources(): ProvidedServer[] {
    const reach = this.options.toolReach ?? 'service-proxy';
    const seen = new Set<string>();
    const sources = [...this.toolInformers.entries()].flatMap(([namespace, informer]) =>
      informer.list(namespace).flatMap((tool): ProvidedServer[] => {
        const key = `${namespace}/${tool.metadata.name}`;
        seen.add(key);
        const check = checkClusterTool(tool, namespace);
        if (!check.ok) {
          if ('reason' in check) this.refuseTool(key, `LanguageTool ${key} is not a tool source of the gateway: ${check.reason}.`);
          else this.toolRefusals.delete(key);
          return [];
        }
        this.toolRefusals.delete(key);
        const url = clusterToolUrl(check.endpoint, reach, this.options.connection.server);
        const fetch = reach === 'service-proxy' ? this.options.connection.rest.fetch : fetchWithoutRedirects;
        return [{ config: { name: check.source, transport: 'http', url, enabled: true, description: `LanguageTool ${key}`, headers: {}, secretHeaders: [], urlSecrets: [], hasBearerToken: false }, fetch }];
      }),
    );
    for (const key of [...this.toolRefusals.keys()]) if (!seen.has(key)) this.toolRefusals.delete(key);
    return sources;
  }

  /** Tells why a tool is refused, once for each new sentence (the informer calls back on every change). */
  private refuseTool(key: string, sentence: string) {
    if (this.toolRefusals.get(key) === sentence) return;
    this.toolRefusals.set(key, sentence);
    this.options.logger.warn(sentence);
  }

  /** Called on every change of a watched agent (a credential issued or revoked, its tools changed). */
  onChange(listener: () => void): () => void {
    return this.changes.on(listener);
  }

  async close(): Promise<void> {
    this.changes.clear();
    await Promise.all([...this.informers.values(), ...this.toolInformers.values(), ...this.permissionInformers.values()].map((informer) => informer.stop()));
    if (this.options.closeConnection) this.options.connection.close();
  }
}

function toolsPath(namespace: string): string {
  return `/apis/${LANGOP_API_VERSION}/namespaces/${namespace}/languagetools`;
}

/**
 * A ToolPermission's generated Tool name (`<tool>--<mcp tool>`, Orloj's form) names the LanguageTool
 * of its own namespace: it is rewritten to that tool's source (`<tool>_<namespace>--<mcp tool>`).
 * Registry names and patterns (with a `:`) and `*` stay as written.
 */
function withNamespaceToolRef(raw: RawObject & { metadata: { name: string } }, namespace: string): RawObject & { metadata: { name: string } } {
  const spec = raw.spec as { tool_ref?: unknown } | undefined;
  const ref = spec?.tool_ref;
  const generated = typeof ref === 'string' && !ref.includes(':') ? /^(.+?)--(.+)$/.exec(ref) : null;
  const source = generated ? clusterToolSourceName(generated[1]!, namespace) : undefined;
  return source ? { ...raw, spec: { ...spec, tool_ref: `${source}--${generated![2]}` } } : raw;
}

/** Whether a registry tool ref names tools of one LanguageTool of `namespace` only (`mcp:<tool>_<namespace>.<tool or *>`). */
function grantsWithinNamespace(toolRef: string, namespace: string): boolean {
  const source = /^mcp:([a-z0-9-]+)_([a-z0-9-]+)\./.exec(toolRef);
  return source !== null && source[2] === namespace;
}

function toolPermissionsPath(namespace: string): string {
  return `/apis/${ORLOJ_GROUP}/${ORLOJ_VERSION}/namespaces/${namespace}/toolpermissions`;
}
