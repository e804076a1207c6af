import { AppError } from '../../shared/errors';
import { sourceId } from '../../shared/invocation';
import type { ToolCatalog } from '../registry/ToolCatalog';
import type { ToolSourceKind } from '../registry/ToolSourceKind';
import type { HttpServices } from './HttpServices';

/**
 * HTTP services (Clawdapus `claw.describe` descriptors) as a source kind. HttpServices is its own
 * catalog sync: it loads every saved descriptor at start and registers its tools. Only saved
 * services have entries, so every one lasts.
 */
export class HttpSourceKind implements ToolSourceKind<'http'> {
  readonly kind = 'http';

  constructor(
    private readonly services: Pick<HttpServices, 'list'>,
    private readonly catalog: Pick<ToolCatalog, 'list'>,
  ) {}

  /** Nothing to connect: the service's descriptor was loaded at start, or it has no entries. */
  async prepare(name: string): Promise<void> {
    if (!this.catalog.list({ source: sourceId({ kind: 'http', name }) }).length) throw new AppError('NotFound', `No HTTP service named "${name}" is loaded`);
  }

  lasting(): boolean {
    return true;
  }

  /** None: each HTTP tool carries its own base URL in its entry. */
  async endpoints(): Promise<Record<string, string>> {
    return {};
  }

  async savedSources(): Promise<string[]> {
    return this.services.list().map((service) => service.service);
  }
}
