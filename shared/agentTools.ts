import { z } from 'zod';
import { ToolsPolicy } from './resources/clawPod';

/** What an agent of a pod file may call, resolved against the registry (Clawdapus). */
export const AgentGrantView = z.object({
  /** A registry source id: `mcp:github`, `http:trading-api`. */
  source: z.string(),
  allow: z.union([z.literal('all'), z.array(z.string())]),
  /** The tools of the source the registry knows (from the live connection or the last discovery). */
  available: z.number().int().min(0),
  /** The granted tools the compiled manifest will hold. */
  granted: z.number().int().min(0),
  /** Granted tools left out because tooldeck.lock holds their definitions for review. */
  held: z.array(z.object({ tool: z.string(), reason: z.string() })).default([]),
});
export type AgentGrantView = z.infer<typeof AgentGrantView>;

export const AgentSummary = z.object({
  /** `<pod>/<agent>`: what `tooldeck compile --agent` and the UI use to name it. */
  ref: z.string(),
  name: z.string(),
  pod: z.string(),
  /** The workspace file the pod is written in. */
  file: z.string(),
  cllama: z.string().optional(),
  /** How the agent's list came about: the pod defaults, its own list, or its own list plus the defaults (`...`). */
  declares: z.enum(['defaults', 'own', 'ownAndDefaults']),
  grants: z.array(AgentGrantView),
  toolCount: z.number().int().min(0),
  policy: ToolsPolicy,
  /** Why tools.json cannot be compiled as declared (unknown tools, sources without tools); empty when it can. */
  problems: z.array(z.string()),
  /** Granted MCP servers without a network endpoint (stdio): config.yaml, which lists endpoints, cannot name them. */
  withoutEndpoint: z.array(z.string()),
});
export type AgentSummary = z.infer<typeof AgentSummary>;

export const CompileFormat = z.enum(['tools.json', 'config.yaml']);
export type CompileFormat = z.infer<typeof CompileFormat>;

export const CompileAgentInput = z.object({
  /** `<agent>` when the name is unique in the workspace, else `<pod>/<agent>`. */
  agent: z.string().trim().min(1),
  format: CompileFormat,
});
export type CompileAgentInput = z.infer<typeof CompileAgentInput>;

export const CompiledAgentFile = z.object({
  ref: z.string(),
  format: CompileFormat,
  /** Where `write` puts it by default: `.claw-runtime/context/<agent>/<format>` in the workspace, Clawdapus's layout. */
  defaultPath: z.string(),
  text: z.string(),
  toolCount: z.number().int().min(0),
  /** What the file leaves out although the agent is granted it: tools (or, in config.yaml, whole MCP servers) held for review. */
  withheld: z.array(z.object({ name: z.string(), reason: z.string() })).default([]),
});
export type CompiledAgentFile = z.infer<typeof CompiledAgentFile>;

export const WriteAgentFilesInput = z.object({
  agent: z.string().trim().min(1),
  formats: z.array(CompileFormat).min(1).default(['tools.json', 'config.yaml']),
});
export type WriteAgentFilesInput = z.input<typeof WriteAgentFilesInput>;

export const WrittenAgentFiles = z.object({
  /** Absolute paths written. */
  written: z.array(z.object({ format: CompileFormat, path: z.string() })),
  /** Formats that could not be compiled, with why; the others were still written. */
  failed: z.array(z.object({ format: CompileFormat, message: z.string() })),
});
export type WrittenAgentFiles = z.infer<typeof WrittenAgentFiles>;
