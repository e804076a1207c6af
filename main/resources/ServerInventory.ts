import { AppError, launchConfirmationRequired } from '../../shared/errors';
import type { McpServerConfig, ServerOrigin, ServerSnapshot } from '../../shared/mcp';
import type { McpService } from '../mcp/McpService';
import type { LocalReconciler } from './LocalReconciler';
import { isWorkspaceManaged } from './mcpServerConfig';

/** One MCP server the console knows, wherever it is declared. */
export interface InventoryServer {
  name: string;
  origin: ServerOrigin;
  /** Sealed (secrets as ***); absent when the workspace resource cannot be turned into one. */
  config?: McpServerConfig;
  /** Why a workspace resource is not usable as it stands. */
  problem?: string;
}

/**
 * The one list of MCP servers: those saved with `mcp add` or the Servers view, and the McpServer
 * resources of the workspace — whether or not a console has connected them yet. The CLI, the
 * Servers view, search and exports all read it, so they agree on which servers exist.
 */
export class ServerInventory {
  constructor(
    private readonly mcp: McpService,
    private readonly reconciler: LocalReconciler,
  ) {}

  list(): InventoryServer[] {
    const saved = this.mcp
      .configs()
      .filter((config) => !isWorkspaceManaged(config))
      .map((config): InventoryServer => ({ name: config.name, origin: this.savedOrProvided(config), config }));
    const workspace = this.reconciler.workspaceServers().map(
      (server): InventoryServer => ({
        name: server.name,
        origin: { kind: 'workspace', file: server.file },
        ...(server.config ? { config: server.config } : {}),
        ...(server.problem ? { problem: server.problem } : {}),
      }),
    );
    const savedNames = new Set(saved.map((server) => server.name));
    return [...saved, ...workspace.filter((server) => !savedNames.has(server.name))].sort((a, b) => a.name.localeCompare(b.name));
  }

  get(name: string): InventoryServer | undefined {
    return this.list().find((server) => server.name === name);
  }

  /** The saved servers' snapshots, each with where it is declared (the Servers view). */
  snapshots(): ServerSnapshot[] {
    const files = new Map(this.reconciler.workspaceServers().map((server) => [server.name, server.file]));
    return this.mcp.list().map((snapshot) => {
      const name = snapshot.config.name;
      const file = isWorkspaceManaged(snapshot.config) ? files.get(name) : undefined;
      const excluded = file
        ? Object.fromEntries(
            snapshot.tools
              .filter((tool) => this.reconciler.toolConfig(name, tool)?.excluded)
              .map((tool) => [tool.name, { reason: `excluded by tool_filter.include in ${file}`, file }]),
          )
        : {};
      return { ...snapshot, origin: file ? { kind: 'workspace', file } : this.savedOrProvided(snapshot.config), ...(Object.keys(excluded).length ? { excludedTools: excluded } : {}) };
    });
  }

  private savedOrProvided(config: McpServerConfig): ServerOrigin {
    return this.mcp.isProvided(config.name) ? { kind: 'provided', by: config.description ?? 'a running source' } : { kind: 'saved' };
  }

  /**
   * Connects one server now, for a one-shot use (a CLI call, a search refresh): a saved server
   * directly, a workspace server through one reconcile of its resource (which saves and connects
   * it the way the console would). Throws ConnectionFailed with the reason when it does not
   * become ready, NotFound when no server has the name.
   */
  async connect(name: string): Promise<void> {
    const server = this.get(name);
    if (!server) {
      const known = this.list().map((entry) => entry.name);
      throw new AppError('NotFound', `No server named "${name}"${known.length ? `; known servers: ${known.join(', ')}` : ' (add one with tooldeck mcp add, or an McpServer in the workspace)'}`);
    }
    if (server.origin.kind !== 'workspace') {
      await this.mcp.whenConnected(name);
      return;
    }
    const [status] = await this.reconciler.reconcileOnce([name]);
    if (status?.status.unconfirmedLaunch) throw launchConfirmationRequired([status.status.unconfirmedLaunch]);
    if (status?.status.phase !== 'Ready') {
      throw new AppError('ConnectionFailed', `${name} (${server.origin.file}) is ${status?.status.phase ?? 'Pending'}: ${status?.status.lastError ?? server.problem ?? 'not reconciled'}`, { retryable: false });
    }
  }
}
