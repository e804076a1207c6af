import { type FSWatcher, watch } from 'node:fs';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { AppError } from '../../shared/errors';
import { McpServerConfig, type McpServerConfigInput, type Root, type SaveServerInput, type ServerSnapshot } from '../../shared/mcp';
import type { Logger } from '../platform/Logger';
import type { SecretStore } from '../platform/SecretStore';
import { EraCache } from './EraCache';
import { InteractionBroker } from './InteractionBroker';
import { type CallOptions, McpConnection } from './McpConnection';
import { exportMcpJson, parseServerImport } from './mcpConfigFormats';
import { OAuthService, type EphemeralOAuthOptions } from './oauth/OAuthService';
import { ServerConfigStore } from './ServerConfigStore';
import { ToolListCache } from './ToolListCache';

export interface McpServiceOptions {
  dataDir: string;
  secretStore: SecretStore;
  logger: Logger;
  clientInfo: { name: string; version: string };
  /** Connect enabled servers at start (the UI hosts); the CLI connects on demand. */
  autoConnect?: boolean;
  connectTimeoutMs?: number;
  /** See McpConnectionOptions.shutdownGraceMs. */
  shutdownGraceMs?: number;
  /** Reconnect backoff: base and cap (ms). */
  reconnect?: { baseMs: number; maxMs: number };
}

export interface ImportSummary {
  added: string[];
  replaced: string[];
  skipped: Array<{ name: string; reason: string }>;
  format: string;
}

/** Saved MCP servers and their live connections, with reconnect-on-drop and clean shutdown. */
export class McpService {
  readonly broker = new InteractionBroker();
  private readonly store: ServerConfigStore;
  private readonly eraCache: EraCache;
  readonly toolCache: ToolListCache;
  /** MCP authorization (OAuth) of the saved HTTP servers. */
  readonly oauth: OAuthService;
  private readonly connections = new Map<string, McpConnection>();
  private readonly retryTimers = new Map<string, NodeJS.Timeout>();
  private readonly listeners = new Set<() => void>();
  private readonly toolListeners = new Set<(server: string) => void>();
  private closed = false;
  private readonly connecting = new Map<string, Promise<ServerSnapshot>>();
  private watcher?: FSWatcher;

  constructor(private readonly options: McpServiceOptions) {
    this.store = new ServerConfigStore(options.dataDir, options.secretStore);
    this.eraCache = new EraCache(options.dataDir);
    this.toolCache = new ToolListCache(options.dataDir);
    this.oauth = new OAuthService({
      dataDir: options.dataDir,
      secretStore: options.secretStore,
      logger: options.logger,
      clientName: options.clientInfo.name,
      config: (name) => this.store.get(name),
      connect: async (name) => void (await this.connect(name)),
      disconnect: (name) => this.disconnect(name),
    });
  }

  async init(): Promise<void> {
    await this.store.load();
    await this.oauth.load();
    if (this.options.autoConnect) {
      for (const config of this.store.list()) if (config.enabled) void this.connect(config.name).catch(() => undefined);
      this.watchSavedServers();
    }
  }

  /**
   * The CLI and the console share the data dir: when another process saves or removes a server,
   * pick the change up (and connect what is new and enabled) instead of showing a stale list.
   */
  private watchSavedServers() {
    let timer: NodeJS.Timeout | undefined;
    try {
      this.watcher = watch(this.options.dataDir, (_event, file) => {
        if (file !== 'servers.json' || this.closed) return;
        clearTimeout(timer);
        timer = setTimeout(() => void this.reloadSavedServers(), 200);
      });
      this.watcher.on('error', () => undefined);
    } catch (error) {
      this.options.logger.warn('not watching servers.json', { error: (error as Error).message });
    }
  }

  private async reloadSavedServers() {
    const before = new Set(this.store.list().map((c) => c.name));
    await this.store.load().catch(() => undefined);
    const now = this.store.list();
    for (const name of before) if (!now.some((c) => c.name === name)) await this.disconnect(name);
    for (const config of now) if (!before.has(config.name) && config.enabled) void this.connect(config.name).catch(() => undefined);
    this.emit();
  }

  list(): ServerSnapshot[] {
    return this.store.list().map((config) => this.connections.get(config.name)?.snapshot() ?? idleSnapshot(config));
  }

  get(name: string): ServerSnapshot {
    const config = this.requireConfig(name);
    return this.connections.get(name)?.snapshot() ?? idleSnapshot(config);
  }

  configs(): McpServerConfig[] {
    return this.store.list();
  }

  /** Adds or edits a server; secrets go to the secret store; an enabled server (re)connects. */
  async save(input: SaveServerInput): Promise<ServerSnapshot> {
    const { previousName } = input;
    const config = McpServerConfig.parse(input.config);
    if (!previousName && this.store.get(config.name)) throw new AppError('AlreadyExists', `A server named "${config.name}" already exists`);
    if (previousName && !this.store.get(previousName)) throw new AppError('NotFound', `No server named "${previousName}"`);
    const existingToken = await this.store.bearerToken(previousName ?? config.name);
    const token = input.bearerToken === undefined ? existingToken : input.bearerToken;
    const oldSecretEnv = previousName && previousName !== config.name ? await this.store.secretEnv({ ...config, name: previousName }) : {};
    const toStore = config.transport === 'http' || config.transport === 'sse' ? { ...config, hasBearerToken: !!token } : config;

    await this.store.upsert(toStore, previousName);
    if (previousName && previousName !== config.name) {
      await this.disconnect(previousName);
      await this.store.setBearerToken(previousName, undefined);
      await this.oauth.rename(previousName, config.name);
    }
    if (toStore.transport !== 'stdio') await this.store.setBearerToken(toStore.name, token);
    await this.store.setSecretEnv(toStore.name, { ...oldSecretEnv, ...input.secretEnvValues });
    this.emit();
    if (toStore.enabled) await this.connect(toStore.name).catch(() => undefined);
    else await this.disconnect(toStore.name);
    return this.get(toStore.name);
  }

  /** Removes a server: its connection closes (the child process ends) and its secrets are deleted. */
  async remove(name: string): Promise<void> {
    this.requireConfig(name);
    await this.disconnect(name);
    this.connections.delete(name);
    await this.store.remove(name);
    await this.oauth.forget(name);
    await this.toolCache.delete(name);
    this.emit();
    void this.emitTools(name);
  }

  /**
   * (Re)connects a saved server. Calls for the same server run one after another: a Connect click
   * while a sign-in's reconnect is under way must not leave two half-made connections racing.
   */
  connect(name: string, attempt = 0): Promise<ServerSnapshot> {
    const previous = this.connecting.get(name) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.connectNow(name, attempt));
    this.connecting.set(name, next);
    void next.finally(() => {
      if (this.connecting.get(name) === next) this.connecting.delete(name);
    }).catch(() => undefined);
    return next;
  }

  private async connectNow(name: string, attempt: number): Promise<ServerSnapshot> {
    const config = this.requireConfig(name);
    this.cancelRetry(name);
    await this.connections.get(name)?.close();
    let connection: McpConnection;
    try {
      connection = await this.createConnection(config, (reason) => this.scheduleReconnect(name, 0, reason));
    } catch (error) {
      // Reading the server's secrets failed (an OS keychain still locked, say): a connect failure at
      // the auth step, retried like any other unless the store said it is final (a secret only
      // another app can open).
      const reason = error instanceof AppError ? error.message : `Could not read the secrets of "${name}": ${(error as Error).message}`;
      const failure = new AppError('ConnectionFailed', reason, { step: 'auth', retryable: error instanceof AppError ? error.retryable : true, cause: error });
      if (failure.retryable) this.scheduleReconnect(name, attempt + 1, failure.message);
      throw failure;
    }
    this.connections.set(name, connection);
    try {
      await connection.connect(attempt);
      await this.emitTools(name);
    } catch (error) {
      if ((error as AppError).retryable) this.scheduleReconnect(name, attempt + 1, (error as Error).message);
      throw error;
    }
    return connection.snapshot();
  }

  async disconnect(name: string): Promise<void> {
    this.cancelRetry(name);
    const connection = this.connections.get(name);
    if (connection) {
      await connection.close();
      void this.emitTools(name);
    }
  }

  async refresh(name: string): Promise<ServerSnapshot> {
    const connection = this.requireReady(name);
    await connection.discover();
    await this.emitTools(name);
    return connection.snapshot();
  }

  connection(name: string): McpConnection | undefined {
    return this.connections.get(name);
  }

  callTool(server: string, tool: string, args: Record<string, unknown>, options?: CallOptions): Promise<CallToolResult> {
    return this.requireReady(server).callTool(tool, args, options);
  }

  transcript(name: string) {
    this.requireConfig(name);
    return this.connections.get(name)?.transcript;
  }

  roots(): Root[] {
    return this.store.roots();
  }

  async setRoots(roots: Root[]): Promise<void> {
    await this.store.setRoots(roots);
    for (const connection of this.connections.values()) await connection.notifyRootsChanged();
    this.emit();
  }

  async importServers(text: string, options: { replace?: boolean } = {}): Promise<ImportSummary> {
    const parsed = parseServerImport(text);
    const summary: ImportSummary = { added: [], replaced: [], skipped: [...parsed.skipped], format: parsed.format };
    for (const server of parsed.servers) {
      const exists = !!this.store.get(server.config.name);
      if (exists && !options.replace) {
        summary.skipped.push({ name: server.config.name, reason: 'a server with this name already exists' });
        continue;
      }
      await this.save({ config: server.config, bearerToken: server.bearerToken, secretEnvValues: server.secretEnvValues, previousName: exists ? server.config.name : undefined });
      (exists ? summary.replaced : summary.added).push(server.config.name);
    }
    return summary;
  }

  exportServers(names?: string[]): string {
    const configs = this.store.list().filter((c) => !names || names.includes(c.name));
    return exportMcpJson(configs);
  }

  /**
   * A connection that is not saved: `tooldeck mcp tools --stdio …` and the conformance client.
   * With `oauth`, an HTTP server's authorization runs with settings and tokens held in memory only.
   */
  async openEphemeral(input: McpServerConfigInput, bearerToken?: string, oauth?: EphemeralOAuthOptions): Promise<McpConnection> {
    const config = McpServerConfig.parse(input);
    const connection = new McpConnection({
      config,
      bearerToken,
      oauth: oauth && config.transport !== 'stdio' ? (await OAuthService.ephemeralSession(config, oauth)).session : undefined,
      broker: this.broker,
      roots: () => this.store.roots(),
      clientInfo: this.options.clientInfo,
      logger: this.options.logger,
      connectTimeoutMs: this.options.connectTimeoutMs,
      eraCache: this.eraCache,
      shutdownGraceMs: this.options.shutdownGraceMs,
      onChange: () => undefined,
      onUnexpectedClose: () => undefined,
    });
    await connection.connect();
    return connection;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A server's tool list changed (discovered, refreshed, disconnected or removed). */
  onToolsChanged(listener: (server: string) => void): () => void {
    this.toolListeners.add(listener);
    return () => this.toolListeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.watcher?.close();
    this.oauth.close();
    for (const name of [...this.retryTimers.keys()]) this.cancelRetry(name);
    await Promise.all([...this.connections.values()].map((c) => c.close()));
    this.connections.clear();
  }

  private async createConnection(config: McpServerConfig, onUnexpectedClose: (reason: string) => void) {
    return new McpConnection({
      config,
      bearerToken: config.transport === 'stdio' ? undefined : await this.store.bearerToken(config.name),
      secretEnvValues: await this.store.secretEnv(config),
      oauth: config.transport === 'stdio' ? undefined : this.oauth.session(config),
      broker: this.broker,
      roots: () => this.store.roots(),
      clientInfo: this.options.clientInfo,
      logger: this.options.logger,
      connectTimeoutMs: this.options.connectTimeoutMs,
      eraCache: this.eraCache,
      shutdownGraceMs: this.options.shutdownGraceMs,
      onChange: () => {
        this.emit();
        void this.emitTools(config.name);
      },
      onUnexpectedClose,
    });
  }

  private scheduleReconnect(name: string, attempt: number, reason: string) {
    if (this.closed || !this.store.get(name)?.enabled) return;
    const { baseMs, maxMs } = this.options.reconnect ?? { baseMs: 1_000, maxMs: 30_000 };
    const delay = Math.min(maxMs, baseMs * 2 ** attempt) * (0.8 + Math.random() * 0.4);
    this.cancelRetry(name);
    const connection = this.connections.get(name);
    if (connection) connection.state = { ...connection.state, attempt, nextRetryAt: Date.now() + delay };
    this.options.logger.info('mcp reconnect scheduled', { server: name, attempt, delayMs: Math.round(delay), reason });
    this.retryTimers.set(
      name,
      setTimeout(() => {
        this.retryTimers.delete(name);
        void this.connect(name, attempt).catch(() => undefined);
      }, delay),
    );
    this.emit();
  }

  private cancelRetry(name: string) {
    const timer = this.retryTimers.get(name);
    if (timer) clearTimeout(timer);
    this.retryTimers.delete(name);
  }

  private requireConfig(name: string): McpServerConfig {
    const config = this.store.get(name);
    if (!config) throw new AppError('NotFound', `No saved server named "${name}"`);
    return config;
  }

  private requireReady(name: string): McpConnection {
    this.requireConfig(name);
    const connection = this.connections.get(name);
    if (!connection || connection.state.status !== 'ready') {
      const state = connection?.state;
      throw new AppError('ConnectionFailed', `Server "${name}" is not connected${state?.message ? `: ${state.message}` : ''}`, { step: state?.step });
    }
    return connection;
  }

  private emit() {
    for (const listener of this.listeners) listener();
  }

  /** Tells listeners a server's tools changed and refreshes its on-disk tool list. */
  private emitTools(server: string): Promise<void> {
    const connection = this.connections.get(server);
    const persisted =
      connection?.state.status === 'ready' && this.store.get(server)
        ? this.toolCache.write(server, connection.tools).catch((error: Error) => this.options.logger.warn('tool cache not written', { server, error: error.message }))
        : Promise.resolve();
    for (const listener of this.toolListeners) listener(server);
    return persisted;
  }
}

function idleSnapshot(config: McpServerConfig): ServerSnapshot {
  return { config, state: { status: 'closed', since: 0, attempt: 0 }, tools: [], resources: [], resourceTemplates: [], prompts: [] };
}
