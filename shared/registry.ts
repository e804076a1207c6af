import { z } from 'zod';
import { AppErrorShape } from './errors';
import { InvocationRecord, SourceKind, ToolSource } from './invocation';
import { MAX_TIMEOUT_MS } from './inputLimits';
import { ToolHold } from './lock';
import { McpIcon } from './icons';
import { InvocationTask, InvokeTaskOptions, TaskEvent } from './tasks';

/** MCP `execution.taskSupport`: whether a tools/call may (optional) or must (required) run as a task. */
export const TaskSupport = z.enum(['forbidden', 'optional', 'required']);
export type TaskSupport = z.infer<typeof TaskSupport>;

/** Orloj's Tool reference: `risk_level` is one of these and defaults to `low`. */
export const RiskLevel = z.enum(['low', 'medium', 'high', 'critical']);
export type RiskLevel = z.infer<typeof RiskLevel>;

/** Orloj: `operation_classes` allowed values. */
export const OperationClass = z.enum(['read', 'write', 'delete', 'admin']);
export type OperationClass = z.infer<typeof OperationClass>;

export const IsolationMode = z.enum(['none', 'sandboxed', 'container', 'wasm']);
export type IsolationMode = z.infer<typeof IsolationMode>;

export const Jitter = z.enum(['none', 'full', 'equal']);
export type Jitter = z.infer<typeof Jitter>;

export const RetryPolicy = z.object({
  /** Total attempts, the first one included. */
  maxAttempts: z.number().int().min(1),
  backoffMs: z.number().min(0),
  maxBackoffMs: z.number().min(0),
  jitter: Jitter,
});
export type RetryPolicy = z.infer<typeof RetryPolicy>;

export const RuntimePolicy = z.object({
  timeoutMs: z.number().positive(),
  isolationMode: IsolationMode,
  retry: RetryPolicy,
});
export type RuntimePolicy = z.infer<typeof RuntimePolicy>;

export const ToolPolicy = z.object({
  riskLevel: RiskLevel,
  operationClasses: z.array(OperationClass).min(1),
  /**
   * Which of the two a Tool resource set; the others come from Orloj's defaults (risk_level low)
   * and the server's annotations. Absent where the policy was not built by the registry.
   */
  setBy: z.object({ riskLevel: z.boolean(), operationClasses: z.boolean() }).optional(),
});
export type ToolPolicy = z.infer<typeof ToolPolicy>;

/** MCP tool annotations: hints from the tool's server, never trusted to loosen policy. */
export const ToolAnnotations = z.object({
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});
export type ToolAnnotations = z.infer<typeof ToolAnnotations>;

export const HttpMethod = z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
export type HttpMethod = z.infer<typeof HttpMethod>;

/**
 * How an HTTP tool (Clawdapus `claw.describe` v2 `http` field) is called. Auth holds a reference
 * (an environment variable name), never the token itself.
 */
export const HttpBinding = z.object({
  baseUrl: z.string(),
  method: HttpMethod,
  path: z.string(),
  body: z.literal('json').optional(),
  bodyKey: z.string().optional(),
  auth: z.object({ type: z.enum(['bearer', 'header', 'none']), env: z.string().optional() }).optional(),
});
export type HttpBinding = z.infer<typeof HttpBinding>;

/**
 * How a gRPC entry is called. A tools.v1 tool has its version, the versions it accepts and the one
 * calls carry (the pinned version, else its own); a reflected method has its path and streaming kind.
 */
export const GrpcBinding = z.object({
  version: z.string().optional(),
  compatibleVersions: z.array(z.string()).optional(),
  callVersion: z.string().optional(),
  /** `/package.Service/Method`. */
  path: z.string().optional(),
  serverStreaming: z.boolean().optional(),
});
export type GrpcBinding = z.infer<typeof GrpcBinding>;

/** One callable thing in the registry, whatever its kind. */
export const ToolEntry = z.object({
  /** `<source>.<tool>`, e.g. `mcp:github.create_issue`, `http:trading-api.execute_trade`. */
  name: z.string(),
  source: ToolSource,
  /** The tool's own name at its source. */
  toolName: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: ToolAnnotations.optional(),
  tags: z.array(z.string()).optional(),
  runtime: RuntimePolicy,
  policy: ToolPolicy,
  http: HttpBinding.optional(),
  grpc: GrpcBinding.optional(),
  /** MCP tools: whether calls run as tasks (absent: never). */
  taskSupport: TaskSupport.optional(),
  /** Icons the tool's server gives for it (SEP-973). */
  icons: z.array(McpIcon).optional(),
  /** MCP Apps: the `ui://` resource whose HTML shows this tool's calls (`_meta.ui.resourceUri`). */
  appResourceUri: z.string().startsWith('ui://').optional(),
});
export type ToolEntry = z.infer<typeof ToolEntry>;

export const TextContent = z.looseObject({ type: z.literal('text'), text: z.string() });
export const ImageContent = z.looseObject({ type: z.literal('image'), data: z.string(), mimeType: z.string() });
export const AudioContent = z.looseObject({ type: z.literal('audio'), data: z.string(), mimeType: z.string() });
export const ResourceLinkContent = z.looseObject({
  type: z.literal('resource_link'),
  uri: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  size: z.number().optional(),
});
export const EmbeddedResourceContent = z.looseObject({
  type: z.literal('resource'),
  resource: z.union([
    z.looseObject({ uri: z.string(), mimeType: z.string().optional(), text: z.string() }),
    z.looseObject({ uri: z.string(), mimeType: z.string().optional(), blob: z.string() }),
  ]),
});
export const ContentBlock = z.discriminatedUnion('type', [TextContent, ImageContent, AudioContent, ResourceLinkContent, EmbeddedResourceContent]);
export type ContentBlock = z.infer<typeof ContentBlock>;

/** The MCP CallToolResult shape, used for every kind of tool (MCP, A2A, HTTP). */
export const ToolResult = z.object({
  content: z.array(ContentBlock),
  structuredContent: z.unknown().optional(),
  isError: z.boolean().optional(),
  /** Set when the result was cut to `max_tool_result_bytes` (Clawdapus), so nobody reads partial data as complete. */
  truncated: z.literal(true).optional(),
});
export type ToolResult = z.infer<typeof ToolResult>;

export const Verdict = z.enum(['allow', 'confirm', 'deny']);
export type Verdict = z.infer<typeof Verdict>;

/** One rule that matched a tool: a ToolPermission's operation rule, or the server's own hint. */
export const VerdictRule = z.object({
  /** The ToolPermission's name, or `destructiveHint` for the server's annotation. */
  name: z.string(),
  verdict: Verdict,
  operationClass: z.string().optional(),
  /** The workspace file the ToolPermission is written in (relative to the workspace folder). */
  file: z.string().optional(),
});
export type VerdictRule = z.infer<typeof VerdictRule>;

/**
 * A tool's effective verdict, as the pipeline enforces it: the strictest of every matching rule.
 * `reasons` read as sentences; `rules` are the matches, so a view can link the deciding one to its file.
 */
export const PolicyVerdict = z.object({
  verdict: Verdict,
  reasons: z.array(z.string()),
  rules: z.array(VerdictRule).default([]),
  /** The lockfile holds this tool's definition for review (or rejected it): see shared/policy.ts withHold. */
  hold: ToolHold.optional(),
});
export type PolicyVerdict = z.infer<typeof PolicyVerdict>;

/** What the pipeline applies to a call unless the caller overrides it: the one timeout authority. */
export const EffectiveRuntime = z.object({
  timeoutMs: z.number(),
  maxTotalTimeoutMs: z.number(),
  resetTimeoutOnProgress: z.boolean(),
  retry: RetryPolicy,
  maxResultBytes: z.number(),
});
export type EffectiveRuntime = z.infer<typeof EffectiveRuntime>;

/** A registry entry as views show it: with the verdict and runtime the pipeline would apply. */
export const ToolView = ToolEntry.extend({ verdict: PolicyVerdict, effectiveRuntime: EffectiveRuntime });
export type ToolView = z.infer<typeof ToolView>;

/** What a caller (UI, CLI, replay, collection run) may ask of the pipeline. */
export const InvokeRequest = z.object({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).default({}),
  timeoutMs: z.number().positive().max(MAX_TIMEOUT_MS, 'at most a day (86400000 ms)').optional(),
  resetTimeoutOnProgress: z.boolean().optional(),
  maxTotalTimeoutMs: z.number().positive().max(MAX_TIMEOUT_MS, 'at most a day (86400000 ms)').optional(),
  confirmed: z.boolean().optional(),
  /** The definition hash the caller reviewed and confirmed: runs a tool the lock holds for review, only in that definition. */
  reviewedHash: z.string().optional(),
  runId: z.string().optional(),
  replayOf: z.string().optional(),
  /** Run a tool that supports tasks as a task (required-task tools always do). */
  task: InvokeTaskOptions.optional(),
});
export type InvokeRequest = z.infer<typeof InvokeRequest>;

export const InvocationProgress = z.object({ progress: z.number(), total: z.number().optional(), message: z.string().optional() });
export type InvocationProgress = z.infer<typeof InvocationProgress>;

export const InvocationOutcome = z.object({
  record: InvocationRecord,
  result: ToolResult.optional(),
  truncated: z.boolean(),
  error: AppErrorShape.optional(),
  /** Absent only when the tool was not found: there was nothing to judge. */
  verdict: PolicyVerdict.optional(),
  /** Set when the call repeated an earlier one in the same run and was not executed again (Clawdapus). */
  duplicate: z.literal(true).optional(),
  /** The task a task-augmented call ran as, with its timeline. */
  task: InvocationTask.optional(),
});
export type InvocationOutcome = z.infer<typeof InvocationOutcome>;

/** What a streaming invocation yields: progress (and task status) while it runs, then exactly one outcome. */
export const InvokeEvent = z.discriminatedUnion('type', [
  z.object({ type: z.literal('started'), at: z.number() }),
  InvocationProgress.extend({ type: z.literal('progress'), at: z.number() }),
  /** A task-augmented call: the task was created, or its status changed. */
  TaskEvent.extend({ type: z.literal('task'), taskId: z.string() }),
  z.object({ type: z.literal('outcome'), outcome: InvocationOutcome }),
  z.object({ type: z.literal('failed'), error: AppErrorShape }),
]);
export type InvokeEvent = z.infer<typeof InvokeEvent>;

export const ToolListFilter = z.object({
  sourceKind: SourceKind.optional(),
  /** `kind:name`, as `sourceId()` spells it. */
  source: z.string().optional(),
  tag: z.string().optional(),
  operationClass: OperationClass.optional(),
});
export type ToolListFilter = z.infer<typeof ToolListFilter>;

export const CatalogChange = z.object({
  source: ToolSource,
  added: z.array(z.string()),
  removed: z.array(z.string()),
  updated: z.array(z.string()),
});
export type CatalogChange = z.infer<typeof CatalogChange>;

export const SearchDocumentKind = z.enum(['tool', 'agent', 'skill']);
export type SearchDocumentKind = z.infer<typeof SearchDocumentKind>;

export const SearchHit = z.object({
  id: z.string(),
  kind: SearchDocumentKind,
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  source: z.string().optional(),
  /** Relevance normalized to 0..1 (the best hit of a query scores 1). */
  score: z.number().min(0).max(1),
  /** For tools and skills: the effective verdict, so the palette shows what a call would meet. */
  verdict: Verdict.optional(),
});
export type SearchHit = z.infer<typeof SearchHit>;

export const SearchQuery = z.object({
  query: z.string(),
  limit: z.number().int().min(1).max(200).optional(),
  kinds: z.array(SearchDocumentKind).optional(),
});
export type SearchQuery = z.infer<typeof SearchQuery>;
