/**
 * The JSON Schema (draft-07) subset the resource kinds are described with. The objects are plain
 * data, so the YAML editor (monaco-yaml) can load them as they are; `x-kubernetes-*` keywords come
 * from the CRD schemas and are ignored by JSON Schema validators.
 */
export interface JsonSchema {
  $schema?: string;
  $id?: string;
  title?: string;
  description?: string;
  type?: JsonSchemaType | JsonSchemaType[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: readonly unknown[];
  const?: unknown;
  default?: unknown;
  examples?: unknown[];
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  if?: JsonSchema;
  then?: JsonSchema;
  else?: JsonSchema;
  not?: JsonSchema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
}

export type JsonSchemaType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean' | 'null';

/** A Go duration string as Orloj writes them ("30s", "1m30s", "250ms"); a bare 0 needs no unit. */
export const GO_DURATION_PATTERN = '^[-+]?(0|(([0-9]+\\.?[0-9]*|\\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$';

export const durationSchema = (description: string, defaultValue?: string): JsonSchema => ({
  type: 'string',
  description,
  pattern: GO_DURATION_PATTERN,
  ...(defaultValue !== undefined ? { default: defaultValue } : {}),
  examples: ['30s', '1m30s', '250ms'],
});

export const stringListSchema = (description: string): JsonSchema => ({ type: 'array', description, items: { type: 'string' } });
