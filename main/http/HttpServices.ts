import { join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../../shared/errors';
import { HttpServiceInput, type HttpServiceView } from '../../shared/httpServices';
import { JsonFile } from '../platform/JsonFile';
import type { Logger } from '../platform/Logger';
import type { SecretStore } from '../platform/SecretStore';
import { HttpToolExecutor, httpTokenSecretKey } from '../registry/http/HttpToolExecutor';
import { httpToolEntries } from '../registry/http/httpToolEntries';
import { loadClawDescriptor } from '../registry/http/loadClawDescriptor';
import type { ToolCatalog } from '../registry/ToolCatalog';

const SavedService = HttpServiceInput.omit({ token: true });
type SavedService = z.infer<typeof SavedService>;
const SavedServices = z.array(SavedService);

/**
 * Imported `claw.describe` descriptors (Clawdapus): saved in `<dataDir>/http-services.json`, loaded
 * at start, their HTTP tools registered beside MCP tools and A2A skills.
 */
export class HttpServices {
  private readonly file: JsonFile<typeof SavedServices>;
  private saved: SavedService[] = [];
  private readonly views = new Map<string, HttpServiceView>();
  private readonly executor: HttpToolExecutor;

  constructor(
    private readonly options: { dataDir: string; catalog: ToolCatalog; secretStore: SecretStore; logger: Logger },
  ) {
    this.file = new JsonFile(join(options.dataDir, 'http-services.json'), SavedServices, () => [], { kind: 'list of HTTP services' });
    this.executor = new HttpToolExecutor({ secretStore: options.secretStore });
  }

  async init(): Promise<void> {
    try {
      this.saved = await this.file.read();
    } catch (error) {
      this.options.logger.warn('http-services.json unreadable', { error: (error as Error).message });
    }
    await Promise.all(this.saved.map((s) => this.load(s).catch(() => undefined)));
  }

  list(): HttpServiceView[] {
    return this.saved.map((s) => this.views.get(s.service) ?? { service: s.service, location: s.location, baseUrl: s.baseUrl ?? '', tools: [] });
  }

  /** Imports (or re-imports) a descriptor; fails without saving anything when it cannot be loaded. */
  async add(input: HttpServiceInput): Promise<HttpServiceView> {
    const parsed = HttpServiceInput.parse(input);
    const { token, ...service } = parsed;
    const view = await this.load(service);
    if (view.error) throw new AppError('InvalidInput', view.error);
    if (token) await this.options.secretStore.set(httpTokenSecretKey(service.service), token);
    this.saved = [...this.saved.filter((s) => s.service !== service.service), service].sort((a, b) => a.service.localeCompare(b.service));
    await this.file.write(this.saved);
    return view;
  }

  async remove(service: string): Promise<void> {
    if (!this.saved.some((s) => s.service === service)) throw new AppError('NotFound', `No HTTP service named "${service}"`);
    this.saved = this.saved.filter((s) => s.service !== service);
    this.views.delete(service);
    this.options.catalog.removeSource({ kind: 'http', name: service });
    await this.options.secretStore.delete(httpTokenSecretKey(service));
    await this.file.write(this.saved);
  }

  private async load(service: SavedService): Promise<HttpServiceView> {
    try {
      const { descriptor, origin } = await loadClawDescriptor(service.location);
      const baseUrl = service.baseUrl ?? origin;
      if (!baseUrl) throw new AppError('InvalidInput', `A descriptor read from a file needs a base URL: where does ${service.service} answer?`);
      const entries = httpToolEntries(descriptor, { service: service.service, baseUrl });
      this.options.catalog.replaceSource({ kind: 'http', name: service.service }, entries, this.executor);
      const view = { service: service.service, location: service.location, baseUrl, tools: entries.map((e) => e.toolName), loadedAt: Date.now() };
      this.views.set(service.service, view);
      return view;
    } catch (error) {
      const view = { service: service.service, location: service.location, baseUrl: service.baseUrl ?? '', tools: [], error: (error as Error).message };
      this.views.set(service.service, view);
      return view;
    }
  }
}
