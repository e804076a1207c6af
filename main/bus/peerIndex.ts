/**
 * What another RockBot MCP bridge on the bus says about itself, read as hostile input: its
 * `McpServersIndexed` (on `tool.meta.mcp.{agent}`) and its `McpGetServiceDetailsResponse`. Anyone
 * who may publish on the `rockbot` exchange can send these, so everything is bounded and validated
 * before it becomes a registry entry (`bus:<agent>.<tool>`): names are plain (no control characters,
 * no look-alike duplicates), counts and sizes are capped, and whatever does not fit is dropped with
 * a sentence saying why — never thrown, never grown into memory.
 */

/** Agents (other bridges) kept at once; announcements from more are ignored. */
export const MAX_PEER_BRIDGES = 64;
/** Servers kept per bridge. */
export const MAX_SERVERS_PER_BRIDGE = 64;
/** Tools kept per server. */
export const MAX_TOOLS_PER_SERVER = 256;
/** Tools kept per bridge, over all its servers: the registry entries one peer can make. */
export const MAX_TOOLS_PER_BRIDGE = 1024;
export const MAX_NAME_CHARS = 128;
export const MAX_DISPLAY_CHARS = 256;
export const MAX_SUMMARY_CHARS = 2000;
export const MAX_DESCRIPTION_CHARS = 4000;
/** A tool's parameter schema larger than this (as JSON text) is replaced by an open object schema. */
export const MAX_SCHEMA_CHARS = 64 * 1024;

/**
 * A bridge's agent name as it may become a source name: the characters RockBot's queue and topic
 * names take (the same rule Tooldeck's own bridge applies to its name), nothing else.
 */
const AGENT_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
/** MCP's tool-name characters (letters, digits, `_`, `-`, `.`): what follows `bus:<agent>.` in an entry name. */
const TOOL_NAME = /^[A-Za-z0-9_.-]+$/;
// eslint-disable-next-line no-control-regex -- the point is to find control characters
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;

export interface PeerTool {
  name: string;
  description?: string;
  /** The tool's input JSON Schema (an object schema), when the bridge told it. */
  inputSchema?: Record<string, unknown>;
}

export interface PeerServer {
  serverName: string;
  displayName?: string;
  summary?: string;
  toolNames: string[];
}

export interface PeerIndexUpdate {
  servers: PeerServer[];
  removedServers: string[];
  /** What was dropped and why, one sentence each (bounded). */
  problems: string[];
}

const MAX_PROBLEMS = 20;

/** A name of the bus's agents (from the topic `tool.meta.mcp.{agent}`), or a sentence saying why not. */
export function checkAgentName(name: string): { ok: true } | { ok: false; reason: string } {
  if (name.length === 0) return { ok: false, reason: 'the agent name is empty' };
  if (name.length > MAX_NAME_CHARS) return { ok: false, reason: `the agent name is longer than ${MAX_NAME_CHARS} characters` };
  if (!AGENT_NAME.test(name)) return { ok: false, reason: 'the agent name has characters other than letters, digits, dots, dashes or underscores' };
  return { ok: true };
}

/** The agent a `tool.meta.mcp.{agent}` routing key names; undefined for `tool.meta.mcp.refresh` and anything else. */
export function agentOfIndexTopic(routingKey: string): string | undefined {
  const prefix = 'tool.meta.mcp.';
  if (!routingKey.startsWith(prefix)) return undefined;
  const agent = routingKey.slice(prefix.length);
  return agent === 'refresh' || agent === '' ? undefined : agent;
}

/** Two names that only differ by case are the same name (RockBot compares server names ignoring case). */
export function nameKey(name: string): string {
  return name.toLowerCase();
}

function plainText(value: unknown, max: number): string | undefined {
  if (typeof value !== 'string') return undefined;
  // Control characters (and the invisible ones that reorder text) are spaces here; then cut.
  const cleaned = value.replace(new RegExp(CONTROL.source, 'g'), ' ').trim();
  if (cleaned === '') return undefined;
  return cleaned.length > max ? `${cleaned.slice(0, max - 1)}…` : cleaned;
}

/** A server's name as RockBot bridges send it: text without control characters, at most MAX_NAME_CHARS. */
function serverNameOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const name = value.trim();
  if (name === '' || name.length > MAX_NAME_CHARS || CONTROL.test(name)) return undefined;
  return name;
}

function toolNameOf(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_NAME_CHARS || !TOOL_NAME.test(value)) return undefined;
  return value;
}

/**
 * An `McpServersIndexed` body as a bounded update: at most MAX_SERVERS_PER_BRIDGE servers with valid,
 * distinct names (case aside), each with at most MAX_TOOLS_PER_SERVER valid, distinct tool names, and
 * at most MAX_TOOLS_PER_BRIDGE tools in all; a tool listed by two servers stays with the first (as
 * RockBot's bridge routes a call without a server header to the first server that has it).
 */
export function readServersIndexed(value: unknown): PeerIndexUpdate {
  const problems: string[] = [];
  const problem = (text: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(text);
  };
  const update: PeerIndexUpdate = { servers: [], removedServers: [], problems };
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    problem('the McpServersIndexed body is not a JSON object');
    return update;
  }
  const body = value as { servers?: unknown; removedServers?: unknown };
  if (body.servers !== undefined && body.servers !== null && !Array.isArray(body.servers)) problem('servers is not a list');
  const servers = Array.isArray(body.servers) ? body.servers : [];
  const serverKeys = new Set<string>();
  const toolKeys = new Set<string>();
  for (const raw of servers) {
    if (update.servers.length >= MAX_SERVERS_PER_BRIDGE) {
      problem(`servers beyond the first ${MAX_SERVERS_PER_BRIDGE} were dropped`);
      break;
    }
    const server = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
    const serverName = serverNameOf(server.serverName);
    if (!serverName) {
      problem('a server without a usable name (text of at most 128 characters without control characters) was dropped');
      continue;
    }
    if (serverKeys.has(nameKey(serverName))) {
      problem(`the server ${serverName} was listed twice; the first listing is kept`);
      continue;
    }
    serverKeys.add(nameKey(serverName));
    const toolNames: string[] = [];
    const listed = Array.isArray(server.toolNames) ? server.toolNames : [];
    for (const rawTool of listed) {
      if (toolNames.length >= MAX_TOOLS_PER_SERVER) {
        problem(`tools of ${serverName} beyond the first ${MAX_TOOLS_PER_SERVER} were dropped`);
        break;
      }
      if (toolKeys.size >= MAX_TOOLS_PER_BRIDGE) {
        problem(`tools beyond the first ${MAX_TOOLS_PER_BRIDGE} of the bridge were dropped`);
        break;
      }
      const toolName = toolNameOf(rawTool);
      if (!toolName) {
        problem(`a tool of ${serverName} whose name is not 1 to 128 letters, digits, dots, dashes or underscores was dropped`);
        continue;
      }
      // Entry names are compared exactly, but two names differing only by case would read as one in the console.
      if (toolKeys.has(nameKey(toolName))) {
        problem(`the tool ${toolName} of ${serverName} is listed earlier (by this or another server); the first listing is kept`);
        continue;
      }
      toolKeys.add(nameKey(toolName));
      toolNames.push(toolName);
    }
    const displayName = plainText(server.displayName, MAX_DISPLAY_CHARS);
    const summary = plainText(server.summary, MAX_SUMMARY_CHARS);
    update.servers.push({ serverName, ...(displayName ? { displayName } : {}), ...(summary ? { summary } : {}), toolNames });
  }
  const removed = Array.isArray(body.removedServers) ? body.removedServers : [];
  for (const raw of removed.slice(0, MAX_SERVERS_PER_BRIDGE)) {
    const name = serverNameOf(raw);
    if (name && !update.removedServers.some((other) => nameKey(other) === nameKey(name))) update.removedServers.push(name);
  }
  return update;
}

/**
 * An `McpGetServiceDetailsResponse` body's tools (`{serverName, tools:[{name, description,
 * parametersSchema}], error}`), keyed by tool name: only tools named validly, descriptions cut to
 * MAX_DESCRIPTION_CHARS, a schema kept only when it is a JSON object schema within MAX_SCHEMA_CHARS.
 * Undefined when the body is not an answer for `serverName` or carries an error.
 */
export function readServiceDetails(value: unknown, serverName: string): Map<string, PeerTool> | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const body = value as { serverName?: unknown; tools?: unknown; error?: unknown };
  if (typeof body.serverName !== 'string' || nameKey(body.serverName) !== nameKey(serverName)) return undefined;
  if (typeof body.error === 'string' && body.error !== '') return undefined;
  if (!Array.isArray(body.tools)) return undefined;
  const tools = new Map<string, PeerTool>();
  for (const raw of body.tools.slice(0, MAX_TOOLS_PER_SERVER)) {
    const tool = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
    const name = toolNameOf(tool.name);
    if (!name || tools.has(name)) continue;
    const description = plainText(tool.description, MAX_DESCRIPTION_CHARS);
    const inputSchema = schemaOf(tool.parametersSchema);
    tools.set(name, { name, ...(description ? { description } : {}), ...(inputSchema ? { inputSchema } : {}) });
  }
  return tools;
}

/** RockBot sends a tool's schema as JSON text (`parametersSchema`); kept only when it is an object schema. */
function schemaOf(value: unknown): Record<string, unknown> | undefined {
  if (typeof value !== 'string' || value.length > MAX_SCHEMA_CHARS) return undefined;
  let schema: unknown;
  try {
    schema = JSON.parse(value);
  } catch {
    return undefined;
  }
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return undefined;
  const type = (schema as { type?: unknown }).type;
  if (type !== undefined && type !== 'object') return undefined;
  return { ...(schema as Record<string, unknown>), type: 'object' };
}
