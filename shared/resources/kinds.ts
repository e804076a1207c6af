import { LANGOP_API_VERSION } from '../kube';
import { clawDescriptorSchema } from './clawDescriptor';
import { clawPodSchema } from './clawPod';
import { evalSuiteSchema } from '../evals';
import type { JsonSchema } from './jsonSchema';
import { languageAgentObjectSchema, languageToolObjectSchema } from './languageOperator';
import { mcpServerSchema } from './mcpServer';
import { ORLOJ_API_VERSION, type ResourceKind } from './meta';
import { orlojToolSchema } from './orlojTool';
import { toolPermissionSchema } from './toolPermission';

export interface KindInfo {
  kind: ResourceKind;
  /** Undefined for the Clawdapus descriptor and pod file and eval suites, which are file formats rather than API objects. */
  apiVersion?: string;
  schema: JsonSchema;
  /** Which kinds the embedded (local) target acts on; the others are stored and validated only. */
  reconciledLocally: boolean;
}

export const RESOURCE_KINDS: readonly KindInfo[] = [
  { kind: 'McpServer', apiVersion: ORLOJ_API_VERSION, schema: mcpServerSchema, reconciledLocally: true },
  { kind: 'Tool', apiVersion: ORLOJ_API_VERSION, schema: orlojToolSchema, reconciledLocally: true },
  { kind: 'ToolPermission', apiVersion: ORLOJ_API_VERSION, schema: toolPermissionSchema, reconciledLocally: true },
  { kind: 'LanguageTool', apiVersion: LANGOP_API_VERSION, schema: languageToolObjectSchema, reconciledLocally: false },
  { kind: 'LanguageAgent', apiVersion: LANGOP_API_VERSION, schema: languageAgentObjectSchema, reconciledLocally: false },
  { kind: 'ClawDescriptor', schema: clawDescriptorSchema, reconciledLocally: false },
  // Agents and their tool grants (Clawdapus); compiled into tools.json / config.yaml, not reconciled.
  { kind: 'ClawPod', schema: clawPodSchema, reconciledLocally: false },
  // Which tool a model should pick for a prompt (`evals/*.yml`); run by `tooldeck eval` and the Evals view.
  { kind: 'EvalSuite', schema: evalSuiteSchema, reconciledLocally: false },
];

export function kindInfo(kind: string): KindInfo | undefined {
  return RESOURCE_KINDS.find((info) => info.kind === kind);
}

/**
 * One schema for any document of a workspace YAML file: `kind` picks the kind's schema. Descriptor
 * files (`*.claw-describe.*`) use clawDescriptorSchema instead.
 */
export const workspaceDocumentSchema: JsonSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'tooldeck://schemas/workspace-document.json',
  title: 'Tooldeck workspace resource',
  type: 'object',
  required: ['apiVersion', 'kind'],
  properties: {
    apiVersion: { type: 'string', enum: [ORLOJ_API_VERSION, LANGOP_API_VERSION] },
    kind: { type: 'string', enum: RESOURCE_KINDS.filter((info) => info.apiVersion).map((info) => info.kind) },
  },
  allOf: RESOURCE_KINDS.filter((info) => info.apiVersion).map((info) => ({
    if: { properties: { kind: { const: info.kind } }, required: ['kind'] },
    then: info.schema,
  })),
};
