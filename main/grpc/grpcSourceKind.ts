import type { ToolSourceKind } from '../registry/ToolSourceKind';
import type { GrpcSources } from './GrpcSources';

/**
 * gRPC sources as a source kind. GrpcSources is its own catalog sync: listing a source (ListTools,
 * or reflection) registers its entries. Saved and workspace sources last; the one-off target of
 * `tooldeck grpc call` does not.
 */
export class GrpcSourceKind implements ToolSourceKind<'grpc'> {
  readonly kind = 'grpc';

  constructor(private readonly sources: GrpcSources) {}

  /** Lists the source unless its entries are registered; NotFound when no source has that name. */
  prepare(name: string): Promise<void> {
    return this.sources.ensureListed(name);
  }

  lasting(name: string): boolean {
    return this.sources.isLasting(name);
  }

  /** Each source's `host:port`. */
  async endpoints(): Promise<Record<string, string>> {
    return Object.fromEntries(this.sources.list().map((source) => [source.name, source.address]));
  }

  async savedSources(): Promise<string[]> {
    return this.sources.list().map((source) => source.name);
  }

  close(): Promise<void> {
    return this.sources.close();
  }
}
