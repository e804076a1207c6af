import { AppError } from '../../shared/errors';
import { sourceId, type ToolSource } from '../../shared/invocation';
import type { ToolCatalog } from './ToolCatalog';

/**
 * The services that turn a source into registry entries: what preparing a source needs, and no
 * more. Written as shapes, not as the protocol folders' classes, so registry/ (the layer below
 * them) imports none of mcp/, a2a/ or grpc/.
 */
export interface SourceServices {
  /** McpService: resolves once the saved server is connected and its tools are listed. */
  readonly mcp: { whenConnected(name: string): Promise<void> };
  /** A2aAgentService: the saved agents. */
  readonly a2a: { list(): Promise<readonly { name: string }[]> };
  /** A2aCatalogSync: reads an agent's card and registers its skills. */
  readonly a2aSkills: { sync(agent: string): Promise<void>; hasSkills(agent: string): boolean };
  readonly catalog: Pick<ToolCatalog, 'list'>;
  /** GrpcSources: lists a source's tools unless they are listed. */
  readonly grpc: { ensureListed(name: string): Promise<void> };
}

/**
 * Makes a source's tools registry entries before a call names one of them: connects a saved MCP
 * server, reads a saved agent's card, lists a gRPC source; HTTP services are loaded at start. What a
 * one-shot command (`tooldeck call`) and a collection run do first, so both find the same entries.
 */
export async function prepareSource(core: SourceServices, source: ToolSource): Promise<void> {
  const { kind, name } = source;
  if (kind === 'mcp') {
    // A server shows ready as soon as its handshake is done; its tools are registry entries once the listing is over.
    await core.mcp.whenConnected(name);
    return;
  }
  if (kind === 'grpc') return core.grpc.ensureListed(name);
  if (kind === 'http') {
    if (!core.catalog.list({ source: sourceId(source) }).length) throw new AppError('NotFound', `No HTTP service named "${name}" is loaded`);
    return;
  }
  // A saved agent's turn entries stay registered while its card cannot be read: only skills say it was.
  const hasSkills = () => core.a2aSkills.hasSkills(name);
  if (hasSkills()) return;
  if (!(await core.a2a.list()).some((agent) => agent.name === name)) throw new AppError('NotFound', `No saved agent named "${name}"`);
  await core.a2aSkills.sync(name);
  if (!hasSkills()) throw new AppError('ConnectionFailed', `Agent "${name}" has no skills registered: its card could not be read`);
}
