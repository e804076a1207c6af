import { join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../../shared/errors';
import { HttpServiceInput, type HttpServiceView } from '../../shared/httpServices';
import { credentialOriginText, credentialsMayGoTo } from '../../shared/endpointOrigin';
import { JsonFile } from '../platform/JsonFile';
import type { Logger } from '../platform/Logger';
import type { SecretStore } from '../platform/SecretStore';
import { HttpToolExecutor, httpTokenSecretKey } from './HttpToolExecutor';
import { httpToolEntries } from './httpToolEntries';
import { loadClawDescriptor } from './loadClawDescriptor';
import type { ToolCatalog } from '../registry/ToolCatalog';

const SavedService = HttpServiceInput.omit({ token: true }).extend({
  /**
   * The process environment variable the descriptor named in `auth.env` when the user added the
   * service (null: none). A descriptor re-read later cannot pick another one: the remote would be
   * choosing which of the user's variables (AWS_SECRET_ACCESS_KEY, …) it is sent.
   */
  authEnv: z.string().nullable().optional(),
});
type SavedService = z.infer<typeof SavedService>;
const SavedServices = z.array(SavedService);

/** The origin an http(s) descriptor location is fetched from (where its tools are called by default). */
function remoteOrigin(location: string): string | undefined {
  return /^https?:\/\//i.test(location) ? new URL(location).origin : undefined;
}

/**
 * Imported `claw.describe` descriptors (Clawdapus): saved in `<dataDir>/http-services.json`, loaded
 * at start, their HTTP tools registered beside MCP tools and A2A skills.
 */
export class HttpServices {
  private readonly file: JsonFile<typeof SavedServices>;
  private saved: SavedService[] = [];
  private readonly views = new Map<string, HttpServiceView>();
  private readonly executor: HttpToolExecutor;
  /** The `auth.env` of each service's descriptor as last loaded (null: none). */
  private readonly loadedAuthEnv = new Map<string, string | null>();

  constructor(
    private readonly options: {
      dataDir: string;
      catalog: ToolCatalog;
      secretStore: SecretStore;
      logger: Logger;
      /** Where `auth.env` is looked up; process.env by default. */
      env?: Record<string, string | undefined>;
    },
  ) {
    this.file = new JsonFile(join(options.dataDir, 'http-services.json'), SavedServices, () => [], { kind: 'list of HTTP services' });
    this.executor = new HttpToolExecutor({ secretStore: options.secretStore, ...(options.env ? { env: options.env } : {}) });
  }

  async init(): Promise<void> {
    try {
      this.saved = await this.file.read();
    } catch (error) {
      this.options.logger.warn('http-services.json unreadable', { error: (error as Error).message });
    }
    await Promise.all(this.saved.map((s) => this.load(s).catch(() => undefined)));
    // A file from before `auth.env` was fixed at add: the variable the descriptor names now is the
    // one it keeps from here on.
    const unfixed = this.saved.filter((s) => s.authEnv === undefined && this.loadedAuthEnv.has(s.service));
    if (unfixed.length) {
      this.saved = this.saved.map((s) => (unfixed.includes(s) ? { ...s, authEnv: this.loadedAuthEnv.get(s.service) ?? null } : s));
      await this.file.write(this.saved).catch((error: unknown) => this.options.logger.warn('http-services.json not updated', { error: (error as Error).message }));
    }
  }

  list(): HttpServiceView[] {
    return this.saved.map((s) => this.views.get(s.service) ?? { service: s.service, location: s.location, baseUrl: s.baseUrl ?? '', tools: [] });
  }

  /**
   * Imports (or re-imports) a descriptor; fails without saving anything when it cannot be loaded.
   * The environment variable its `auth.env` names now is the one its calls send from then on.
   */
  async add(input: HttpServiceInput): Promise<HttpServiceView> {
    const parsed = HttpServiceInput.parse(input);
    const { token, ...given } = parsed;
    // Checked before the descriptor is loaded: loading registers its tools, which read the token by service name.
    const before = this.saved.find((s) => s.service === given.service);
    const callsWent = before && (before.baseUrl ?? remoteOrigin(before.location));
    const callsGo = given.baseUrl ?? remoteOrigin(given.location);
    if (callsWent && callsGo && !token && !credentialsMayGoTo(callsWent, callsGo) && (await this.options.secretStore.get(httpTokenSecretKey(given.service))) !== undefined) {
      throw new AppError(
        'InvalidInput',
        `${given.service} moves to ${credentialOriginText(callsGo) ?? callsGo} from ${credentialOriginText(callsWent) ?? callsWent}: give its token again, as the saved one stays with the address it was given for.`,
      );
    }
    const view = await this.load(given);
    if (view.error) throw new AppError('InvalidInput', view.error);
    const service: SavedService = { ...given, authEnv: this.loadedAuthEnv.get(given.service) ?? null };
    if (token) await this.options.secretStore.set(httpTokenSecretKey(service.service), token);
    this.saved = [...this.saved.filter((s) => s.service !== service.service), service].sort((a, b) => a.service.localeCompare(b.service));
    await this.file.write(this.saved);
    return view;
  }

  async remove(service: string): Promise<void> {
    if (!this.saved.some((s) => s.service === service)) throw new AppError('NotFound', `No HTTP service named "${service}"`);
    this.saved = this.saved.filter((s) => s.service !== service);
    this.views.delete(service);
    this.loadedAuthEnv.delete(service);
    this.options.catalog.removeSource({ kind: 'http', name: service });
    await this.options.secretStore.delete(httpTokenSecretKey(service));
    await this.file.write(this.saved);
  }

  /** Loads a service's descriptor; an `authEnv` of undefined accepts whatever variable it names (adding, or a file from before). */
  private async load(service: SavedService): Promise<HttpServiceView> {
    try {
      const { descriptor, origin } = await loadClawDescriptor(service.location);
      const baseUrl = service.baseUrl ?? origin;
      if (!baseUrl) throw new AppError('InvalidInput', `A descriptor read from a file needs a base URL: where does ${service.service} answer?`);
      const namedEnv = descriptor.auth?.env ?? null;
      if (namedEnv !== null && service.authEnv !== undefined && namedEnv !== service.authEnv) {
        const saved = service.authEnv === null ? 'none was named when you added it' : `$${service.authEnv} was named when you added it`;
        throw new AppError(
          'Unauthorized',
          `The descriptor of ${service.service} now asks for the token in $${namedEnv} where ${saved}, so its tools are not loaded and nothing is sent; add the service again to accept the change.`,
        );
      }
      this.loadedAuthEnv.set(service.service, namedEnv);
      const entries = httpToolEntries(descriptor, { service: service.service, baseUrl });
      this.options.catalog.replaceSource({ kind: 'http', name: service.service }, entries, this.executor);
      const view = { service: service.service, location: service.location, baseUrl, tools: entries.map((e) => e.toolName), ...(namedEnv ? { authEnv: namedEnv } : {}), loadedAt: Date.now() };
      this.views.set(service.service, view);
      return view;
    } catch (error) {
      const view = { service: service.service, location: service.location, baseUrl: service.baseUrl ?? '', tools: [], error: (error as Error).message };
      this.views.set(service.service, view);
      return view;
    }
  }
}
