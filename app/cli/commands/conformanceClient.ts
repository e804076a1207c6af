import type { Core } from '../../../main/core';
import { registerEphemeral } from '../../../main/mcp/McpToolSource';
import { HeadlessAuthorizer } from '../../../main/mcp/oauth/HeadlessAuthorizer';
import type { EphemeralOAuthOptions } from '../../../main/mcp/oauth/OAuthService';
import { toolEntryName } from '../../../main/registry/ToolCatalog';
import type { McpTool } from '../../../shared/mcp';
import { CliExit, ExitCode, type CliIo } from '../CliContext';

const SOURCE = 'conformance';

/**
 * The client metadata document URL the suite's authorization servers expect a client to use as its
 * client_id where they advertise client_id_metadata_document_supported (they do not fetch it).
 */
const CONFORMANCE_CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/**
 * Authorization as the scenario sets it up: pre-registered credentials arrive in
 * MCP_CONFORMANCE_CONTEXT; the mock authorization server approves without a login page, so the
 * headless authorizer reads the redirect instead of opening a browser.
 */
export function conformanceOAuth(scenario: string, contextJson: string | undefined): EphemeralOAuthOptions {
  let context: { client_id?: unknown; client_secret?: unknown } = {};
  try {
    context = contextJson ? (JSON.parse(contextJson) as typeof context) : {};
  } catch {
    // No usable context: the scenario gets dynamic registration or a metadata document.
  }
  const clientId = typeof context.client_id === 'string' ? context.client_id : undefined;
  const clientSecret = typeof context.client_secret === 'string' ? context.client_secret : undefined;
  return {
    clientName: 'Tooldeck conformance client',
    settings: {
      grant: scenario.startsWith('auth/client-credentials') ? 'client_credentials' : 'authorization_code',
      clientId,
      clientMetadataUrl: CONFORMANCE_CLIENT_METADATA_URL,
    },
    clientSecret,
    authorizer: new HeadlessAuthorizer(),
  };
}

/**
 * Parameters mirrored into HTTP headers (SEP-2243 `x-mcp-header`) get values that exercise both
 * header encodings: plain ASCII, and text that must travel Base64-encoded (non-ASCII, padding).
 */
const HEADER_PROBES = ['us-west1', ' Grüße, 世界 '];

/**
 * Tools whose scenario checks what a client does when optional parameters are left out: they get
 * their required parameters only (http-custom-headers: an omitted x-mcp-header parameter must send
 * no header).
 */
const REQUIRED_ONLY = new Set(['http-custom-headers/test_custom_headers_null']);

/** Arguments that satisfy a tool's input schema: defaults and examples first, else small typed values. */
export function sampleArguments(schema: Record<string, unknown>, options: { requiredOnly?: boolean } = {}): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const args: Record<string, unknown> = {};
  const numbers = [2, 3];
  let headerProbe = 0;
  for (const [key, property] of Object.entries(properties)) {
    const mirrored = !options.requiredOnly && property['x-mcp-header'] !== undefined;
    if (!required.has(key) && property.default === undefined && !mirrored) continue;
    args[key] =
      mirrored && property.type === 'string' && property.default === undefined && !property.enum
        ? HEADER_PROBES[headerProbe++ % HEADER_PROBES.length]
        : sampleValue(property, () => numbers.shift() ?? 1);
  }
  return args;
}

function sampleValue(schema: Record<string, unknown>, nextNumber: () => number): unknown {
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  switch (Array.isArray(schema.type) ? schema.type[0] : schema.type) {
    case 'number':
    case 'integer':
      return nextNumber();
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object':
      return sampleArguments(schema);
    default:
      return 'test';
  }
}

/**
 * The client the MCP conformance runner drives: it appends the mock server's URL to our command and
 * names the scenario in MCP_CONFORMANCE_SCENARIO. We connect as the console would (version
 * negotiation 'auto'), list the tools and call each through the invocation pipeline; server
 * requests (elicitation, sampling) are answered automatically, since no operator is present.
 */
export async function runConformanceClient(core: Core, url: string, env: NodeJS.ProcessEnv, io: CliIo): Promise<void> {
  const scenario = env.MCP_CONFORMANCE_SCENARIO ?? '(none)';
  core.mcp.broker.setAutoResponder((interaction) =>
    interaction.kind === 'elicitation'
      ? // Empty content: the client applies the schema's defaults (SEP-1034).
        { kind: 'elicitation', action: 'accept', content: {} }
      : { kind: 'sampling', action: 'reply', text: 'Reply from the Tooldeck conformance client', model: 'tooldeck' },
  );
  let connection;
  try {
    connection = await core.mcp.openEphemeral({ name: SOURCE, transport: 'http', url }, undefined, conformanceOAuth(scenario, env.MCP_CONFORMANCE_CONTEXT));
  } catch (error) {
    throw new CliExit(ExitCode.CannotConnect, `[${scenario}] connect failed: ${(error as Error).message}`);
  }
  const unregister = registerEphemeral(core.catalog, SOURCE, connection);
  const failures: string[] = [];
  try {
    io.stderr(`[${scenario}] connected: ${connection.snapshot().protocolVersion} (${connection.snapshot().era}); tools: ${connection.tools.map((t) => t.name).join(', ') || 'none'}\n`);
    for (const tool of connection.tools as McpTool[]) {
      const args = sampleArguments(tool.inputSchema, { requiredOnly: REQUIRED_ONLY.has(`${scenario}/${tool.name}`) });
      io.stderr(`[${scenario}] calling ${tool.name} ${JSON.stringify(args)} (schema ${JSON.stringify(tool.inputSchema)})\n`);
      const outcome = await core.pipeline.invoke({ name: toolEntryName({ kind: 'mcp', name: SOURCE }, tool.name), arguments: args, confirmed: true });
      if (outcome.error) failures.push(`${tool.name}: ${outcome.error.code} ${outcome.error.message}`);
      io.stderr(`[${scenario}] ${tool.name}: ${outcome.error ? `${outcome.error.code} ${outcome.error.message}` : outcome.result?.isError ? 'isError' : 'ok'}\n`);
    }
  } finally {
    unregister();
    await connection.close();
  }
  if (failures.length) throw new CliExit(ExitCode.Failed, `[${scenario}] ${failures.join('; ')}`);
}
