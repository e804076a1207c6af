import { join } from 'node:path';
import { z } from 'zod';
import { AppError, isAppError } from '../../shared/errors';
import {
  GrpcProtocol,
  GrpcSourceInput,
  GrpcSourceName,
  GrpcTarget,
  GrpcTlsMode,
  type GrpcServiceView,
  type GrpcSourceView,
  type GrpcTargetInput,
  type GrpcTlsInput,
  type GrpcToolView,
} from '../../shared/grpc';
import { JsonFile } from '../platform/JsonFile';
import { credentialOriginChange, credentialsMayGoTo, grpcEndpointUrl } from '../../shared/endpointOrigin';
import type { Logger } from '../platform/Logger';
import type { SecretStore } from '../platform/SecretStore';
import type { ToolConfig } from '../registry/createToolEntry';
import { SchemaValidator } from '../registry/SchemaValidator';
import type { ToolCatalog } from '../registry/ToolCatalog';
import type { ToolExecutor } from '../registry/types';
import type { ChannelSettings } from './GrpcChannel';
import type { GrpcConnection } from './GrpcConnection';
import { toolServerEntries } from './toolServerEntries';
import { Emitter } from '../platform/Emitter';

const loadGrpcClient = () => import('./grpcClient');

/** What grpc-sources.json keeps: no secret (metadata values and the client key live in the SecretStore). */
const SavedSource = z.object({
  name: GrpcSourceName,
  address: z.string(),
  protocol: GrpcProtocol,
  tls: z.object({ mode: GrpcTlsMode, ca: z.string().optional(), cert: z.string().optional(), serverName: z.string().optional() }),
  metadataKeys: z.array(z.string()).default([]),
});
type SavedSource = z.infer<typeof SavedSource>;

const SavedFile = z.object({
  sources: z.array(SavedSource).default([]),
  /** Pinned tool versions by source and tool, for saved and workspace sources alike. */
  pins: z.record(z.string(), z.record(z.string(), z.string())).default({}),
  /**
   * The endpoint (`grpc://host:port` or `grpcs://host:port`) each source's metadata was given for,
   * saved and workspace sources alike: metadata follows that endpoint, not the source's name.
   */
  credentialEndpoints: z.record(z.string(), z.string()).default({}),
});

/** Where a source dials, as the endpoint its credentials are bound to. */
function endpointOf(saved: SavedSource): string {
  return grpcEndpointUrl(saved.address, saved.tls.mode !== 'plaintext');
}

/** A source an Orloj Tool resource (type grpc) declares; the reconciler hands these over. */
export interface WorkspaceGrpcSource {
  name: string;
  address: string;
  tls: GrpcTlsInput;
  /** Risk, operation classes and runtime of the Tool resource, for every entry of the source. */
  config?: ToolConfig;
  /** Metadata keys whose values must be set (in the secret store) before calls can authenticate, e.g. authorization. */
  requiredMetadata?: string[];
  /** Prefix for a required key's value, e.g. `Bearer ` for the bearer profile. */
  metadataPrefix?: Record<string, string>;
}

interface Source {
  saved: SavedSource;
  /** A one-off source of `tooldeck grpc call`: registered for one call, never saved. */
  ephemeral?: boolean;
  managedBy?: 'workspace';
  config?: ToolConfig;
  workspace?: WorkspaceGrpcSource;
  connection?: GrpcConnection;
  state: GrpcSourceView['state'];
  error?: AppError;
  tools: GrpcToolView[];
  services: GrpcServiceView[];
  listedAt?: number;
  /** The definitions of the last listing, so a pin re-derives entries without asking the server. */
  rederive?: () => void;
  listing?: Promise<void>;
}

export interface GrpcSourcesOptions {
  dataDir: string;
  catalog: ToolCatalog;
  secretStore: SecretStore;
  logger: Logger;
  /** List workspace sources as they are declared (the console hosts); one-shot commands list on demand. */
  autoList?: boolean;
  /** Deadline of ListTools and of reflection (default 10 s). */
  listTimeoutMs?: number;
}

/**
 * One secret per metadata value (`grpc:<source>/metadata/<key>`), so the console's redactor learns
 * each value on its own and masks it wherever it shows up.
 */
export function grpcMetadataSecretKey(source: string, key: string): string {
  return `grpc:${source}/metadata/${key}`;
}

export function grpcClientKeySecretKey(source: string): string {
  return `grpc:${source}/tls-key`;
}

/**
 * gRPC tool sources: tools.v1 ToolServers (ListTools → `grpc:<source>.<tool>`, ExecuteTool through
 * the pipeline) and any service through reflection (`grpc:<source>.<package.Service/Method>`). Saved
 * ones live in `<dataDir>/grpc-sources.json`, workspace ones come from Orloj Tool resources of type
 * grpc; both register their entries beside MCP tools, A2A skills and HTTP tools.
 */
export class GrpcSources {
  private readonly file: JsonFile<typeof SavedFile>;
  private readonly sources = new Map<string, Source>();
  private pins: Record<string, Record<string, string>> = {};
  private credentialEndpoints: Record<string, string> = {};
  private readonly validator = new SchemaValidator();
  private readonly changes = new Emitter((error) => this.options.logger.warn('gRPC sources listener failed', { error: (error as Error).message }));
  private readonly pinChanges = new Emitter<{ source: string; tool: string; callVersion: string }>((error) => this.options.logger.warn('gRPC pin listener failed', { error: (error as Error).message }));

  constructor(private readonly options: GrpcSourcesOptions) {
    this.file = new JsonFile(join(options.dataDir, 'grpc-sources.json'), SavedFile, () => ({ sources: [], pins: {}, credentialEndpoints: {} }), { kind: 'gRPC sources file' });
  }

  async init(): Promise<void> {
    try {
      const saved = await this.file.read();
      this.pins = saved.pins;
      this.credentialEndpoints = saved.credentialEndpoints;
      for (const source of saved.sources) {
        this.sources.set(source.name, { saved: source, state: 'pending', tools: [], services: [] });
        // A file from before credentials were bound to endpoints: the user gave a saved source's
        // metadata with its address, so that is what it stays bound to.
        this.credentialEndpoints[source.name] ??= endpointOf(source);
      }
    } catch (error) {
      this.options.logger.warn('grpc-sources.json unreadable', { error: (error as Error).message });
    }
  }

  /** Lists every source's tools in the background (the console hosts); one-shot commands list on demand. */
  refreshAll(): Promise<void> {
    return Promise.all([...this.sources.keys()].map((name) => this.refresh(name).catch(() => undefined))).then(() => undefined);
  }

  list(): GrpcSourceView[] {
    return [...this.sources.values()].filter((source) => !source.ephemeral).map((source) => this.view(source)).sort((a, b) => a.name.localeCompare(b.name));
  }

  get(name: string): GrpcSourceView {
    return this.view(this.source(name));
  }

  has(name: string): boolean {
    return this.sources.has(name);
  }

  /** A saved or workspace source, not a one-off of `tooldeck grpc call`: what the lockfile pins. */
  isLasting(name: string): boolean {
    const source = this.sources.get(name);
    return !!source && !source.ephemeral;
  }

  /** An operator pinned (or unpinned) a tool: told the version calls carry from now on, before the entries change. */
  onPinned(listener: (source: string, tool: string, callVersion: string) => void): () => void {
    return this.pinChanges.on(({ source, tool, callVersion }) => listener(source, tool, callVersion));
  }

  /** Sources or their tools changed (for views and the reconciler's status). */
  onChange(listener: () => void): () => void {
    return this.changes.on(listener);
  }

  /**
   * Saves a source after listing its tools (or methods); fails, saving nothing, when it cannot be
   * listed — unless `skipCheck`. Metadata values and the client key go to the secret store.
   */
  async add(input: GrpcSourceInput): Promise<GrpcSourceView> {
    const parsed = GrpcSourceInput.parse(input);
    const existing = this.sources.get(parsed.name);
    if (existing?.managedBy === 'workspace') throw new AppError('AlreadyExists', `The workspace declares a gRPC source named "${parsed.name}" (an Orloj Tool); edit or rename that resource instead.`);
    const saved: SavedSource = {
      name: parsed.name,
      address: parsed.address.trim(),
      protocol: parsed.protocol,
      tls: { mode: parsed.tls.mode, ...(parsed.tls.ca ? { ca: parsed.tls.ca } : {}), ...(parsed.tls.cert ? { cert: parsed.tls.cert } : {}), ...(parsed.tls.serverName ? { serverName: parsed.tls.serverName } : {}) },
      metadataKeys: Object.keys(parsed.metadata).sort(),
    };
    const candidate: Source = { saved, state: 'pending', tools: [], services: [] };
    const settings = { address: saved.address, tls: parsed.tls };
    const { GrpcConnection } = await loadGrpcClient();
    candidate.connection = new GrpcConnection(settings, async () => parsed.metadata);
    if (!parsed.skipCheck) {
      try {
        await this.listInto(candidate, () => undefined);
      } catch (error) {
        candidate.connection.close();
        throw error;
      }
    }
    candidate.connection.close();
    candidate.connection = undefined;
    if (parsed.tls.key) await this.options.secretStore.set(grpcClientKeySecretKey(saved.name), parsed.tls.key);
    else await this.options.secretStore.delete(grpcClientKeySecretKey(saved.name));
    await this.writeMetadata(saved.name, parsed.metadata);
    this.bindCredentials(saved);
    existing?.connection?.close();
    this.sources.set(saved.name, { saved, state: 'pending', tools: [], services: [] });
    await this.persist();
    await this.refresh(saved.name).catch(() => undefined);
    return this.get(saved.name);
  }

  async remove(name: string): Promise<void> {
    const source = this.source(name);
    if (source.managedBy === 'workspace') throw new AppError('InvalidInput', `"${name}" is declared by an Orloj Tool in the workspace; delete that resource to remove it.`);
    this.forget(name);
    await this.dropCredentials(name);
    delete this.pins[name];
    await this.persist();
  }

  /**
   * Replaces the metadata sent with every call (e.g. a new authorization token), bound to the
   * endpoint the source dials now.
   */
  async setMetadata(name: string, metadata: Record<string, string>): Promise<GrpcSourceView> {
    const source = this.source(name);
    const parsed = GrpcTarget.shape.metadata.parse(metadata);
    await this.writeMetadata(name, parsed);
    source.saved = { ...source.saved, metadataKeys: Object.keys(parsed).sort() };
    this.bindCredentials(source.saved);
    await this.persist();
    await this.refresh(name).catch(() => undefined);
    return this.get(name);
  }

  /** Calls of a tools.v1 tool carry `version` (undefined: the tool's own version again). */
  async pin(name: string, tool: string, version: string | undefined): Promise<GrpcSourceView> {
    const source = this.source(name);
    if (source.saved.protocol !== 'tools.v1') throw new AppError('InvalidInput', `${name} is a reflection source: its methods have no versions to pin.`);
    const pins = { ...this.pins[name] };
    if (version === undefined || version === '') delete pins[tool];
    else pins[tool] = version;
    if (Object.keys(pins).length) this.pins[name] = pins;
    else delete this.pins[name];
    await this.persist();
    const callVersion = pins[tool] ?? source.tools.find((listed) => listed.name === tool)?.version;
    if (callVersion !== undefined) this.pinChanges.emit({ source: name, tool, callVersion });
    source.rederive?.();
    this.emit();
    return this.get(name);
  }

  /** Lists the source's tools (or reflects its methods) again and replaces its registry entries. */
  refresh(name: string): Promise<void> {
    const source = this.source(name);
    source.listing ??= this.doRefresh(name, source).finally(() => (source.listing = undefined));
    return source.listing;
  }

  /** Lists the source unless its entries are registered: what `tooldeck call` and collection runs need first. */
  async ensureListed(name: string): Promise<void> {
    if (!this.sources.has(name)) throw new AppError('NotFound', `No gRPC source named "${name}"`);
    if (this.options.catalog.list({ source: `grpc:${name}` }).length) return;
    await this.refresh(name);
  }

  /**
   * The workspace's sources (Orloj Tools of type grpc), as a whole: new ones are listed, changed
   * ones re-listed, and ones no longer declared removed with their entries.
   */
  applyWorkspace(declared: readonly WorkspaceGrpcSource[]): void {
    const names = new Set(declared.map((item) => item.name));
    for (const [name, source] of this.sources) if (source.managedBy === 'workspace' && !names.has(name)) this.forget(name);
    for (const item of declared) {
      const existing = this.sources.get(item.name);
      if (existing && !existing.managedBy) continue;
      const saved: SavedSource = {
        name: item.name,
        address: item.address,
        protocol: 'tools.v1',
        tls: { mode: item.tls.mode, ...(item.tls.ca ? { ca: item.tls.ca } : {}), ...(item.tls.serverName ? { serverName: item.tls.serverName } : {}) },
        metadataKeys: existing?.saved.metadataKeys ?? [],
      };
      if (existing && JSON.stringify(existing.workspace) === JSON.stringify(item)) continue;
      existing?.connection?.close();
      this.sources.set(item.name, { saved, managedBy: 'workspace', workspace: item, config: item.config, state: 'pending', tools: [], services: [] });
      void this.storedMetadataKeys(item.name)
        .then((keys) => {
          const source = this.sources.get(item.name);
          if (source?.workspace !== item) return;
          source.saved = { ...source.saved, metadataKeys: keys };
          if (this.options.autoList) return this.refresh(item.name);
        })
        .catch(() => undefined);
    }
    this.emit();
  }

  /** The saved source that holds a name, or undefined when the workspace (or nobody) does. */
  savedSource(name: string): boolean {
    const source = this.sources.get(name);
    return !!source && !source.managedBy;
  }

  async close(): Promise<void> {
    for (const source of this.sources.values()) source.connection?.close();
  }

  /**
   * A one-off reflection of any server (`tooldeck grpc list <host:port>`): its services and methods,
   * nothing saved or registered.
   */
  async explore(target: GrpcTargetInput, timeoutMs = this.listTimeoutMs): Promise<GrpcServiceView[]> {
    const parsed = GrpcTarget.parse(target);
    const { GrpcConnection, reflect, reflectedMethods } = await loadGrpcClient();
    const connection = new GrpcConnection({ address: parsed.address, tls: parsed.tls }, async () => parsed.metadata);
    try {
      const reflected = await reflect(connection.channel, await connection.options(timeoutMs), parsed.address).catch(async (error: unknown) => {
        throw await connection.failure(error, `server reflection on ${parsed.address}`);
      });
      return reflectedMethods('adhoc', reflected).services;
    } finally {
      connection.close();
    }
  }

  /**
   * Registers a one-off reflection source under `name` (`tooldeck grpc call <host:port> …`) so the
   * call runs through the pipeline like any other; the returned function unregisters it.
   */
  async openEphemeral(name: string, target: GrpcTargetInput): Promise<() => void> {
    if (this.sources.has(name)) throw new AppError('AlreadyExists', `A gRPC source named "${name}" exists; pick another name.`);
    const parsed = GrpcTarget.parse(target);
    const saved: SavedSource = { name, address: parsed.address, protocol: 'reflection', tls: { mode: parsed.tls.mode }, metadataKeys: Object.keys(parsed.metadata) };
    const source: Source = { saved, ephemeral: true, state: 'pending', tools: [], services: [] };
    const { GrpcConnection } = await loadGrpcClient();
    source.connection = new GrpcConnection({ address: parsed.address, tls: parsed.tls }, async () => parsed.metadata);
    this.sources.set(name, source);
    try {
      await this.listInto(source, (entries, executor) => this.options.catalog.replaceSource({ kind: 'grpc', name }, entries, executor));
    } catch (error) {
      this.forget(name);
      throw error;
    }
    return () => this.forget(name);
  }

  private get listTimeoutMs(): number {
    return this.options.listTimeoutMs ?? 10_000;
  }

  private source(name: string): Source {
    const source = this.sources.get(name);
    if (!source) throw new AppError('NotFound', `No gRPC source named "${name}"`);
    return source;
  }

  /**
   * Unregisters a source and drops its credentials: a source of the same name declared later (another
   * folder, a `git pull`) starts with none.
   */
  private forget(name: string) {
    const source = this.sources.get(name);
    source?.connection?.close();
    this.sources.delete(name);
    this.options.catalog.removeSource({ kind: 'grpc', name });
    if (!source?.ephemeral) {
      void this.dropCredentials(name)
        .then(() => this.persist())
        .catch((error: unknown) => this.options.logger.warn('could not drop a removed gRPC source’s credentials', { source: name, error: (error as Error).message }));
    }
    this.emit();
  }

  /** Deletes a source's metadata values, client key and the endpoint they were bound to. */
  private async dropCredentials(name: string): Promise<void> {
    delete this.credentialEndpoints[name];
    await this.writeMetadata(name, {});
    await this.options.secretStore.delete(grpcClientKeySecretKey(name));
  }

  /** The source's metadata now belongs to the endpoint it dials (none: nothing to bind). */
  private bindCredentials(saved: SavedSource) {
    if (saved.metadataKeys.length) this.credentialEndpoints[saved.name] = endpointOf(saved);
    else delete this.credentialEndpoints[saved.name];
  }

  private async doRefresh(name: string, source: Source): Promise<void> {
    try {
      const { GrpcConnection } = await loadGrpcClient();
      source.connection ??= new GrpcConnection(await this.settings(source), () => this.metadata(source));
      await this.listInto(source, (entries, executor) => {
        if (this.sources.get(name) === source) this.options.catalog.replaceSource({ kind: 'grpc', name }, entries, executor);
      });
    } catch (error) {
      source.state = 'error';
      source.error = isAppError(error) ? error : new AppError('ExecutionFailed', (error as Error).message);
      this.emit();
      throw source.error;
    }
    this.emit();
  }

  /** Lists into `source` (views, state) and hands the entries to `register`. */
  private async listInto(source: Source, register: (entries: Parameters<ToolCatalog['replaceSource']>[1], executor: ToolExecutor) => void): Promise<void> {
    const connection = source.connection!;
    const { name, address, protocol } = source.saved;
    const { ReflectedMethodExecutor, reflect, reflectedMethods, ToolServerClient, ToolServerExecutor } = await loadGrpcClient();
    if (protocol === 'tools.v1') {
      let definitions;
      try {
        definitions = await new ToolServerClient(connection.channel).listTools(await connection.options(this.listTimeoutMs));
      } catch (error) {
        throw await connection.failure(error, `ListTools on ${address}`);
      }
      const executor = new ToolServerExecutor(connection);
      source.rederive = () => {
        const { entries, views } = toolServerEntries(definitions, { source: name, pins: this.pins[name], config: source.config, validator: this.validator });
        source.tools = views;
        register(entries, executor);
      };
    } else {
      let reflected;
      try {
        reflected = await reflect(connection.channel, await connection.options(this.listTimeoutMs), address);
      } catch (error) {
        throw await connection.failure(error, `server reflection on ${address}`);
      }
      const { services, entries, methods } = reflectedMethods(name, reflected, source.config);
      const executor = new ReflectedMethodExecutor(connection, methods, reflected.registry);
      source.rederive = () => {
        source.services = services;
        register(entries, executor);
      };
    }
    source.rederive();
    source.state = 'ready';
    source.error = undefined;
    source.listedAt = Date.now();
  }

  private async settings(source: Source): Promise<ChannelSettings> {
    const { tls } = source.saved;
    const key = tls.mode === 'mtls' ? await this.options.secretStore.get(grpcClientKeySecretKey(source.saved.name)) : undefined;
    if (tls.mode === 'mtls' && !key) throw new AppError('Unauthorized', `${source.saved.name} uses mTLS but its client key is not in the secret store; add the source again with --cert and --key.`, { step: 'tls' });
    return { address: source.saved.address, tls: { ...tls, ...(key ? { key } : {}) } };
  }

  private async metadata(source: Source): Promise<Record<string, string>> {
    const values = await this.readMetadata(source.saved.name);
    if (Object.keys(values).length) await this.refuseIfMoved(source);
    const missing = (source.workspace?.requiredMetadata ?? []).filter((key) => !values[key]);
    if (missing.length) {
      throw new AppError('Unauthorized', `${source.saved.name} needs ${missing.join(', ')}: set it in the gRPC section (kept in the secret store).`, { step: 'auth' });
    }
    const prefixes = source.workspace?.metadataPrefix ?? {};
    return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, prefixes[key] && !value.startsWith(prefixes[key]) ? `${prefixes[key]}${value}` : value]));
  }

  /**
   * Metadata was given for one endpoint; a source that now dials another host:port, or plaintext
   * where it was TLS (an edited workspace Tool, another folder declaring the same name, a hand-edited
   * file), loses it here, before anything is sent: it is deleted and the user asked to set it again.
   */
  private async refuseIfMoved(source: Source): Promise<void> {
    const { name } = source.saved;
    const current = endpointOf(source.saved);
    const bound = this.credentialEndpoints[name];
    if (bound && credentialsMayGoTo(bound, current)) return;
    await this.dropCredentials(name);
    source.saved = { ...source.saved, metadataKeys: [] };
    await this.persist();
    const why = bound ? credentialOriginChange(bound, current) : `it is not known which endpoint they were given for`;
    this.options.logger.warn('gRPC metadata dropped: the source dials another endpoint', { source: name, endpoint: current, ...(bound ? { savedFor: bound } : {}) });
    throw new AppError('Unauthorized', `${name}: its saved metadata was dropped, not sent, because ${why}; set it again in the gRPC section if ${current} should have it.`, { step: 'auth' });
  }

  private async storedMetadataKeys(name: string): Promise<string[]> {
    const prefix = grpcMetadataSecretKey(name, '');
    return (await this.options.secretStore.keys()).filter((key) => key.startsWith(prefix)).map((key) => key.slice(prefix.length)).sort();
  }

  private async readMetadata(name: string): Promise<Record<string, string>> {
    const values: Record<string, string> = {};
    for (const key of await this.storedMetadataKeys(name)) {
      const value = await this.options.secretStore.get(grpcMetadataSecretKey(name, key));
      if (value !== undefined) values[key] = value;
    }
    return values;
  }

  /** Replaces every stored metadata value of a source with `values`. */
  private async writeMetadata(name: string, values: Record<string, string>): Promise<void> {
    for (const key of await this.storedMetadataKeys(name)) if (!(key in values)) await this.options.secretStore.delete(grpcMetadataSecretKey(name, key));
    for (const [key, value] of Object.entries(values)) await this.options.secretStore.set(grpcMetadataSecretKey(name, key), value);
  }

  private view(source: Source): GrpcSourceView {
    const { saved } = source;
    return {
      name: saved.name,
      address: saved.address,
      protocol: saved.protocol,
      tls: { mode: saved.tls.mode, customCa: !!saved.tls.ca, clientCertificate: !!saved.tls.cert, ...(saved.tls.serverName ? { serverName: saved.tls.serverName } : {}) },
      metadataKeys: saved.metadataKeys,
      ...(source.managedBy ? { managedBy: source.managedBy } : {}),
      state: source.state,
      ...(source.error ? { error: source.error.toShape() } : {}),
      tools: source.tools,
      services: source.services,
      ...(source.listedAt ? { listedAt: source.listedAt } : {}),
    };
  }

  private async persist(): Promise<void> {
    const sources = [...this.sources.values()].filter((source) => !source.managedBy && !source.ephemeral).map((source) => source.saved);
    await this.file.write({ sources: sources.sort((a, b) => a.name.localeCompare(b.name)), pins: this.pins, credentialEndpoints: this.credentialEndpoints });
  }

  private emit() {
    this.changes.emit();
  }
}
