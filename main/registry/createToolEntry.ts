import type { McpIcon } from '../../shared/icons';
import type { ToolSource } from '../../shared/invocation';
import type { GrpcBinding, HttpBinding, TaskSupport, ToolAnnotations, ToolEntry } from '../../shared/registry';
import { normalizeRuntime, type RawRuntime } from './policy/normalizeRuntime';
import { areOperationClassesSet, resolveOperationClasses } from './policy/operationClasses';
import { isRiskLevelSet, normalizeRiskLevel } from './policy/riskLevel';
import { toolEntryName } from './ToolCatalog';

/** A tool as its source describes it: the MCP Tool shape (A2A skills and HTTP tools are mapped onto it). */
export interface DescribedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations;
  /** MCP `execution.taskSupport`. */
  taskSupport?: TaskSupport;
  /** MCP Apps `_meta.ui.resourceUri`. */
  appResourceUri?: string;
  icons?: McpIcon[];
}

/** What an operator configured for a tool, with Orloj's field names. */
export interface ToolConfig {
  risk_level?: string;
  operation_classes?: string[];
  runtime?: RawRuntime;
}

export interface ToolEntryInput {
  source: ToolSource;
  tool: DescribedTool;
  config?: ToolConfig;
  tags?: string[];
  http?: HttpBinding;
  grpc?: GrpcBinding;
}

/** Builds a normalized entry: namespaced name, Orloj policy and runtime defaults, annotation-derived classes. */
export function createToolEntry({ source, tool, config, tags, http, grpc }: ToolEntryInput): ToolEntry {
  const riskLevel = normalizeRiskLevel(config?.risk_level);
  const title = tool.title ?? tool.annotations?.title;
  return {
    name: toolEntryName(source, tool.name),
    source,
    toolName: tool.name,
    ...(title !== undefined ? { title } : {}),
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema ?? { type: 'object' },
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    ...(tags?.length ? { tags } : {}),
    runtime: normalizeRuntime(config?.runtime, riskLevel),
    policy: {
      riskLevel,
      operationClasses: resolveOperationClasses(config?.operation_classes, tool.annotations, riskLevel),
      // What the views explain: a low risk a Tool resource chose is not Orloj's default.
      setBy: { riskLevel: isRiskLevelSet(config?.risk_level), operationClasses: areOperationClassesSet(config?.operation_classes) },
    },
    ...(http ? { http } : {}),
    ...(grpc ? { grpc } : {}),
    ...(tool.taskSupport && tool.taskSupport !== 'forbidden' ? { taskSupport: tool.taskSupport } : {}),
    ...(tool.appResourceUri ? { appResourceUri: tool.appResourceUri } : {}),
    ...(tool.icons?.length ? { icons: tool.icons } : {}),
  };
}
