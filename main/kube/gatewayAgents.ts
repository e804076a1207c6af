import { createHash, randomBytes } from 'node:crypto';
import { ModelPattern } from '../../shared/agents';
import { DEFAULT_GATEWAY_PORT, GatewayAgentName } from '../../shared/gateway';
import type { AgentToolEntry } from '../../shared/kube';

/**
 * Language Operator agents that reach their tools through the Tooldeck gateway.
 *
 * A LanguageAgent opts in with the label `tooldeck.dev/gateway: enabled` on itself or on its
 * namespace (`disabled` on the agent keeps one agent out of an opted-in namespace). The operator
 * then issues it a credential: the Secret `tooldeck-gateway-<agent>` in the agent's namespace holds
 * `NAME:SECRET` (256 random bits), and the agent's own annotation holds only the SHA-256 of the
 * secret. The gateway reads LanguageAgents, never Secrets: it needs no Secret rights at all. Whoever
 * may write that annotation may already rewrite the agent's `spec.tools` (its grants), so the
 * annotation gives nobody more than they have.
 */

export const GATEWAY_OPT_IN_LABEL = 'tooldeck.dev/gateway';
export const GATEWAY_OPT_IN = 'enabled';
export const GATEWAY_OPT_OUT = 'disabled';
/** On the LanguageAgent: SHA-256 (hex) of the secret of its gateway credential. Written by the operator only. */
export const GATEWAY_CREDENTIAL_HASH_ANNOTATION = 'tooldeck.dev/gateway-credential-sha256';
/**
 * The models a cluster agent may use through mediation: comma-separated `<provider>/<model>`
 * patterns with `*` wildcards on its LanguageAgent (`mock/*, openai/gpt-4o`). Absent: none (deny by
 * default). Whoever may edit the LanguageAgent decides, as for its spec.tools.
 */
export const GATEWAY_MODELS_ANNOTATION = 'tooldeck.dev/models';

/** The model patterns an annotation value grants: valid ones only, each at most once. */
export function modelsFromAnnotation(value: string | undefined): string[] {
  if (!value) return [];
  return [...new Set(value.split(',').map((item) => item.trim()).filter((item) => ModelPattern.safeParse(item).success))];
}
/** On the credential Secret: the agent it was issued to (the operator finds and removes it by this). */
export const GATEWAY_AGENT_LABEL = 'tooldeck.dev/gateway-agent';
/** The Secret's key holding `NAME:SECRET`. */
export const GATEWAY_CREDENTIAL_KEY = 'credential';
/** The environment variable the agent's container gets the credential in; config.yaml names it, never holds it. */
export const GATEWAY_CREDENTIAL_ENV = 'TOOLDECK_GATEWAY_CREDENTIAL';
export const GATEWAY_SERVICE = 'tooldeck-gateway';
/** The field manager of the credential's environment variable in an agent's Deployment. */
export const GATEWAY_ENV_FIELD_MANAGER = 'tooldeck-gateway-credential';

/** Where opted-in agents' tool calls go: the gateway Service `kube install --gateway` creates. */
export interface GatewayTarget {
  namespace: string;
  port?: number;
  service?: string;
}

export const gatewayCredentialSecretName = (agent: string) => `tooldeck-gateway-${agent}`;

/** `http://tooldeck-gateway.<ns>.svc.cluster.local:<port>/mcp` */
export function gatewayEndpoint(target: GatewayTarget): string {
  return `http://${target.service ?? GATEWAY_SERVICE}.${target.namespace}.svc.cluster.local:${target.port ?? DEFAULT_GATEWAY_PORT}/mcp`;
}

/** The config.yaml entry of every tool of an opted-in agent: the gateway, with the credential named by its environment variable. */
export function gatewayToolEntry(target: GatewayTarget): AgentToolEntry {
  return { endpoint: gatewayEndpoint(target), protocol: 'mcp', headers: { Authorization: `Bearer \${${GATEWAY_CREDENTIAL_ENV}}` } };
}

/**
 * The name the gateway knows a cluster agent by: `<agent>.<namespace>` (a namespace is a DNS label
 * without dots, so the last dot splits it back). Undefined when that is not a valid gateway agent
 * name (over 64 characters): such an agent cannot be given a credential.
 */
export function gatewayAgentName(agent: string, namespace: string): string | undefined {
  if (!DNS_LABEL.test(namespace) || !DNS_SUBDOMAIN.test(agent)) return undefined;
  const name = `${agent}.${namespace}`;
  return GatewayAgentName.safeParse(name).success ? name : undefined;
}

/** The agent and namespace of a gateway agent name made by gatewayAgentName; undefined for any other form. */
export function parseGatewayAgentName(name: string): { agent: string; namespace: string } | undefined {
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const agent = name.slice(0, dot);
  const namespace = name.slice(dot + 1);
  return gatewayAgentName(agent, namespace) === name ? { agent, namespace } : undefined;
}

/**
 * Whether an agent opted in: its own label decides when it has one (`enabled` or `disabled`), else
 * its namespace's. Any other value of the agent's label counts as not set.
 */
export function optedIn(agentLabels: Readonly<Record<string, string>> | undefined, namespaceLabels: Readonly<Record<string, string>> | undefined): boolean {
  const own = agentLabels?.[GATEWAY_OPT_IN_LABEL];
  if (own === GATEWAY_OPT_IN) return true;
  if (own === GATEWAY_OPT_OUT) return false;
  return namespaceLabels?.[GATEWAY_OPT_IN_LABEL] === GATEWAY_OPT_IN;
}

/** A fresh credential: `NAME:SECRET` for the Secret and the SHA-256 of the secret for the agent's annotation. */
export function issueGatewayCredential(name: string): { credential: string; sha256: string } {
  const secret = randomBytes(32).toString('base64url');
  return { credential: `${name}:${secret}`, sha256: sha256Hex(secret) };
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export const SHA256_HEX = /^[0-9a-f]{64}$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
