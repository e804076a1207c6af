import { type FSWatcher, watch } from 'node:fs';
import { AppError, CONFIRM_LAUNCH_STEP, launchConfirmationRequired } from '../../shared/errors';
import type { FetchLike } from '@modelcontextprotocol/client';
import { McpServerConfig, stdioLaunchLine, type McpServerConfigInput, type Root, type SaveServerInput, type ServerSnapshot } from '../../shared/mcp';
import type { Logger } from '../platform/Logger';
import { SecretRedactor } from '../platform/SecretRedactor';
import type { SecretStore } from '../platform/SecretStore';
import { EraCache } from './EraCache';
import { IconFetcher } from './IconFetcher';
import { InteractionBroker } from './InteractionBroker';
import { McpConnection } from './McpConnection';
import { exportMcpJson, parseServerImport } from './mcpConfigFormats';
import { BEARER_SLOT, carryPlainValues, keepsStoredSecrets, sealServerConfig, secretDestination, secretSlots, unsealServerConfig, valuesMaskedInRecords } from '../../shared/serverSecrets';
import { OAuthService, type EphemeralOAuthOptions } from './oauth/OAuthService';
import { ServerConfigStore } from './ServerConfigStore';
import { McpTaskService } from './tasks/McpTaskService';
import { TaskLedger } from './tasks/TaskLedger';
import { ToolListCache } from './ToolListCache';
import { Emitter } from '../platform/Emitter';

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
  /** The hard limit on one result from a server, stdio or HTTP (settings.json `limits.maxResultMiB`; default 64 MiB). */
  maxResultBytes?: number;
  /**
   * The console's redactor: every secret a connection uses is masked in transcripts, errors and
   * logs through it. A private one when absent (tests).
   */
  redactor?: SecretRedactor;
}

export interface SaveOptions {
  /**
   * Browser mode: a stdio server whose launch line would change is saved only with
   * `confirmedLaunchLine` equal to that line, so nothing is spawned that the operator did not see.
   */
  requireLaunchConfirmation?: boolean;
}

/** Why a saved server may not start now, or undefined when it may. */
export type LaunchGate = (config: McpServerConfig) => Promise<string | undefined>;

/** A server an import would add, as it would be stored, for the operator to review first. */
export interface ImportPreviewEntry {
  name: string;
  transport: McpServerConfig['transport'];
  /** stdio: the exact launch line (sealed values as ***); http/sse: the URL as stored. */
  launch: string;
  exists: boolean;
}

export interface ImportSummary {
  added: string[];
  replaced: string[];
  skipped: Array<{ name: string; reason: string }>;
  format: string;
}

/**
 * A Streamable HTTP server that a running source of the process provides (a cluster's LanguageTools,
 * `gateway --agent-namespace`), not the operator: kept in memory only, never written to servers.json,
 * gone when the process ends or the source withdraws it.
 */
export interface ProvidedServer {
  config: McpServerConfig & { transport: 'http' };
  /** How its requests are sent (the API server's service proxy, with the cluster's credentials); plain fetch when absent. */
  fetch?: FetchLike;
}

/** Saved MCP servers and their live connections, with reconnect-on-drop and clean shutdown. */
export class McpService {
  readonly broker = new InteractionBroker();
  /** Icons servers give for themselves and their tools, resources and prompts (https ones fetched with care). */
  readonly icons = new IconFetcher();
  private readonly store: ServerConfigStore;
  private readonly eraCache: EraCache;
  readonly toolCache: ToolListCache;
  /** MCP authorization (OAuth) of the saved HTTP servers. */
  readonly oauth: OAuthService;
  /** The tasks of the saved servers (MCP tasks): remembered, listed, fetched, cancelled. */
  readonly tasks: McpTaskService;
  private readonly taskLedger: TaskLedger;
  private readonly connections = new Map<string, McpConnection>();
  /** Servers a running source provides (see ProvidedServer), by name; never the same name as a saved one. */
  private readonly provided = new Map<string, ProvidedServer>();
  /** Connections of unsaved targets (`--stdio`, `--url`), closed with the service. */
  private readonly ephemeral = new Set<McpConnection>();
  private readonly retryTimers = new Map<string, NodeJS.Timeout>();
  private readonly changes = new Emitter((error) => this.options.logger.warn('mcp listener failed', { error: (error as Error).message }));
  private readonly toolChanges = new Emitter<string>((error) => this.options.logger.warn('mcp listener failed', { error: (error as Error).message }));
  private closed = false;
  private readonly connecting = new Map<string, Promise<ServerSnapshot>>();
  private watcher?: FSWatcher;
  readonly redactor: SecretRedactor;
  private launchGate?: LaunchGate;

  constructor(private readonly options: McpServiceOptions) {
    this.redactor = options.redactor ?? new SecretRedactor([], { minLength: 4 });
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
    this.taskLedger = new TaskLedger(options.dataDir);
    this.tasks = new McpTaskService({
      ledger: this.taskLedger,
      connection: (name) => this.connections.get(name),
      requireServer: (name) => void this.requireConfig(name),
      follow: options.autoConnect === true,
      logger: options.logger,
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
    // A server saved by another process under a provided server's name wins: the provided one goes.
    for (const config of now) if (this.provided.has(config.name)) await this.withdrawProvided(config.name, 'a saved server now has its name');
    for (const name of before) if (!now.some((c) => c.name === name)) await this.disconnect(name);
    for (const config of now) if (!before.has(config.name) && config.enabled) void this.connect(config.name).catch(() => undefined);
    this.emit();
  }

  list(): ServerSnapshot[] {
    return this.configs().map((config) => this.connections.get(config.name)?.snapshot() ?? idleSnapshot(config));
  }

  get(name: string): ServerSnapshot {
    const config = this.requireConfig(name);
    return this.connections.get(name)?.snapshot() ?? idleSnapshot(config);
  }

  /** The saved servers, then the provided ones (see ProvidedServer). */
  configs(): McpServerConfig[] {
    return [...this.store.list(), ...[...this.provided.values()].map((server) => server.config)];
  }

  /** Whether `name` is a provided server (see ProvidedServer): not saved, not editable, gone with its source. */
  isProvided(name: string): boolean {
    return this.provided.has(name);
  }

  /**
   * Makes the provided servers exactly `servers`: new ones connect, one whose URL changed
   * reconnects there, one no longer given is disconnected and its tools leave the registry. A name
   * that a saved server holds is never taken: that server is left alone and the sentence is in the
   * returned refusals.
   */
  async setProvided(servers: readonly ProvidedServer[]): Promise<Array<{ name: string; reason: string }>> {
    const refusals: Array<{ name: string; reason: string }> = [];
    const wanted = new Map<string, ProvidedServer>();
    for (const server of servers) {
      const config = McpServerConfig.parse(server.config) as ProvidedServer['config'];
      if (this.store.get(config.name)) refusals.push({ name: config.name, reason: `a saved server is named "${config.name}"; it is left as it is` });
      else wanted.set(config.name, { ...server, config });
    }
    for (const name of [...this.provided.keys()]) if (!wanted.has(name)) await this.withdrawProvided(name, 'no longer provided');
    for (const [name, server] of wanted) {
      const previous = this.provided.get(name);
      if (previous && JSON.stringify(previous.config) === JSON.stringify(server.config) && previous.fetch === server.fetch) continue;
      if (previous) {
        // Nothing more goes to where it was: the old connection ends (its tools leave the registry) before the new one is made.
        this.cancelRetry(name);
        await this.connections.get(name)?.close();
        this.connections.delete(name);
        await this.emitTools(name);
      }
      this.provided.set(name, server);
      this.options.logger.info(previous ? 'provided mcp server moved' : 'provided mcp server added', { server: name, url: server.config.url });
      this.emit();
      void this.connect(name).catch(() => undefined);
    }
    return refusals;
  }

  /**
   * Keeps the provided servers in step with `source` from now on (a cluster's LanguageTools): each
   * change sets them again, one after another. Refusals are logged. Returns the stop.
   */
  provideFrom(source: { servers(): ProvidedServer[]; onChange(listener: () => void): () => void }): () => void {
    let queue = Promise.resolve();
    const apply = () => {
      queue = queue
        .then(async () => {
          if (this.closed) return;
          for (const refusal of await this.setProvided(source.servers())) this.options.logger.warn(`Provided server "${refusal.name}" is refused: ${refusal.reason}.`);
        })
        .catch((error: unknown) => this.options.logger.warn('provided servers not set', { error: (error as Error).message }));
    };
    apply();
    return source.onChange(apply);
  }

  private async withdrawProvided(name: string, reason: string): Promise<void> {
    if (!this.provided.delete(name)) return;
    this.options.logger.info('provided mcp server withdrawn', { server: name, reason });
    this.cancelRetry(name);
    await this.connections.get(name)?.close();
    this.connections.delete(name);
    this.emit();
    await this.emitTools(name);
  }

  /** Whether a server of this name is saved (asked on every call by the definition lock: no list copy). */
  isSaved(name: string): boolean {
    return this.store.get(name) !== undefined;
  }

  /**
   * Adds or edits a server. Credentials in its env, headers and URL are sealed into the secret
   * store (serverSecrets.ts); a value sent as `***` keeps the stored one. An enabled server
   * (re)connects.
   */
  async save(input: SaveServerInput, options: SaveOptions = {}): Promise<ServerSnapshot> {
    const { previousName } = input;
    if (!previousName && this.store.get(input.config.name)) throw new AppError('AlreadyExists', `A server named "${input.config.name}" already exists`);
    if (this.provided.has(input.config.name) || (previousName !== undefined && this.provided.has(previousName))) {
      throw new AppError('AlreadyExists', `"${previousName ?? input.config.name}" is a server the cluster provides (a LanguageTool); it cannot be saved or edited here`);
    }
    if (previousName && !this.store.get(previousName)) throw new AppError('NotFound', `No server named "${previousName}"`);
    const previous = previousName ? this.store.get(previousName) : undefined;
    const sealed = sealServerConfig(carryPlainValues(McpServerConfig.parse(input.config), previous), input.secretEnvValues);
    // Secrets follow the endpoint they were given for, not the name: an edit that points the
    // server elsewhere keeps none of them, from whichever path it comes (UI, workspace, import, CLI).
    const carried = previous && keepsStoredSecrets(previous, sealed.config) ? previous : undefined;
    const kept: Record<string, string> = {};
    for (const slot of sealed.kept) {
      const value = carried ? await this.store.secret(carried.name, slot) : undefined;
      if (value === undefined && previous && !carried) {
        throw new AppError(
          'InvalidInput',
          `${describeSlot(slot)} is "***" but the server now points at ${secretDestination(sealed.config)} instead of ${secretDestination(previous)}: enter the value again (stored secrets are never sent to another origin)`,
        );
      }
      if (value === undefined) throw new AppError('InvalidInput', `${describeSlot(slot)} is "***" but no value is stored for it: enter the value`);
      kept[slot] = value;
    }
    const token = input.bearerToken === undefined ? (carried ? await this.store.secret(carried.name, BEARER_SLOT) : undefined) : input.bearerToken || undefined;
    const config: McpServerConfig = sealed.config.transport === 'stdio' ? sealed.config : { ...sealed.config, hasBearerToken: !!token };
    if (options.requireLaunchConfirmation && config.transport === 'stdio') {
      const line = stdioLaunchLine(config);
      let unchanged = previous?.transport === 'stdio' && stdioLaunchLine(previous) === line;
      // Every environment value is sealed and shows as ***: a new value behind the same line is a new launch too.
      for (const [slot, value] of Object.entries(sealed.values)) if (unchanged && (await this.store.secret(previous!.name, slot)) !== value) unchanged = false;
      if (!unchanged && input.confirmedLaunchLine !== line) {
        throw launchConfirmationRequired([line]);
      }
    }

    const secrets = { ...kept, ...sealed.values, ...(token ? { [BEARER_SLOT]: token } : {}) };
    this.redactor.add(...valuesMaskedInRecords(config.name, secrets));
    await this.store.upsert(config, previousName);
    if (previous) {
      if (previous.name !== config.name) await this.disconnect(previous.name);
      const stale = secretSlots(previous).filter((slot) => previous.name !== config.name || !(slot in secrets));
      await this.store.deleteSecrets(previous.name, stale);
      if (!carried && previous.transport !== 'stdio') await this.oauth.endpointMoved(previous.name, secretDestination(config));
      if (previous.name !== config.name) {
        await this.oauth.rename(previous.name, config.name);
        await this.taskLedger.renameServer(previous.name, config.name);
      }
    }
    await this.store.setSecrets(config.name, secrets);
    this.emit();
    if (config.enabled) await this.connect(config.name).catch(() => undefined);
    else await this.disconnect(config.name);
    return this.get(config.name);
  }

  /**
   * Whether saving `config` (as a resource or import describes it) would change the saved server
   * `name`: its sealed form or any of its secret values.
   */
  async differsFromSaved(name: string, config: McpServerConfig): Promise<boolean> {
    const saved = this.store.get(name);
    if (!saved) return true;
    const sealed = sealServerConfig(config);
    const comparable = (c: McpServerConfig) => (c.transport === 'stdio' ? c : { ...c, hasBearerToken: false });
    if (JSON.stringify(comparable(sealed.config)) !== JSON.stringify(comparable(saved))) return true;
    for (const [slot, value] of Object.entries(sealed.values)) if ((await this.store.secret(name, slot)) !== value) return true;
    return false;
  }

  /** Removes a server: its connection closes (the child process ends) and its secrets are deleted. */
  async remove(name: string): Promise<void> {
    if (this.provided.has(name)) throw new AppError('InvalidInput', `"${name}" is a server the cluster provides (a LanguageTool); it goes when its LanguageTool does`);
    this.requireConfig(name);
    await this.disconnect(name);
    this.connections.delete(name);
    await this.store.remove(name);
    await this.oauth.forget(name);
    await this.taskLedger.forgetServer(name);
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

  /**
   * A server to use now: connected with its tools listed as it is, the connection under way waited
   * for, or a new one. Unlike connect(), never closes a working connection or a handshake in progress.
   */
  async whenConnected(name: string): Promise<void> {
    const inFlight = this.connecting.get(name);
    if (inFlight) {
      await inFlight;
      return;
    }
    const state = this.connections.get(name)?.state;
    if (state?.status === 'ready' && !state.listing) return;
    await this.connect(name);
  }

  /**
   * Asked before every connection of a saved server: a refusal (the workspace's launch allow-list
   * for a server it manages) fails the connect with that sentence and nothing is spawned.
   */
  setLaunchGate(gate: LaunchGate | undefined): void {
    this.launchGate = gate;
  }

  private async connectNow(name: string, attempt: number): Promise<ServerSnapshot> {
    const config = this.requireConfig(name);
    this.cancelRetry(name);
    const refusal = await this.launchGate?.(config);
    if (refusal) throw new AppError('PolicyDenied', refusal, { step: CONFIRM_LAUNCH_STEP, retryable: false });
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
    const connection = this.requireConnection(name);
    await connection.discover();
    await this.emitTools(name);
    return connection.snapshot();
  }

  connection(name: string): McpConnection | undefined {
    return this.connections.get(name);
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

  /** What an import would add, launch lines included, before anything is saved or started. */
  previewImport(text: string): { format: string; servers: ImportPreviewEntry[]; skipped: Array<{ name: string; reason: string }> } {
    const parsed = parseServerImport(text);
    return {
      format: parsed.format,
      skipped: parsed.skipped,
      servers: parsed.servers.map(({ config }) => {
        const sealed = sealServerConfig(config).config;
        return { name: sealed.name, transport: sealed.transport, launch: sealed.transport === 'stdio' ? stdioLaunchLine(sealed) : sealed.url, exists: !!this.store.get(sealed.name) };
      }),
    };
  }

  async importServers(text: string, options: { replace?: boolean; confirmedLaunchLines?: string[] } & SaveOptions = {}): Promise<ImportSummary> {
    const parsed = parseServerImport(text);
    const summary: ImportSummary = { added: [], replaced: [], skipped: [...parsed.skipped], format: parsed.format };
    for (const server of parsed.servers) {
      const exists = !!this.store.get(server.config.name);
      if (exists && !options.replace) {
        summary.skipped.push({ name: server.config.name, reason: 'a server with this name already exists' });
        continue;
      }
      const sealed = sealServerConfig(server.config).config;
      const line = sealed.transport === 'stdio' ? stdioLaunchLine(sealed) : undefined;
      try {
        await this.save(
          { config: server.config, bearerToken: server.bearerToken, previousName: exists ? server.config.name : undefined, confirmedLaunchLine: line && options.confirmedLaunchLines?.includes(line) ? line : undefined },
          options,
        );
      } catch (error) {
        if (!(error instanceof AppError) || error.step !== CONFIRM_LAUNCH_STEP) throw error;
        summary.skipped.push({ name: server.config.name, reason: `not confirmed: ${line}` });
        continue;
      }
      (exists ? summary.replaced : summary.added).push(server.config.name);
    }
    return summary;
  }

  /**
   * `mcp.json` for other clients (sealed configs: the server inventory's); secrets as placeholders
   * unless `includeSecrets` (the CLI's --include-secrets), which unseals what the store holds.
   */
  async exportServers(configs: readonly McpServerConfig[], options: { includeSecrets?: boolean } = {}): Promise<string> {
    if (!options.includeSecrets) return exportMcpJson(configs.map((config) => ({ config })));
    return exportMcpJson(
      await Promise.all(
        configs.map(async (config) => {
          const secrets = await this.store.secretsOf(config);
          return { config: unsealServerConfig(config, secrets), bearerToken: secrets[BEARER_SLOT] };
        }),
      ),
    );
  }

  /**
   * A connection that is not saved: `tooldeck mcp tools --stdio …` and the conformance client.
   * With `oauth`, an HTTP server's authorization runs with settings and tokens held in memory only.
   */
  async openEphemeral(input: McpServerConfigInput, bearerToken?: string, oauth?: EphemeralOAuthOptions): Promise<McpConnection> {
    const launch = McpServerConfig.parse(input);
    const sealed = sealServerConfig(launch);
    // Never saved, but masked like saved ones wherever they would show (transcript, errors, history).
    this.redactor.add(...valuesMaskedInRecords(launch.name, sealed.values), ...(bearerToken ? [bearerToken] : []));
    const config = sealed.config;
    const connection = new McpConnection({
      config,
      launch,
      redactor: this.redactor,
      bearerToken,
      oauth: oauth && config.transport !== 'stdio' ? (await OAuthService.ephemeralSession(config, oauth)).session : undefined,
      broker: this.broker,
      roots: () => this.store.roots(),
      clientInfo: this.options.clientInfo,
      logger: this.options.logger,
      connectTimeoutMs: this.options.connectTimeoutMs,
      eraCache: this.eraCache,
      shutdownGraceMs: this.options.shutdownGraceMs,
      maxResultBytes: this.options.maxResultBytes,
      onChange: () => undefined,
      onUnexpectedClose: () => undefined,
    });
    // Not saved, but ended with the service like any other (a CLI command interrupted mid-connect).
    for (const open of this.ephemeral) if (open.state.status === 'closed') this.ephemeral.delete(open);
    this.ephemeral.add(connection);
    await connection.connect();
    return connection;
  }

  onChange(listener: () => void): () => void {
    return this.changes.on(listener);
  }

  /** A server's tool list changed (discovered, refreshed, disconnected or removed). */
  onToolsChanged(listener: (server: string) => void): () => void {
    return this.toolChanges.on(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.watcher?.close();
    this.oauth.close();
    this.tasks.close();
    for (const name of [...this.retryTimers.keys()]) this.cancelRetry(name);
    await Promise.all([...this.connections.values(), ...this.ephemeral].map((c) => c.close()));
    this.connections.clear();
    this.provided.clear();
    this.ephemeral.clear();
  }

  private async createConnection(config: McpServerConfig, onUnexpectedClose: (reason: string) => void) {
    const secrets = await this.store.secretsOf(config);
    this.redactor.add(...valuesMaskedInRecords(config.name, secrets));
    return new McpConnection({
      config,
      launch: unsealServerConfig(config, secrets),
      redactor: this.redactor,
      bearerToken: secrets[BEARER_SLOT],
      // A provided server has no sign-in of its own; it is reached the way its source says.
      ...(this.provided.has(config.name) ? { fetch: this.provided.get(config.name)!.fetch } : { oauth: config.transport === 'stdio' ? undefined : this.oauth.session(config) }),
      broker: this.broker,
      roots: () => this.store.roots(),
      clientInfo: this.options.clientInfo,
      logger: this.options.logger,
      connectTimeoutMs: this.options.connectTimeoutMs,
      eraCache: this.eraCache,
      shutdownGraceMs: this.options.shutdownGraceMs,
      maxResultBytes: this.options.maxResultBytes,
      taskLedger: this.taskLedger,
      onDetachedTask: (taskId) => this.tasks.taskStarted(config.name, taskId),
      onExecutorTasksChanged: () => this.tasks.changed(config.name),
      onChange: () => {
        this.emit();
        void this.emitTools(config.name);
        void this.tasks.serverChanged(config.name);
      },
      onUnexpectedClose,
    });
  }

  private scheduleReconnect(name: string, attempt: number, reason: string) {
    if (this.closed || !this.configOf(name)?.enabled) return;
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

  private configOf(name: string): McpServerConfig | undefined {
    return this.store.get(name) ?? this.provided.get(name)?.config;
  }

  private requireConfig(name: string): McpServerConfig {
    const config = this.configOf(name);
    if (!config) throw new AppError('NotFound', `No saved server named "${name}"`);
    return config;
  }

  /**
   * The ready connection to a saved server: NotFound for a name never saved, ConnectionFailed (with
   * the step and reason of its last state) when it is not connected.
   */
  requireConnection(name: string): McpConnection {
    this.requireConfig(name);
    const connection = this.connections.get(name);
    if (!connection || connection.state.status !== 'ready') {
      const state = connection?.state;
      throw new AppError('ConnectionFailed', `Server "${name}" is not connected${state?.message ? `: ${state.message}` : ''}`, { step: state?.step });
    }
    return connection;
  }

  private emit() {
    this.changes.emit();
  }

  /** Tells listeners a server's tools changed and refreshes its on-disk tool list. */
  private emitTools(server: string): Promise<void> {
    const connection = this.connections.get(server);
    const persisted =
      connection?.state.status === 'ready' && !connection.state.listing && this.store.get(server)
        ? this.toolCache.write(server, connection.tools).catch((error: Error) => this.options.logger.warn('tool cache not written', { server, error: error.message }))
        : Promise.resolve();
    this.toolChanges.emit(server);
    return persisted;
  }
}

function describeSlot(slot: string): string {
  const [kind, ...rest] = slot.split(':');
  const name = rest.join(':');
  if (kind === 'env') return `Environment variable ${name}`;
  if (kind === 'header') return `Header ${name}`;
  if (slot === 'url:password') return 'The URL password';
  return `URL parameter ${name.replace(/^query:/, '')}`;
}

function idleSnapshot(config: McpServerConfig): ServerSnapshot {
  return { config, state: { status: 'closed', since: 0, attempt: 0 }, tools: [], resources: [], resourceTemplates: [], prompts: [], problems: [] };
}
