import type { Logger } from '../platform/Logger';
import type { ToolCatalog } from '../registry/ToolCatalog';
import type { ToolSourceKind } from '../registry/ToolSourceKind';
import type { McpService } from './McpService';
import { McpCatalogSync, type McpToolConfigLookup } from './McpToolSource';

export interface McpSourceKindDeps {
  readonly service: McpService;
  readonly catalog: ToolCatalog;
  readonly logger: Logger;
  /** The workspace's Tool resources (policy, risk, classes) and McpServer tool filters, per tool. */
  readonly configured?: McpToolConfigLookup;
  /** Tells when Tool or ToolPermission resources change, so every server's entries are derived again. */
  readonly onPolicyChange?: (listener: () => void) => () => void;
}

/**
 * MCP servers as a source kind: a saved server's tools are registry entries while it is connected
 * (kept in step by McpCatalogSync); a server given on the command line lasts only for that command.
 */
export class McpSourceKind implements ToolSourceKind<'mcp'> {
  readonly kind = 'mcp';
  /** Keeps the catalog in step with the servers' connections and tool lists. */
  readonly catalogSync: McpCatalogSync;
  private readonly stopPolicy: () => void;

  constructor(private readonly deps: McpSourceKindDeps) {
    this.catalogSync = new McpCatalogSync(deps.service, deps.catalog, deps.logger, deps.configured);
    this.stopPolicy = deps.onPolicyChange?.(() => this.catalogSync.resyncAll()) ?? (() => undefined);
  }

  async prepare(name: string): Promise<void> {
    // A server shows ready as soon as its handshake is done; its tools are registry entries once the listing is over.
    await this.deps.service.whenConnected(name);
  }

  lasting(name: string): boolean {
    return this.deps.service.isSaved(name);
  }

  /** A server over HTTP is reached at its URL; a stdio server has no network endpoint. */
  async endpoints(): Promise<Record<string, string>> {
    return Object.fromEntries(this.deps.service.configs().flatMap((config) => (config.transport === 'stdio' ? [] : [[config.name, config.url]])));
  }

  async savedSources({ disabled }: { disabled?: boolean }): Promise<string[]> {
    return this.deps.service.configs().flatMap((config) => (config.enabled || disabled ? [config.name] : []));
  }

  async close(): Promise<void> {
    this.stopPolicy();
    this.catalogSync.close();
    await this.deps.service.close();
  }
}
