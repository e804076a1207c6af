import type { ServerJson } from '../../../shared/mcpRegistry';

export const SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

/** The reference server on npm, as its publisher would list it. */
export const everythingEntry = (version: string): ServerJson & { $schema: string } => ({
  $schema: SCHEMA,
  name: 'io.github.modelcontextprotocol/everything',
  title: 'Everything',
  description: 'The MCP reference server: every feature of the protocol',
  version,
  repository: { url: 'https://github.com/modelcontextprotocol/servers', source: 'github' },
  packages: [{ registryType: 'npm', identifier: '@modelcontextprotocol/server-everything', version, transport: { type: 'stdio' }, packageArguments: [{ type: 'positional', value: 'stdio' }] }],
});

export const timeEntry: ServerJson & { $schema: string } = {
  $schema: SCHEMA,
  name: 'io.github.modelcontextprotocol/time',
  description: 'Time and time zone conversion',
  version: '2026.10.19',
  packages: [
    {
      registryType: 'pypi',
      identifier: 'mcp-server-time',
      version: '2026.10.19',
      transport: { type: 'stdio' },
      packageArguments: [{ type: 'named', name: '--local-timezone', default: 'UTC' }],
    },
  ],
};

/** A remote with a URL template and a required secret header (registries accept only https remotes). */
export const remoteEntry: ServerJson & { $schema: string } = {
  $schema: SCHEMA,
  name: 'com.example.mcp/tenant-tools',
  description: 'Per-tenant tools over Streamable HTTP',
  version: '3.1.0',
  remotes: [
    {
      type: 'streamable-http',
      url: 'https://mcp.example.com/{tenant}/mcp',
      variables: { tenant: { description: 'Your tenant', isRequired: true } },
      headers: [{ name: 'X-Api-Key', description: 'API key', isRequired: true, isSecret: true }],
    },
  ],
};

export const bundleEntry = (name: string, url: string, sha256: string): ServerJson & { $schema: string } => ({
  $schema: SCHEMA,
  name,
  description: 'A server shipped as an mcpb bundle',
  version: '0.1.0',
  packages: [{ registryType: 'mcpb', identifier: url, fileSha256: sha256, transport: { type: 'stdio' } }],
});

/**
 * A stdio MCP server with no dependencies, for bundles the tests build: it answers initialize,
 * tools/list (one tool, `bundle-echo`) and tools/call, one JSON-RPC message per line.
 */
export const BUNDLED_SERVER_SOURCE = `
const readline = require('node:readline');
const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let request;
  try { request = JSON.parse(line); } catch { return; }
  if (request.id === undefined) return;
  if (request.method === 'initialize') return send({ jsonrpc: '2.0', id: request.id, result: { protocolVersion: request.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bundled', version: '0.1.0' } } });
  if (request.method === 'tools/list') return send({ jsonrpc: '2.0', id: request.id, result: { tools: [{ name: 'bundle-echo', description: 'Echoes', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }] } });
  if (request.method === 'tools/call') return send({ jsonrpc: '2.0', id: request.id, result: { content: [{ type: 'text', text: 'bundle: ' + (request.params.arguments?.text ?? '') }] } });
  if (request.method === 'ping') return send({ jsonrpc: '2.0', id: request.id, result: {} });
  send({ jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'Method not found' } });
});
`;
