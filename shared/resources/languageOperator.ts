import { languageAgentSchema, languageToolSchema, type OpenApiSchema } from '../crdSchemas';
import { LANGOP_API_VERSION } from '../kube';
import type { JsonSchema } from './jsonSchema';
import { metadataSchema } from './meta';

/**
 * The CRD schemas of resources/crds, pinned to their apiVersion and kind so the editor can tell the
 * kinds apart. The spec schema is the very object the CRD serves.
 */
function pinned(kind: string, schema: OpenApiSchema): JsonSchema {
  return {
    ...schema,
    required: ['apiVersion', 'kind', 'metadata', 'spec'],
    properties: { ...schema.properties, apiVersion: { const: LANGOP_API_VERSION }, kind: { const: kind }, metadata: metadataSchema },
  };
}

export const languageToolObjectSchema: JsonSchema = pinned('LanguageTool', languageToolSchema);
export const languageAgentObjectSchema: JsonSchema = pinned('LanguageAgent', languageAgentSchema);
