import { createHmac, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { AppError, launchConfirmationRequired } from '../../shared/errors';
import { McpServerConfig, stdioLaunchLine, type SaveServerInput, type ServerSnapshot } from '../../shared/mcp';
import { RegistryEntry, SERVER_JSON_FILE, type Freshness, type InstallChoice, type InstallPreview, type InstallRequest, type SearchPage } from '../../shared/mcpRegistry';
import { issuesSentence, validationIssues } from '../../shared/issuesSentence';
import { SECRET_PLACEHOLDER, shellQuote } from '../../shared/secrets';
import { sealServerConfig } from '../../shared/serverSecrets';
import { JsonFile } from '../platform/JsonFile';
import { planBundleLaunch, planInstall, type InstallOrigin, type PlannedBundle, type PlannedServer } from './installPlan';
import { downloadVerified, readBundle, writeBundle, type BundleNetwork, type ReadBundle } from './mcpbBundle';
import { RegistryClient } from './RegistryClient';
import { fetchServerCard } from './serverCard';
import { normalizeRegistryUrl, RegistrySources } from './RegistrySources';

type FetchLike = (url: string, init?: RequestInit) => Promise<Response>;

export interface McpRegistryOptions {
  dataDir: string;
  fetch?: FetchLike;
  timeoutMs?: number;
  /** How bundles are downloaded (tests: their own CA and loopback server); public https addresses only by default. */
  bundleNetwork?: BundleNetwork;
}

/** The step of the refusal when the registry's answer changed between the preview and the install. */
export const PLAN_CHANGED_STEP = 'plan-changed';

const InstallsFile = z.object({
  servers: z
    .record(z.string(), z.object({ registry: z.string(), name: z.string(), version: z.string(), kind: z.string(), identifier: z.string().optional(), launch: z.string().optional(), cardTools: z.array(z.string().max(256)).max(2_000).optional() }))
    .default({}),
});

export interface PreparedInstall {
  entry: RegistryEntry;
  freshness: Freshness;
  /** What runs; for an mcpb bundle, known only once it is downloaded (install), so absent at preview. */
  plan: PlannedServer | PlannedBundle;
}

/** How an installed server is saved: McpService.save, as every server, so its secrets are sealed the same way. */
export interface ServerSaver {
  list(): ServerSnapshot[];
  save(input: SaveServerInput, options: { requireLaunchConfirmation?: boolean }): Promise<ServerSnapshot>;
}

/** The exact line a stdio plan launches (the user's sealed values as ***, as save() seals them; the registry's in plain text), or a remote's URL. */
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
   * The entry and what it installs as, the version pinned. Nothing is downloaded: an mcpb bundle
   * is fetched only by install(). Throws InvalidInput with one sentence when a value is missing or
   * something the registry supplies could change what runs; a deleted entry is refused.
   */
  async prepareInstall(name: string, choice: InstallChoice, options: { registry?: string; version?: string; document?: string } = {}): Promise<PreparedInstall> {
    const registry = options.document !== undefined ? SERVER_JSON_FILE : await this.registryFor(options.registry);
    const { entry, freshness } = options.document !== undefined ? entryOfDocument(options.document) : await this.client.version(registry, name, options.version ?? 'latest');
    if (entry.meta?.status === 'deleted') throw new AppError('InvalidInput', `${name} ${entry.server.version} is marked deleted in ${registry}${entry.meta.statusMessage ? ` (${entry.meta.statusMessage.slice(0, 300)})` : ''}; it is not installed.`);
    const plan = planInstall(entry.server, registry, choice);
    if (entry.meta?.status === 'deprecated') plan.warnings.unshift(`${name} ${entry.server.version} is deprecated${entry.meta.statusMessage ? `: ${entry.meta.statusMessage.slice(0, 300)}` : ''}.`);
    return { entry, freshness, plan };
  }

  /**
   * A keyed hash of what a plan runs: command, arguments, environment names and values, working
   * directory (a remote: URL and headers; a bundle before download: its URL, checksum, environment
   * and arguments). Keyed per process so the user's secret values in it cannot be guessed from it.
   */
  planHash(plan: PlannedServer | PlannedBundle): string {
    const what =
      plan.kind === 'mcpb'
        ? { kind: 'mcpb', url: plan.url, sha256: plan.sha256, env: sorted(plan.env), args: plan.args, userConfig: sorted(plan.userConfig) }
        : plan.config.transport === 'stdio'
          ? { kind: 'stdio', command: plan.config.command, args: plan.config.args ?? [], env: sorted(plan.config.env ?? {}), cwd: plan.config.cwd ?? null }
          : { kind: plan.config.transport, url: plan.config.url, headers: sorted(plan.config.headers ?? {}) };
    return createHmac('sha256', this.hashKey).update(JSON.stringify(what)).digest('hex');
  }

  private readonly hashKey = randomBytes(32);

  /** What installing would save, for the user to confirm; nothing is downloaded, saved or started. */
  async preview(request: InstallRequest): Promise<InstallPreview> {
    const prepared = await this.prepareInstall(request.name, request.choice, request);
    return this.previewOf(prepared, true);
  }

  private async previewOf(prepared: PreparedInstall, readCard: boolean): Promise<InstallPreview> {
    const { plan } = prepared;
    const common = { entry: prepared.entry, freshness: prepared.freshness, warnings: plan.warnings, planHash: this.planHash(plan), ...(plan.flagged.length ? { flagged: plan.flagged } : {}) };
    if (plan.kind === 'mcpb') {
      const env = Object.entries(plan.env)
        .map(([name, value]) => `${name}=${plan.plainEnv.includes(name) ? shellQuote(value) : SECRET_PLACEHOLDER}`)
        .join(' ');
      const launch = `download ${plan.url} (sha256 ${plan.sha256})${env ? ` with ${env}` : ''}${plan.args.length ? ` and the arguments ${plan.args.map(shellQuote).join(' ')}` : ''}; its manifest's command line is shown to confirm once it is verified`;
      return { ...common, serverName: plan.serverName, transport: 'stdio', launch, bundle: { url: plan.url, sha256: plan.sha256 } };
    }
    const config = McpServerConfig.parse(plan.config);
    const card = readCard && config.transport !== 'stdio' ? await fetchServerCard(config.url, this.options.fetch) : undefined;
    const headers = config.transport === 'stdio' ? undefined : headerLines(config);
    return { ...common, serverName: config.name, transport: config.transport, launch: launchOf(config), ...(headers?.length ? { headers } : {}), ...(card ? { card } : {}) };
  }

  /** The last bundle downloaded and verified, so the confirmation of its command line does not fetch it again. */
  private verifiedBundle?: { key: string; bytes: Buffer };

  private async bundleBytes(plan: PlannedBundle): Promise<Buffer> {
    const key = `${plan.url} ${plan.sha256}`;
    if (this.verifiedBundle?.key === key) return this.verifiedBundle.bytes;
    const bytes = await downloadVerified(plan.url, plan.sha256, this.options.bundleNetwork);
    this.verifiedBundle = { key, bytes };
    return bytes;
  }

  /**
   * Installs: asks the registry again and plans again; when that plan no longer hashes to the
   * previewed one (`previewHash`), stops. A bundle is downloaded, verified and read only now; its
   * command line must then be confirmed (`confirmedLaunchLine`) before anything is written. Saves
   * through `saver` with the launch confirmation required whatever the host (the command comes
   * from a registry, not from the user's typing), and remembers where the server came from.
   */
  async install(request: InstallRequest, saver: ServerSaver): Promise<{ snapshot: ServerSnapshot; preview: InstallPreview }> {
    const prepared = await this.prepareInstall(request.name, request.choice, request);
    const hash = this.planHash(prepared.plan);
    if (request.previewHash !== hash) {
      throw new AppError(
        'InvalidInput',
        request.previewHash === undefined
          ? `${request.name} is not installed: confirm its preview first (the install is bound to the line you confirmed).`
          : `${request.name} is not installed: the registry's answer changed between the preview and the install, so what would run is no longer what you confirmed.`,
        { step: PLAN_CHANGED_STEP },
      );
    }
    const serverName = prepared.plan.kind === 'mcpb' ? prepared.plan.serverName : prepared.plan.config.name;
    // Checked before a bundle is fetched or its files written: a refused install changes nothing on
    // disk, least of all the folder of a server already saved under this name.
    if (saver.list().some((saved) => saved.config.name === serverName)) throw new AppError('AlreadyExists', `A server named "${serverName}" already exists: install under another name (--name).`);
    let plan: PlannedServer;
    let bundle: { contents: ReadBundle; folder: string } | undefined;
    if (prepared.plan.kind === 'mcpb') {
      const contents = readBundle(await this.bundleBytes(prepared.plan));
      const folder = join(this.options.dataDir, 'mcpb', prepared.plan.serverName);
      plan = planBundleLaunch(prepared.plan, contents.launch, folder, contents.description ?? prepared.entry.server.description);
      bundle = { contents, folder };
    } else plan = prepared.plan;
    const config = McpServerConfig.parse(plan.config);
    if (config.transport === 'stdio' && request.confirmedLaunchLine !== launchOf(config)) throw launchConfirmationRequired([launchOf(config)]);
    if (bundle) {
      await writeBundle(bundle.contents, bundle.folder);
      this.verifiedBundle = undefined;
    }
    const installed = await this.previewOf({ ...prepared, plan }, false);
    // A remote's Server Card is read again as installed: what it declares is kept for the lock's review.
    const card = config.transport === 'stdio' ? undefined : await fetchServerCard(config.url, this.options.fetch);
    const snapshot = await saver.save({ config, confirmedLaunchLine: request.confirmedLaunchLine }, { requireLaunchConfirmation: true });
    await this.recordInstall(snapshot.config.name, { ...plan.origin, launch: launchOf(snapshot.config), ...(card?.tools ? { cardTools: card.tools.map((tool) => tool.name) } : {}) });
    return { snapshot, preview: { ...installed, planHash: hash } };
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
        if (origin.registry === SERVER_JSON_FILE || !current || (origin.launch !== undefined && launchOf(current.config) !== origin.launch)) return;
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

function sorted(record: Record<string, string>): Array<[string, string]> {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A remote's headers as sent: the registry's values readable, the user's sealed ones as ***. */
function headerLines(config: McpServerConfig): string[] {
  const sealed = sealServerConfig(config).config;
  if (sealed.transport === 'stdio') return [];
  return [...Object.entries(sealed.headers).map(([name, value]) => `${name}: ${value}`), ...sealed.secretHeaders.filter((name) => !(name in sealed.headers)).map((name) => `${name}: ${SECRET_PLACEHOLDER}`)];
}

/** A server.json the user has at hand, read as a registry's entry would be (bounded, the same schema). */
function entryOfDocument(text: string): { entry: RegistryEntry; freshness: Freshness } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new AppError('InvalidInput', `The server.json is not JSON: ${(error as Error).message}`);
  }
  const parsed = RegistryEntry.safeParse({ server: json });
  if (!parsed.success) throw new AppError('InvalidInput', `The server.json is not a usable server.json: ${issuesSentence(validationIssues(parsed.error) ?? []).slice(0, 500)}`);
  return { entry: parsed.data, freshness: { registry: SERVER_JSON_FILE, offline: false, fetchedAt: Date.now() } };
}
