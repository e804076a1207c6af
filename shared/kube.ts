/**
 * The Language Operator model as the cluster stores it: the `langop.io/v1alpha1` LanguageTool and
 * LanguageAgent resources, their status, and the names and keys the reconciler writes. What the
 * console's Cluster section and `tooldeck kube inventory` send and show (contexts, inventory rows,
 * apply results, the operator panel) is in kubeApi.ts, built on these.
 */
import { z } from 'zod';
import { ToolDefinition } from './lock';

/** The Language Operator API group served by the CRDs in resources/crds. */
export const LANGOP_GROUP = 'langop.io';
export const LANGOP_VERSION = 'v1alpha1';
export const LANGOP_API_VERSION = `${LANGOP_GROUP}/${LANGOP_VERSION}`;
/** Held on every LanguageTool until its endpoint is gone from all agent configs. */
export const LANGOP_FINALIZER = 'langop.io/finalizer';
/** Field manager for server-side apply and for every other write, so `managedFields` tells whose a field is. */
export const TOOLDECK_FIELD_MANAGER = 'tooldeck';
/** Agents read their tools from this key of the ConfigMap `<agent>-config`, mounted at /etc/agent/config.yaml. */
export const AGENT_CONFIG_KEY = 'config.yaml';
export const agentConfigMapName = (agent: string) => `${agent}-config`;
/** The agent's workload is the Deployment named after the agent; sidecar tools are added to it. */
export const agentDeploymentName = (agent: string) => agent;

export const KubeName = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'Use lowercase letters, digits and "-" (a DNS label)');

export const ToolPhase = z.enum(['Pending', 'Running', 'Failed', 'Updating', 'Unknown']);
export type ToolPhase = z.infer<typeof ToolPhase>;

export const DeploymentMode = z.enum(['service', 'sidecar']);
export type DeploymentMode = z.infer<typeof DeploymentMode>;

export const EnvVar = z.object({
  name: z.string().min(1),
  value: z.string().optional(),
  /** A core/v1 EnvVarSource (secretKeyRef, configMapKeyRef, fieldRef…), passed through as written. */
  valueFrom: z.record(z.string(), z.unknown()).optional(),
});
export type EnvVar = z.infer<typeof EnvVar>;

const Quantity = z.union([z.string(), z.number()]);
export const ResourceRequirements = z.object({
  limits: z.record(z.string(), Quantity).optional(),
  requests: z.record(z.string(), Quantity).optional(),
});
export type ResourceRequirements = z.infer<typeof ResourceRequirements>;

/** Pod and container settings of the tool's workload (`spec.deployment`, as in the Language Operator). */
export const ToolDeploymentSpec = z.object({
  replicas: z.number().int().min(0).optional(),
  env: z.array(EnvVar).optional(),
  resources: ResourceRequirements.optional(),
  command: z.array(z.string()).optional(),
  args: z.array(z.string()).optional(),
  imagePullPolicy: z.enum(['Always', 'Never', 'IfNotPresent']).optional(),
});
export type ToolDeploymentSpec = z.infer<typeof ToolDeploymentSpec>;

export const LanguageToolSpec = z.object({
  image: z.string().min(1, 'image is required'),
  type: z.literal('mcp').default('mcp'),
  port: z.number().int().min(1).max(65535).default(8080),
  deploymentMode: DeploymentMode.default('service'),
  deployment: ToolDeploymentSpec.optional(),
});
export type LanguageToolSpec = z.infer<typeof LanguageToolSpec>;

export const ConditionStatus = z.enum(['True', 'False', 'Unknown']);
export const Condition = z.object({
  type: z.string().min(1),
  status: ConditionStatus,
  reason: z.string(),
  message: z.string(),
  /** RFC 3339; changes only when `status` changes. */
  lastTransitionTime: z.string(),
  observedGeneration: z.number().int().optional(),
});
export type Condition = z.infer<typeof Condition>;

/** One entry of an MCP `tools/list` result, kept as the server sent it. */
export const ToolSchema = z.looseObject(ToolDefinition.shape);
export type ToolSchema = z.infer<typeof ToolSchema>;

/**
 * The definition hashes of the discovered tools (RFC 8785 JSON, SHA-256, as in tooldeck.lock) and
 * the hash of the whole set an operator approved (the `langop.io/approved-definitions` annotation).
 */
export const ToolDefinitionsStatus = z.object({
  /** Of the whole set of discovered tools. */
  hash: z.string(),
  /** Per tool. */
  tools: z.record(z.string(), z.string()),
  approvedHash: z.string().optional(),
});
export type ToolDefinitionsStatus = z.infer<typeof ToolDefinitionsStatus>;

export const LanguageToolStatus = z.object({
  phase: ToolPhase.optional(),
  endpoint: z.string().optional(),
  toolSchemas: z.array(ToolSchema).optional(),
  availableTools: z.array(z.string()).optional(),
  definitions: ToolDefinitionsStatus.optional(),
  /** While the discovered definitions are not the approved ones: the last discovered set that was, for the diff. */
  approvedToolSchemas: z.array(ToolSchema).optional(),
  conditions: z.array(Condition).optional(),
  observedGeneration: z.number().int().optional(),
});
export type LanguageToolStatus = z.infer<typeof LanguageToolStatus>;

export const ToolReference = z.object({
  name: KubeName,
  /** false keeps the reference but leaves the tool out of the agent's config. */
  enabled: z.boolean().default(true),
});
export type ToolReference = z.infer<typeof ToolReference>;

export const LanguageAgentSpec = z.object({
  image: z.string().optional(),
  instructions: z.string().optional(),
  tools: z.array(ToolReference).default([]),
  models: z.array(z.object({ name: KubeName })).optional(),
});
export type LanguageAgentSpec = z.infer<typeof LanguageAgentSpec>;

export const LanguageAgentStatus = z.object({
  phase: z.enum(['Pending', 'Running', 'Failed', 'Updating', 'Unknown']).optional(),
  conditions: z.array(Condition).optional(),
  observedGeneration: z.number().int().optional(),
});
export type LanguageAgentStatus = z.infer<typeof LanguageAgentStatus>;

/** The `tools:` entry an agent gets for each tool it references (Language Operator's /etc/agent/config.yaml). */
export const AgentToolEntry = z.object({
  endpoint: z.string(),
  protocol: z.literal('mcp'),
  /** Request headers the agent sends with each call; a value may name an environment variable as `${NAME}` (the gateway credential does). */
  headers: z.record(z.string(), z.string()).optional(),
});
export type AgentToolEntry = z.infer<typeof AgentToolEntry>;
