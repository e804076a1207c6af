import { timingSafeEqual } from 'node:crypto';
import { AppError } from '../../shared/errors';
import { LANGOP_API_VERSION } from '../../shared/kube';
import type { CredentialCheck } from '../gateway/AgentCredentials';
import type { ClusterAgentSource } from '../gateway/Gateway';
import type { WorkspaceLanguageAgent } from '../gateway/AgentGrants';
import { Emitter } from '../platform/Emitter';
import type { Logger } from '../platform/Logger';
import { isKubeApiError } from './KubeApiError';
import type { KubeConnection } from './KubeConnection';
import { GATEWAY_CREDENTIAL_HASH_ANNOTATION, gatewayAgentName, parseGatewayAgentName, SHA256_HEX, sha256Hex } from './gatewayAgents';
import { ResilientInformer } from './ResilientInformer';
import type { LanguageAgentObject } from './toolResources';

export interface ClusterAgentsOptions {
  connection: KubeConnection;
  /** The namespaces whose LanguageAgents may use the gateway (`gateway --agent-namespace`). */
  namespaces: readonly string[];
  logger: Logger;
  /** close() also closes the connection (the source owns it). */
  closeConnection?: boolean;
}

const REFUSED: CredentialCheck = { ok: false, status: 403, reason: 'The agent credential is not valid (unknown agent, wrong secret or revoked).' };

/**
 * The gateway's view of Language Operator agents in a cluster (`gateway --in-cluster` or
 * `--kubeconfig` with `--agent-namespace`): which agents hold a credential the operator issued
 * (the SHA-256 in each LanguageAgent's annotation; the gateway never reads a Secret) and which
 * LanguageTools each one's `spec.tools` grants. Watched, so an agent that opts out or is deleted
 * is refused from the next request on, and its open sessions end.
 */
export class ClusterAgents implements ClusterAgentSource {
  private readonly informers: Map<string, ResilientInformer<LanguageAgentObject>>;
  private readonly changes = new Emitter();

  private constructor(private readonly options: ClusterAgentsOptions) {
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
    const agents = new ClusterAgents(options);
    await Promise.all([...agents.informers.values()].map((informer) => informer.start()));
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
        return [{ name, tools: (agent.spec?.tools ?? []).filter((tool) => tool.enabled !== false).map((tool) => tool.name) }];
      }),
    );
  }

  /** Called on every change of a watched agent (a credential issued or revoked, its tools changed). */
  onChange(listener: () => void): () => void {
    return this.changes.on(listener);
  }

  async close(): Promise<void> {
    this.changes.clear();
    await Promise.all([...this.informers.values()].map((informer) => informer.stop()));
    if (this.options.closeConnection) this.options.connection.close();
  }
}
