import { z } from 'zod';
import type { JsonSchema } from './jsonSchema';

/** Orloj's API group (its Tool, McpServer and ToolPermission kinds). */
export const ORLOJ_API_VERSION = 'orloj.dev/v1';
/** Orloj puts every object without a namespace in `default`. */
export const ORLOJ_DEFAULT_NAMESPACE = 'default';

export const ResourceKind = z.enum(['Tool', 'McpServer', 'ToolPermission', 'LanguageTool', 'LanguageAgent', 'ClawDescriptor', 'ClawPod', 'EvalSuite']);
export type ResourceKind = z.infer<typeof ResourceKind>;

export const ResourceMetadata = z.object({
  name: z.string(),
  namespace: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
});
export type ResourceMetadata = z.infer<typeof ResourceMetadata>;

/** Any object of the workspace after defaults: the envelope every kind shares. */
export const ResourceObject = z.looseObject({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: ResourceMetadata,
  spec: z.record(z.string(), z.unknown()).optional(),
});
export type ResourceObject = z.infer<typeof ResourceObject>;

/** Where an object was written: a workspace file (relative, `/`-separated) and its document index. */
export const ResourceSource = z.object({ file: z.string(), document: z.number().int().min(0) });
export type ResourceSource = z.infer<typeof ResourceSource>;

const stringMap: JsonSchema = { type: 'object', additionalProperties: { type: 'string' } };

export const metadataSchema: JsonSchema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, description: 'Unique per kind and namespace.' },
    namespace: { type: 'string', description: 'Defaults to "default".' },
    labels: stringMap,
    annotations: stringMap,
  },
};

/** The envelope of an Orloj kind: apiVersion, kind, metadata and the kind's spec. */
export function orlojObjectSchema(kind: string, description: string, spec: JsonSchema): JsonSchema {
  return {
    type: 'object',
    description,
    required: ['apiVersion', 'kind', 'metadata'],
    properties: {
      apiVersion: { const: ORLOJ_API_VERSION },
      kind: { const: kind },
      metadata: metadataSchema,
      spec,
      status: { type: 'object', description: 'Written by the reconciler; a value in the file is ignored.' },
    },
  };
}
