import { operatorCaller } from '../../../shared/caller';
import type { Core } from '../../../main/core';
import { registerEphemeral } from '../../../main/mcp/McpToolSource';
import { HeadlessAuthorizer } from '../../../main/mcp/oauth/HeadlessAuthorizer';
import type { EphemeralOAuthOptions } from '../../../main/mcp/oauth/OAuthService';
import { SchemaValidator } from '../../../main/registry/SchemaValidator';
import { toolEntryName } from '../../../main/registry/ToolCatalog';
import type { McpTool } from '../../../shared/mcp';
import { JwsAlgorithm } from '../../../shared/oauth';
import { CliExit, ExitCode, type CliIo } from '../CliContext';

const SOURCE = 'conformance';

/**
 * The client metadata document URL the suite's authorization servers expect a client to use as its
 * client_id where they advertise client_id_metadata_document_supported (they do not fetch it).
 */
const CONFORMANCE_CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

interface ScenarioContext {
  client_id?: unknown;
  client_secret?: unknown;
  private_key_pem?: unknown;
  signing_algorithm?: unknown;
  valid_jwt?: unknown;
  idp_id_token?: unknown;
  idp_client_id?: unknown;
  idp_issuer?: unknown;
  idp_token_endpoint?: unknown;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);

/**
 * Authorization as an operator would set it up for the scenario, from what the scenario hands
 * over in MCP_CONFORMANCE_CONTEXT: a pre-registered client (secret or private key), a workload
 * identity token, or an enterprise identity provider and the user's ID token. The mock
 * authorization servers approve without a login page, so the headless authorizer reads the
 * redirect instead of opening a browser. DPoP is left on `auto`: used where the authorization
 * server advertises it.
 */
export function conformanceOAuth(scenario: string, contextJson: string | undefined): EphemeralOAuthOptions {
  let context: ScenarioContext = {};
  try {
    context = contextJson ? (JSON.parse(contextJson) as ScenarioContext) : {};
  } catch {
    // No usable context: the scenario gets dynamic registration or a metadata document.
  }
  const clientId = text(context.client_id);
  const clientSecret = text(context.client_secret);
  const privateKey = text(context.private_key_pem);
  const base = { clientId, clientSecret, clientMetadataUrl: CONFORMANCE_CLIENT_METADATA_URL };
  const authorizer = new HeadlessAuthorizer();
  const clientName = 'Tooldeck conformance client';
  if (text(context.idp_id_token)) {
    return {
      clientName,
      authorizer,
      settings: {
        ...base,
        grant: 'enterprise_managed',
        idpIssuer: text(context.idp_issuer),
        idpTokenEndpoint: text(context.idp_token_endpoint),
        idpClientId: text(context.idp_client_id),
        idToken: text(context.idp_id_token),
      },
    };
  }
  if (text(context.valid_jwt)) {
    return { clientName, authorizer, settings: { ...base, grant: 'jwt_bearer', assertion: text(context.valid_jwt) } };
  }
  const grant = scenario.startsWith('auth/client-credentials') ? 'client_credentials' : 'authorization_code';
  if (privateKey) {
    const alg = JwsAlgorithm.safeParse(context.signing_algorithm);
    return { clientName, authorizer, settings: { ...base, grant, clientAuth: 'private_key_jwt', privateKey, signingAlg: alg.success ? alg.data : undefined } };
  }
  return { clientName, authorizer, settings: { ...base, grant } };
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

/**
 * Tools whose scenario asks the client to send back, as their `schema` argument, the inputSchema
 * it holds for another tool: the suite checks that no JSON Schema 2020-12 keyword was lost.
 */
const SCHEMA_ECHO: Record<string, string> = { 'json-schema-2020-12-preservation/json_schema_echo': 'json_schema_2020_12_tool' };

const validator = new SchemaValidator();

/**
 * Adds the properties a schema's composition still requires (an `anyOf` branch, an `else`):
 * each round fills what validation names as missing, until the arguments validate or nothing new
 * is missing.
 */
export function completeArguments(schema: Record<string, unknown>, args: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const out = { ...args };
  for (let round = 0; round < 5; round++) {
    const missing = validator.missingProperties(schema, out).filter((key) => !(key in out));
    if (!missing.length) break;
    for (const key of missing) out[key] = sampleValue(properties[key] ?? {}, () => 1);
  }
  return out;
}

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
      const args = completeArguments(tool.inputSchema, sampleArguments(tool.inputSchema, { requiredOnly: REQUIRED_ONLY.has(`${scenario}/${tool.name}`) }));
      const echoOf = SCHEMA_ECHO[`${scenario}/${tool.name}`];
      // The schema as the registry holds it (what every view and the validator use), not the wire copy.
      if (echoOf) args.schema = core.catalog.get(toolEntryName({ kind: 'mcp', name: SOURCE }, echoOf))?.inputSchema;
      io.stderr(`[${scenario}] calling ${tool.name} ${JSON.stringify(args)} (schema ${JSON.stringify(tool.inputSchema)})\n`);
      const outcome = await core.pipeline.invoke({ caller: operatorCaller('cli'), name: toolEntryName({ kind: 'mcp', name: SOURCE }, tool.name), arguments: args, confirmed: true });
      if (outcome.error) failures.push(`${tool.name}: ${outcome.error.code} ${outcome.error.message}`);
      io.stderr(`[${scenario}] ${tool.name}: ${outcome.error ? `${outcome.error.code} ${outcome.error.message}` : outcome.result?.isError ? 'isError' : 'ok'}\n`);
    }
  } finally {
    unregister();
    await connection.close();
  }
  if (failures.length) throw new CliExit(ExitCode.Failed, `[${scenario}] ${failures.join('; ')}`);
}
