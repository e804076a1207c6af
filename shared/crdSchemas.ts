/**
 * Structural OpenAPI v3 schemas of the langop.io/v1alpha1 kinds, as served by the CRDs in
 * resources/crds. The YAML editor validates manifests with the same objects; the `x-kubernetes-*`
 * keywords are Kubernetes extensions a JSON Schema validator must be told to accept.
 */
export interface OpenApiSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, OpenApiSchema>;
  additionalProperties?: OpenApiSchema;
  items?: OpenApiSchema;
  required?: string[];
  enum?: string[];
  default?: unknown;
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  anyOf?: OpenApiSchema[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  /** CEL rules the API server checks on every write (`oldSelf` makes a rule a transition rule). */
  'x-kubernetes-validations'?: Array<{ rule: string; message: string }>;
}

const dnsLabel: OpenApiSchema = { type: 'string', minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' };
const anyObject = (description: string): OpenApiSchema => ({ type: 'object', description, 'x-kubernetes-preserve-unknown-fields': true });
const stringList = (description: string): OpenApiSchema => ({ type: 'array', description, items: { type: 'string' } });

const quantity: OpenApiSchema = {
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  pattern: '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
  'x-kubernetes-int-or-string': true,
};

const conditions: OpenApiSchema = {
  type: 'array',
  description: 'Latest observations of the object: Ready (the workload is available) and Discovered (tools/list answered).',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
  items: {
    type: 'object',
    required: ['type', 'status', 'lastTransitionTime'],
    properties: {
      type: { type: 'string', minLength: 1, maxLength: 316 },
      status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
      reason: { type: 'string', maxLength: 1024 },
      message: { type: 'string', maxLength: 32768 },
      lastTransitionTime: { type: 'string', format: 'date-time', description: 'Changes only when status changes.' },
      observedGeneration: { type: 'integer', minimum: 0 },
    },
  },
};

const phase: OpenApiSchema = { type: 'string', enum: ['Pending', 'Running', 'Failed', 'Updating', 'Unknown'] };

/** One tools/list entry as the server sent it. */
const toolSchemaItem: OpenApiSchema = {
  type: 'object',
  required: ['name'],
  'x-kubernetes-preserve-unknown-fields': true,
  properties: {
    name: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string' },
    inputSchema: anyObject('JSON Schema of the arguments.'),
    outputSchema: anyObject('JSON Schema of structuredContent.'),
    annotations: anyObject('Behaviour hints (readOnlyHint, destructiveHint…).'),
  },
};

export const languageToolSchema: OpenApiSchema = {
  type: 'object',
  description: 'An MCP server that agents call: deployed as a Deployment + Service (or as a sidecar of each agent), discovered with tools/list.',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      required: ['image'],
      properties: {
        image: { type: 'string', minLength: 1, description: 'Container image that serves MCP (Streamable HTTP at /mcp) on spec.port.' },
        type: { type: 'string', enum: ['mcp'], default: 'mcp', description: 'Tool protocol; only mcp.' },
        port: { type: 'integer', minimum: 1, maximum: 65535, default: 8080, description: 'Port the tool listens on.' },
        deploymentMode: {
          type: 'string',
          enum: ['service', 'sidecar'],
          default: 'service',
          description: 'service: one shared Deployment + Service; sidecar: a native sidecar in each referencing agent pod.',
        },
        deployment: {
          type: 'object',
          description: 'Pod and container settings of the tool workload.',
          properties: {
            replicas: { type: 'integer', minimum: 0, description: 'Replicas of the service-mode Deployment (default 1).' },
            imagePullPolicy: { type: 'string', enum: ['Always', 'Never', 'IfNotPresent'] },
            command: stringList('Overrides the image entrypoint.'),
            args: stringList('Arguments of the entrypoint.'),
            env: {
              type: 'array',
              description: 'Environment variables of the tool container.',
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['name'],
              items: {
                type: 'object',
                required: ['name'],
                properties: {
                  name: { type: 'string', minLength: 1 },
                  value: { type: 'string' },
                  valueFrom: anyObject('A core/v1 EnvVarSource.'),
                },
              },
            },
            resources: {
              type: 'object',
              description: 'Compute resources of the tool container.',
              properties: {
                limits: { type: 'object', additionalProperties: quantity },
                requests: { type: 'object', additionalProperties: quantity },
              },
            },
          },
        },
      },
    },
    status: {
      type: 'object',
      properties: {
        phase,
        endpoint: { type: 'string', description: 'Where agents reach the tool over MCP.' },
        availableTools: stringList('Names of the discovered tools.'),
        toolSchemas: { type: 'array', description: 'The tools/list result of the last discovery.', items: toolSchemaItem },
        definitions: {
          type: 'object',
          description: 'Definition hashes of the discovered tools (RFC 8785 JSON, SHA-256) and the approved set hash (annotation langop.io/approved-definitions).',
          properties: {
            hash: { type: 'string', description: 'Of the whole set of discovered tools.' },
            tools: { type: 'object', description: 'Per tool name.', additionalProperties: { type: 'string' } },
            approvedHash: { type: 'string' },
          },
        },
        approvedToolSchemas: { type: 'array', description: 'While DefinitionsChanged is True: the last discovered set that was approved, for the diff.', items: toolSchemaItem },
        conditions,
        observedGeneration: { type: 'integer', minimum: 0 },
      },
    },
  },
};

export const languageAgentSchema: OpenApiSchema = {
  type: 'object',
  description: 'An agent; its tools get their endpoints in /etc/agent/config.yaml (ConfigMap <agent>-config).',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      properties: {
        image: { type: 'string' },
        instructions: { type: 'string', description: 'System instructions of the agent.' },
        tools: {
          type: 'array',
          description: 'LanguageTools (same namespace) the agent uses.',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: {
              name: dnsLabel,
              enabled: { type: 'boolean', default: true, description: 'false leaves the tool out of the config without removing the reference.' },
            },
          },
        },
        models: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: dnsLabel } },
        },
      },
    },
    status: {
      type: 'object',
      properties: { phase, conditions, observedGeneration: { type: 'integer', minimum: 0 } },
    },
  },
};
