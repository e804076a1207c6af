import type { JsonSchema } from './jsonSchema';

/** Files named `<service>.claw-describe.{json,yaml,yml}` hold a Clawdapus descriptor of that service. */
export const CLAW_DESCRIPTOR_FILE = /^(.+)\.claw-describe\.(json|ya?ml)$/;

/**
 * A Clawdapus `claw.describe` descriptor. Version 2 declares MCP-shaped tools, each with
 * `http` execution metadata unless the service speaks MCP (`mcp` set). `auth.env` names the
 * environment variable holding the service token; the token itself never appears here.
 */
export const clawDescriptorSchema: JsonSchema = {
  type: 'object',
  description: 'A Clawdapus service descriptor (claw.describe, version 2).',
  required: ['version'],
  additionalProperties: true,
  properties: {
    version: { enum: [1, 2], description: 'tools need version 2.' },
    description: { type: 'string' },
    mcp: {
      type: 'object',
      description: 'Set when the service speaks MCP; its tools then carry no http field.',
      properties: { transport: { type: 'string', examples: ['streamable_http'] }, path: { type: 'string', examples: ['/mcp'] } },
    },
    tools: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'description', 'inputSchema'],
        properties: {
          name: { type: 'string', minLength: 1 },
          description: { type: 'string', minLength: 1 },
          inputSchema: { type: 'object', required: ['type'], properties: { type: { const: 'object' } }, additionalProperties: true },
          http: {
            type: 'object',
            required: ['method', 'path'],
            description: 'How the tool is called; the model never sees it.',
            properties: {
              method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
              path: { type: 'string', pattern: '^/' },
              body: { type: 'string', enum: ['json'] },
              body_key: { type: 'string', description: 'Send the arguments under this key (POST, PUT, PATCH).' },
            },
          },
          annotations: { type: 'object', properties: { readOnly: { type: 'boolean' } }, additionalProperties: true },
        },
      },
    },
    auth: {
      type: 'object',
      required: ['type'],
      properties: { type: { type: 'string', enum: ['bearer', 'header', 'none'] }, env: { type: 'string', description: 'Environment variable holding the token.' } },
    },
  },
};
