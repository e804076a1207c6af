import type { ToolPermission } from '../../shared/policy';
import type { ProvidedServer } from '../mcp/McpService';
import { presentedCredential, type AgentCredentials, type CredentialCheck, type GatewayCredentialCheck } from './AgentCredentials';
import type { WorkspaceLanguageAgent } from './AgentGrants';

/** Agents whose credentials live in a cluster (kept there by the operator), as Tooldeck asks about them. */
export interface ClusterAgentSource {
  /** Whether `name` is a cluster agent name this source answers for (then the data dir's credentials are not asked). */
  knows(name: string): boolean;
  verify(name: string, secret: string): CredentialCheck;
  isLive(name: string): boolean;
  /** The agents holding a credential and the LanguageTools each references (their grants), with their model grants. */
  languageAgents(): WorkspaceLanguageAgent[];
  /** The cluster's ToolPermissions for these agents, as the pipeline enforces them. */
  permissions(): ToolPermission[];
  /** Those of them that grant tools (Orloj's scoped ones). */
  grantingPermissions(): ToolPermission[];
  /** The cluster's tool servers (LanguageTools) as MCP sources, named as languageAgents() references them. */
  toolSources(): ProvidedServer[];
  onChange(listener: () => void): () => void;
}

/**
 * Who an HTTP door's caller is: the agent its credential names — a cluster's agents (when given)
 * answer for the names they know, every other name is the data dir's. Never a header's claim.
 * (On RockBot's bus the broker vouches instead: the AMQP `user_id` RabbitMQ validated.)
 */
export function agentAdmission(local: AgentCredentials, cluster?: ClusterAgentSource): GatewayCredentialCheck {
  if (!cluster) return local;
  return {
    check: (headers) => {
      const presented = presentedCredential(headers);
      if (!('name' in presented)) return presented;
      return cluster.knows(presented.name) ? cluster.verify(presented.name, presented.secret) : local.verify(presented.name, presented.secret);
    },
    isLive: (name) => (cluster.knows(name) ? cluster.isLive(name) : local.isLive(name)),
    onChange: (listener) => {
      const stops = [local.onChange(listener), cluster.onChange(listener)];
      return () => stops.forEach((stop) => stop());
    },
  };
}
