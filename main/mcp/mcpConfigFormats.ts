import { AppError } from '../../shared/errors';
import { McpServerConfig, ServerName } from '../../shared/mcp';

/**
 * A server found in an imported file, as written there (secrets included: saving seals them, see
 * serverSecrets.ts); an `Authorization: Bearer` header becomes the server's bearer token.
 */
export interface ImportedServer {
  config: McpServerConfig;
  bearerToken?: string;
}

export interface ImportResult {
  servers: ImportedServer[];
  /** Entries that could not be imported, with the reason, so nothing is dropped silently. */
  skipped: Array<{ name: string; reason: string }>;
  format: 'mcpServers' | 'rockbot';
}

type Json = Record<string, unknown>;

function safeName(raw: string): string {
  const cleaned = raw.trim().replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^[-_]+/, '').slice(0, 64);
  return cleaned || 'server';
}

function stringRecord(value: unknown, what: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`${what} must be an object of strings`);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]));
}

function fromMcpServersEntry(name: string, entry: Json): ImportedServer {
  if (typeof entry.url === 'string') {
    const headers = stringRecord(entry.headers, 'headers');
    let bearerToken: string | undefined;
    for (const key of Object.keys(headers)) {
      const bearer = key.toLowerCase() === 'authorization' ? /^Bearer\s+(.+)$/i.exec(headers[key]!) : null;
      if (bearer) {
        bearerToken = bearer[1];
        delete headers[key];
      }
    }
    const type = String(entry.type ?? entry.transport ?? '').toLowerCase();
    const transport = type === 'sse' ? 'sse' : 'http';
    return { config: McpServerConfig.parse({ name, transport, url: entry.url, headers, hasBearerToken: !!bearerToken }), bearerToken };
  }
  if (typeof entry.command !== 'string') throw new Error('needs "command" (stdio) or "url" (HTTP)');
  const args = entry.args === undefined ? [] : Array.isArray(entry.args) ? entry.args.map(String) : null;
  if (!args) throw new Error('"args" must be an array of strings');
  const config = McpServerConfig.parse({ name, transport: 'stdio', command: entry.command, args, env: stringRecord(entry.env, 'env'), cwd: typeof entry.cwd === 'string' ? entry.cwd : undefined });
  return { config };
}

/**
 * Reads the `mcp.json` shape shared by Claude Desktop, Cursor, VS Code (`servers`) and the MCP
 * Inspector, and RockBot's `{"Mcp": {"Servers": [...]}}`.
 */
export function parseServerImport(text: string): ImportResult {
  let doc: Json;
  try {
    doc = JSON.parse(text) as Json;
  } catch (error) {
    throw new AppError('InvalidInput', `The file is not valid JSON: ${(error as Error).message}`);
  }
  const result: ImportResult = { servers: [], skipped: [], format: 'mcpServers' };
  const take = (name: string, build: () => ImportedServer) => {
    try {
      const parsedName = ServerName.safeParse(name);
      const server = build();
      if (!parsedName.success) server.config = { ...server.config, name: safeName(name) };
      result.servers.push(server);
    } catch (error) {
      const issues = (error as { issues?: Array<{ path: PropertyKey[]; message: string }> }).issues;
      result.skipped.push({ name, reason: issues ? issues.map((i) => `${i.path.join('.') || 'entry'}: ${i.message}`).join('; ') : (error as Error).message });
    }
  };

  const mcp = doc.Mcp as Json | undefined;
  if (mcp && Array.isArray(mcp.Servers)) {
    result.format = 'rockbot';
    for (const raw of mcp.Servers as Json[]) {
      const name = String(raw.Name ?? '');
      take(name || 'server', () =>
        fromMcpServersEntry(safeName(name), {
          command: raw.Command,
          args: typeof raw.Arguments === 'string' ? raw.Arguments.split(/\s+/).filter(Boolean) : raw.Arguments,
          env: raw.EnvironmentVariables,
          url: raw.Url ?? raw.Endpoint,
        }),
      );
    }
    return result;
  }
  const servers = (doc.mcpServers ?? doc.servers) as Json | undefined;
  if (!servers || typeof servers !== 'object') {
    throw new AppError('InvalidInput', 'Expected {"mcpServers": {...}} (Claude Desktop, Cursor, Inspector), {"servers": {...}} (VS Code) or {"Mcp": {"Servers": [...]}} (RockBot)');
  }
  for (const [name, entry] of Object.entries(servers)) {
    take(name, () => fromMcpServersEntry(safeName(name), (entry ?? {}) as Json));
  }
  return result;
}

/** What an export writes for a secret it leaves out. */
export const EXPORTED_SECRET_PLACEHOLDER = '<secret kept in Tooldeck>';

export interface ExportedServer {
  /** Sealed (secrets as placeholders), or unsealed when the user asked for secrets. */
  config: McpServerConfig;
  bearerToken?: string;
}

/** `{"mcpServers": …}` for other clients. A secret not given in the config is written as a placeholder. */
export function exportMcpJson(servers: readonly ExportedServer[]): string {
  const mcpServers: Record<string, Json> = {};
  for (const { config, bearerToken } of servers) {
    if (config.transport === 'stdio') {
      const env = { ...Object.fromEntries(config.secretEnv.map((k) => [k, EXPORTED_SECRET_PLACEHOLDER])), ...config.env };
      mcpServers[config.name] = { command: config.command, args: config.args, ...(Object.keys(env).length ? { env } : {}), ...(config.cwd ? { cwd: config.cwd } : {}) };
    } else {
      const bearer = bearerToken ?? (config.hasBearerToken ? EXPORTED_SECRET_PLACEHOLDER : undefined);
      const headers = {
        ...Object.fromEntries(config.secretHeaders.map((k) => [k, EXPORTED_SECRET_PLACEHOLDER])),
        ...config.headers,
        ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}),
      };
      mcpServers[config.name] = { type: config.transport === 'sse' ? 'sse' : 'http', url: config.url, ...(Object.keys(headers).length ? { headers } : {}) };
    }
  }
  return `${JSON.stringify({ mcpServers }, null, 2)}\n`;
}
