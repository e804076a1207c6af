import { join } from 'node:path';
import { z } from 'zod';
import { AppError, launchConfirmationRequired } from '../../shared/errors';
import { McpServerConfig, stdioLaunchLine, type SaveServerInput, type ServerSnapshot } from '../../shared/mcp';
import type { Freshness, InstallChoice, InstallPreview, InstallRequest, RegistryEntry, SearchPage } from '../../shared/mcpRegistry';
import { sealServerConfig } from '../../shared/serverSecrets';
import { JsonFile } from '../platform/JsonFile';
import { planBundleLaunch, planInstall, type InstallOrigin, type PlannedServer } from './installPlan';
import { downloadVerified, readBundle, writeBundle, type ReadBundle } from './mcpbBundle';
import { RegistryClient } from './RegistryClient';
import { fetchServerCard } from './serverCard';
import { normalizeRegistryUrl, RegistrySources } from './RegistrySources';

type FetchLike = (url: string, init?: RequestInit) => Promise<Response>;

export interface McpRegistryOptions {
  dataDir: string;
  fetch?: FetchLike;
  timeoutMs?: number;
}

const InstallsFile = z.object({
  servers: z
    .record(z.string(), z.object({ registry: z.string(), name: z.string(), version: z.string(), kind: z.string(), identifier: z.string().optional(), launch: z.string().optional(), cardTools: z.array(z.string().max(256)).max(2_000).optional() }))
    .default({}),
});

export interface PreparedInstall {
  entry: RegistryEntry;
  freshness: Freshness;
  plan: PlannedServer;
  /** An mcpb bundle, verified and read but not yet written: install() unpacks it once the launch is confirmed. */
  bundle?: { contents: ReadBundle; folder: string };
}

/** How an installed server is saved: McpService.save, as every server, so its secrets are sealed the same way. */
export interface ServerSaver {
  list(): ServerSnapshot[];
  save(input: SaveServerInput, options: { requireLaunchConfirmation?: boolean }): Promise<ServerSnapshot>;
}

/** The exact line a stdio plan launches (every environment value as ***, as save() seals it), or a remote's URL. */
export function launchOf(config: McpServerConfig): string {
  const sealed = sealServerConfig(config).config;
  return sealed.transport === 'stdio' ? stdioLaunchLine(sealed) : sealed.url;
}

export interface AvailableUpdate {
  server: string;
  origin: InstallOrigin;
  latest: string;
}

/**
 * Finding and installing servers from MCP registries: which registries (RegistrySources), reading
 * them (RegistryClient, cached for offline use), install plans (installPlan.ts; mcpb bundles
 * downloaded, verified and unpacked here), and which saved server came from which registry entry
 * (`registry-installs.json`), for the newer-version notice. Saving the planned server is the
 * caller's: through McpService.save, as any server, so its secrets are sealed the same way.
 */
export class McpRegistry {
  readonly sources: RegistrySources;
  readonly client: RegistryClient;
  private readonly installs: JsonFile<typeof InstallsFile>;

  constructor(private readonly options: McpRegistryOptions) {
    this.sources = new RegistrySources(options.dataDir);
    this.client = new RegistryClient({ dataDir: options.dataDir, fetch: options.fetch, timeoutMs: options.timeoutMs });
    this.installs = new JsonFile(join(options.dataDir, 'registry-installs.json'), InstallsFile, () => InstallsFile.parse({}), { kind: 'registry installs file', whenInvalid: 'empty' });
  }

  /** The registry to ask: the one named (need not be saved), else the first enabled one. */
  async registryFor(named?: string): Promise<string> {
    if (named) return normalizeRegistryUrl(named);
    const [first] = await this.sources.enabled();
    if (!first) throw new AppError('InvalidInput', 'Every registry is turned off: turn one on, add one, or name one with --registry URL.');
    return first;
  }

  async search(query: { registry?: string; search?: string; cursor?: string; limit?: number }): Promise<SearchPage> {
    return this.client.search(await this.registryFor(query.registry), query);
  }

  async show(name: string, options: { registry?: string; version?: string } = {}) {
    const registry = await this.registryFor(options.registry);
    const [chosen, versions] = await Promise.all([this.client.version(registry, name, options.version ?? 'latest'), this.client.versions(registry, name)]);
    return { ...chosen, versions };
  }

  /**
   * The entry and the server config it installs as, the version pinned: a bundle is downloaded,
   * checked against its fileSha256 and read (its files go to `<dataDir>/mcpb/<server>` only when
   * install() has its confirmed launch line). Throws InvalidInput
   * with one sentence when a value is missing; a deleted entry is refused.
   */
  async prepareInstall(name: string, choice: InstallChoice, options: { registry?: string; version?: string } = {}): Promise<PreparedInstall> {
    const registry = await this.registryFor(options.registry);
    const { entry, freshness } = await this.client.version(registry, name, options.version ?? 'latest');
    if (entry.meta?.status === 'deleted') throw new AppError('InvalidInput', `${name} ${entry.server.version} is marked deleted in ${registry}${entry.meta.statusMessage ? ` (${entry.meta.statusMessage.slice(0, 300)})` : ''}; it is not installed.`);
    const plan = planInstall(entry.server, registry, choice);
    let server: PlannedServer;
    let bundle: PreparedInstall['bundle'];
    if (plan.kind === 'mcpb') {
      const contents = readBundle(await downloadVerified(plan.url, plan.sha256, this.options.fetch));
      const folder = join(this.options.dataDir, 'mcpb', plan.serverName);
      server = planBundleLaunch(plan, contents.launch, folder, contents.description ?? entry.server.description);
      bundle = { contents, folder };
    } else server = plan;
    if (entry.meta?.status === 'deprecated') server.warnings.unshift(`${name} ${entry.server.version} is deprecated${entry.meta.statusMessage ? `: ${entry.meta.statusMessage.slice(0, 300)}` : ''}.`);
    return { entry, freshness, plan: server, ...(bundle ? { bundle } : {}) };
  }

  /** What installing would save, for the user to confirm; nothing is saved or started. */
  async preview(request: InstallRequest): Promise<InstallPreview> {
    const prepared = await this.prepareInstall(request.name, request.choice, request);
    const config = McpServerConfig.parse(prepared.plan.config);
    const card = config.transport === 'stdio' ? undefined : await fetchServerCard(config.url, this.options.fetch);
    return { entry: prepared.entry, freshness: prepared.freshness, serverName: config.name, transport: config.transport, launch: launchOf(config), warnings: prepared.plan.warnings, ...(card ? { card } : {}) };
  }

  /**
   * Installs: plans again (a bundle is verified and unpacked again), saves through `saver` with the
   * launch confirmation required whatever the host (the command comes from a registry, not from the
   * user's typing), and remembers where the server came from.
   */
  async install(request: InstallRequest, saver: ServerSaver): Promise<{ snapshot: ServerSnapshot; preview: InstallPreview }> {
    const prepared = await this.prepareInstall(request.name, request.choice, request);
    const config = McpServerConfig.parse(prepared.plan.config);
    // Checked before a bundle's files are written: a refused install changes nothing on disk,
    // least of all the folder of a server already saved under this name.
    if (saver.list().some((saved) => saved.config.name === config.name)) throw new AppError('AlreadyExists', `A server named "${config.name}" already exists: install under another name (--name).`);
    if (config.transport === 'stdio' && request.confirmedLaunchLine !== launchOf(config)) throw launchConfirmationRequired([launchOf(config)]);
    if (prepared.bundle) await writeBundle(prepared.bundle.contents, prepared.bundle.folder);
    // A remote's Server Card is read again as installed: what it declares is kept for the lock's review.
    const card = config.transport === 'stdio' ? undefined : await fetchServerCard(config.url, this.options.fetch);
    const snapshot = await saver.save({ config, confirmedLaunchLine: request.confirmedLaunchLine }, { requireLaunchConfirmation: true });
    await this.recordInstall(snapshot.config.name, { ...prepared.plan.origin, launch: launchOf(snapshot.config), ...(card?.tools ? { cardTools: card.tools.map((tool) => tool.name) } : {}) });
    return { snapshot, preview: { entry: prepared.entry, freshness: prepared.freshness, serverName: config.name, transport: config.transport, launch: launchOf(config), warnings: prepared.plan.warnings } };
  }

  /** Remembers that the saved server `server` was installed from `origin`. */
  async recordInstall(server: string, origin: InstallOrigin): Promise<void> {
    await this.installs.update((current) => ({ next: { servers: { ...current.servers, [server]: origin } }, result: undefined }));
  }

  async forgetInstall(server: string): Promise<void> {
    await this.installs.update((current) => {
      const { [server]: _gone, ...rest } = current.servers;
      return { next: { servers: rest }, result: undefined };
    });
  }

  async installed(): Promise<Record<string, InstallOrigin>> {
    return (await this.installs.read()).servers;
  }

  /**
   * Saved servers installed from a registry whose registry now publishes another latest version.
   * `saved` are the saved servers as they are now: one whose launch line or URL is no longer the
   * one installed (edited, or removed and saved anew under the name) is no longer the registry's
   * and gets no notice. A registry that cannot be reached is skipped.
   */
  async updates(saved: ReadonlyArray<{ name: string; config: McpServerConfig }>): Promise<AvailableUpdate[]> {
    const installs = await this.installed();
    const found: AvailableUpdate[] = [];
    await Promise.all(
      Object.entries(installs).map(async ([server, origin]) => {
        const current = saved.find((item) => item.name === server);
        if (!current || (origin.launch !== undefined && launchOf(current.config) !== origin.launch)) return;
        try {
          const { entry } = await this.client.version(origin.registry, origin.name, 'latest');
          if (entry.server.version !== origin.version) found.push({ server, origin, latest: entry.server.version });
        } catch {
          // Unreachable or gone: no notice rather than a wrong one.
        }
      }),
    );
    return found.sort((a, b) => a.server.localeCompare(b.server));
  }
}
